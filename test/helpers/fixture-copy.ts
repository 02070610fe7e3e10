// A fixture of another project copied into a temporary folder, with the images its source does not
// ship generated at the size its annotation files give, so that an import of the copy sees a whole
// dataset. The fixtures themselves stay unchanged.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { tempDir } from './dialects.ts';
import { OUTSIDE, PEER } from './peer-fixtures.ts';

export interface MissingImage {
  /** Path inside the fixture, with forward slashes. */
  path: string;
  width: number;
  height: number;
}

/**
 * The images each outside fixture lacks, by fixture folder under `test/fixtures/outside/`, with the
 * sizes its README gives (read from the source's annotation files).
 */
export const OUTSIDE_MISSING_IMAGES: Readonly<Record<string, readonly MissingImage[]>> = {
  'super-gradients/coco/tinycoco': [
    { path: 'images/val2017/000000471345.jpg', width: 640, height: 480 },
    { path: 'images/val2017/000000444010.jpg', width: 640, height: 480 },
    { path: 'images/val2017/000000565004.jpg', width: 640, height: 427 },
    { path: 'images/val2017/000000516168.jpg', width: 640, height: 480 },
  ],
  'sahi/coco/coco_evaluate': [
    { path: '0000321_00000_d_0000015.jpg', width: 1360, height: 765 },
    { path: '0000063_02235_d_0000003.jpg', width: 960, height: 540 },
  ],
  'roboflow-python/coco/sharks-tiny-coco': [],
  'roboflow-python/voc/chess': [],
  'mmdetection/voc/VOCdevkit': [{ path: 'VOC2012/JPEGImages/000001.jpg', width: 335, height: 500 }],
  'label-studio-converter/yolo/test_import_yolo_data': [
    { path: 'images/img_1.jpg', width: 640, height: 329 },
    { path: 'images/img_2.png', width: 640, height: 427 },
    { path: 'images/img_3.png', width: 1280, height: 720 },
    { path: 'images/img_4.png', width: 640, height: 494 },
    { path: 'images/img_5.jpg', width: 640, height: 425 },
    { path: 'images/img_6.jpeg', width: 1280, height: 720 },
    { path: 'images/img_7.jpeg', width: 640, height: 427 },
  ],
  'label-studio-converter/yolo-seg/test_import_yolo_seg_data_unif_dims': [],
  'roboflow-python/yolo/sharks-tiny-yolov9': [],
  'sahi/yolo/coco2yolo': [
    { path: 'train/terrain2.png', width: 1024, height: 682 },
    { path: 'val/terrain1.jpg', width: 2048, height: 1365 },
  ],
  'tcotte-SuperviselyDatasets/supervisely/project_demo': [{ path: 'dataset/img/(77).jpg', width: 5184, height: 3456 }],
};

/** The images a COCO file of `fixture` lists that the folder lacks, beside the file, at the sizes it gives. */
function imagesListedBy(fixture: string, jsonPath: string): MissingImage[] {
  const json = JSON.parse(fs.readFileSync(path.join(fixture, ...jsonPath.split('/')), 'utf8')) as { images: { file_name: string; width: number; height: number }[] };
  const dir = path.posix.dirname(jsonPath);
  return json.images
    .map((image) => ({ path: dir === '.' ? image.file_name : `${dir}/${image.file_name}`, width: image.width, height: image.height }))
    .filter((image) => !fs.existsSync(path.join(fixture, ...image.path.split('/'))));
}

/**
 * The images the peer fixtures lack (see `test/fixtures/peer/README.md`), by fixture folder under
 * `test/fixtures/peer/`, from the fixture's folder: at the sizes its annotation files give, and where
 * they give none (voc_dataset2) at a size that holds every box.
 */
export const PEER_MISSING_IMAGES: Readonly<Record<string, (fixture: string) => readonly MissingImage[]>> = {
  'labelformat/coco/instance_segmentation': (fixture) => imagesListedBy(fixture, 'instances_with_binary_mask.json'),
  'faster_coco_eval/coco/dataset': (fixture) => [...imagesListedBy(fixture, 'gt_ignore_test.json'), ...imagesListedBy(fixture, 'cocoapi/instances_val2014_100.json')],
  'labelformat/voc/object_detection': () => [
    { path: 'a-weird Filename.asdf.jpg', width: 640, height: 416 },
    { path: 'aNother-weird__ filename.with.many.characters.jpg', width: 640, height: 428 },
  ],
  'datumaro/voc/voc_dataset2': () => ['@', 'a', 'b', 'c', 'd'].map((id) => ({ path: `JPEGImages/${id}.jpg`, width: 12, height: 10 })),
};

/** A real image of the given size, encoded as its extension says, whose pixels depend on `seed`. */
export async function generatedImage(name: string, width: number, height: number, seed = 0): Promise<Buffer> {
  const image = sharp({ create: { width, height, channels: 3, background: { r: seed % 256, g: (seed >> 8) % 256, b: 128 } } });
  const extension = path.extname(name).toLowerCase();
  if (extension === '.png') return image.png().toBuffer();
  if (extension === '.jpg' || extension === '.jpeg') return image.jpeg().toBuffer();
  throw new Error(`no encoder for ${name} in the fixture helper`);
}

/**
 * Copies `source` into a new temporary folder and writes each missing image there (each with other
 * pixels, so no two generated images share a hash). Answers the copy's path; the caller removes it.
 */
export async function fixtureCopy(source: string, missing: readonly MissingImage[]): Promise<string> {
  const copy = path.join(tempDir('fixture'), path.basename(source));
  fs.cpSync(source, copy, { recursive: true });
  for (const [i, image] of missing.entries()) {
    const target = path.join(copy, ...image.path.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, await generatedImage(target, image.width, image.height, i + 1));
  }
  return copy;
}

/** fixtureCopy of an outside fixture, by its folder under `test/fixtures/outside/`. */
export function outsideFixtureCopy(fixture: string): Promise<string> {
  const missing = OUTSIDE_MISSING_IMAGES[fixture];
  if (!missing) throw new Error(`${fixture} is not an outside fixture of the table`);
  return fixtureCopy(path.join(OUTSIDE, ...fixture.split('/')), missing);
}

/** fixtureCopy of a peer fixture, by its folder under `test/fixtures/peer/`, with the images PEER_MISSING_IMAGES gives. */
export function peerFixtureCopy(fixture: string): Promise<string> {
  const source = path.join(PEER, ...fixture.split('/'));
  return fixtureCopy(source, PEER_MISSING_IMAGES[fixture]?.(source) ?? []);
}
