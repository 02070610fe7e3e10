// Instance masks of SegmentationObject/: the pixel colour is the VOC palette entry of the object's
// number (1 for the first <object> of the XML), 0 is background and 255 (the border) is ignored.
import sharp from 'sharp';
import type { FormatWarning, ShapedObject } from '../canonical.ts';
import { maskToBitmap } from '../coco/mask.ts';

/** The VOC palette colour of index `i`, as 0xRRGGBB. */
export function vocColor(i: number): number {
  let r = 0;
  let g = 0;
  let b = 0;
  let c = i;
  for (let j = 0; j < 8; j++) {
    r |= (c & 1) << (7 - j);
    g |= ((c >> 1) & 1) << (7 - j);
    b |= ((c >> 2) & 1) << (7 - j);
    c >>= 3;
  }
  return (r << 16) | (g << 8) | b;
}

const INDEX_OF = new Map(Array.from({ length: 256 }, (_, i) => [vocColor(i), i]));

/**
 * Bitmap objects from an instance mask PNG (RGB or palette): one per object number found, with the
 * label and tags of that `<object>`. `objects[objectIndex[n - 1]]` is the XML object numbered n.
 */
export async function readInstanceMask(png: Buffer, path: string, objects: readonly ShapedObject[], objectIndex: readonly number[]): Promise<{ objects: ShapedObject[]; warnings: FormatWarning[] }> {
  const { data, info } = await sharp(png, { limitInputPixels: 100_000_000 }).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const pixelsOf = new Map<number, Uint8Array>();
  const unknown = new Set<number>();
  for (let p = 0, k = 0; p < width * height; p++, k += channels) {
    const color = channels >= 3 ? (data[k]! << 16) | (data[k + 1]! << 8) | data[k + 2]! : vocColor(data[k]!);
    const index = INDEX_OF.get(color);
    if (index === undefined) {
      unknown.add(color);
      continue;
    }
    if (index === 0 || index === 255) continue;
    let mask = pixelsOf.get(index);
    if (!mask) pixelsOf.set(index, (mask = new Uint8Array(width * height)));
    mask[p] = 1;
  }
  const out: ShapedObject[] = [];
  const warnings: FormatWarning[] = [];
  if (unknown.size > 0) warnings.push({ path, message: `${unknown.size} colour(s) are not VOC palette entries; those pixels are ignored` });
  for (const [index, pixels] of [...pixelsOf].sort((a, b) => a[0] - b[0])) {
    const source = objectIndex[index - 1] === undefined ? undefined : objects[objectIndex[index - 1]!];
    if (!source) {
      warnings.push({ path, message: `mask object ${index} has no <object> number ${index} in the XML; it is ignored` });
      continue;
    }
    const bitmap = maskToBitmap({ width, height, pixels });
    if (bitmap) out.push({ classTitle: source.classTitle, description: '', tags: source.tags.map((t) => ({ ...t })), bitmap, points: { exterior: [], interior: [] }, shape: 'bitmap' });
  }
  return { objects: out, warnings };
}
