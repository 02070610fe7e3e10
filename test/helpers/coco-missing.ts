// A COCO folder whose annotation file names 6 images of which only 2 are there: the import takes the
// 2 and warns about the other 4.
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './dialects.ts';
import { generatedImage } from './fixture-copy.ts';

export const COCO_NAMES = ['a.png', 'b.png', 'c.png', 'd.png', 'e.png', 'f.png'];
export const COCO_PRESENT = ['a.png', 'b.png'];

/** Writes the folder `name` in a temporary folder; answers its path. */
export async function cocoFolderMissingImages(name: string): Promise<string> {
  const dir = path.join(tempDir('coco-missing'), name);
  fs.mkdirSync(path.join(dir, 'images'), { recursive: true });
  const coco = {
    images: COCO_NAMES.map((file_name, i) => ({ id: i + 1, file_name, width: 40, height: 30 })),
    annotations: COCO_NAMES.map((_, i) => ({ id: i + 1, image_id: i + 1, category_id: 1, bbox: [2, 2, 10, 8], area: 80, iscrowd: 0, segmentation: [] })),
    categories: [{ id: 1, name: 'boat' }],
  };
  fs.writeFileSync(path.join(dir, 'instances.json'), JSON.stringify(coco));
  for (const [i, file] of COCO_PRESENT.entries()) fs.writeFileSync(path.join(dir, 'images', file), await generatedImage(file, 40, 30, 300 + i));
  return dir;
}
