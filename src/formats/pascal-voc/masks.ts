// Instance masks of SegmentationObject/: the pixel colour is the VOC palette entry of the object's
// number (1 for the first <object> of the XML), 0 is background and 255 (the border) is ignored.
// Class masks of SegmentationClass/: the pixel colour is the colour of a label (see labelmap.ts).
import { loadSharp } from '../../sharp.ts';
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

/** The RGB colour of each pixel, 0xRRGGBB, of an RGB or palette PNG. */
async function pixelColors(png: Buffer): Promise<{ width: number; height: number; colors: Uint32Array }> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(png, { limitInputPixels: 100_000_000 }).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const colors = new Uint32Array(width * height);
  for (let p = 0, k = 0; p < colors.length; p++, k += channels) {
    colors[p] = channels >= 3 ? (data[k]! << 16) | (data[k + 1]! << 8) | data[k + 2]! : vocColor(data[k]!);
  }
  return { width, height, colors };
}

/**
 * Bitmap objects from a class mask PNG: one per label whose colour it uses (background labels
 * excepted), in the order of `labels`. Colours of no label are counted in one warning.
 */
export async function readClassMask(png: Buffer, path: string, labels: readonly { name: string; color: number }[], isBackground: (name: string) => boolean): Promise<{ objects: ShapedObject[]; warnings: FormatWarning[] }> {
  const { width, height, colors } = await pixelColors(png);
  const labelOf = new Map(labels.map((l, i) => [l.color, i]));
  const pixelsOf = new Map<number, Uint8Array>();
  const unknown = new Set<number>();
  for (let p = 0; p < colors.length; p++) {
    const index = labelOf.get(colors[p]!);
    if (index === undefined) {
      unknown.add(colors[p]!);
      continue;
    }
    if (isBackground(labels[index]!.name)) continue;
    let mask = pixelsOf.get(index);
    if (!mask) pixelsOf.set(index, (mask = new Uint8Array(width * height)));
    mask[p] = 1;
  }
  const warnings: FormatWarning[] = [];
  if (unknown.size > 0) warnings.push({ path, message: `${unknown.size} colour(s) are no label's colour; those pixels are ignored` });
  const objects: ShapedObject[] = [];
  for (const [index, pixels] of [...pixelsOf].sort((a, b) => a[0] - b[0])) {
    const bitmap = maskToBitmap({ width, height, pixels });
    if (bitmap) objects.push({ classTitle: labels[index]!.name, description: '', tags: [], bitmap, points: { exterior: [], interior: [] }, shape: 'bitmap' });
  }
  return { objects, warnings };
}

const INDEX_OF = new Map(Array.from({ length: 256 }, (_, i) => [vocColor(i), i]));

/**
 * Bitmap objects from an instance mask PNG (RGB or palette): one per object number found, with the
 * label and tags of that `<object>`. `objects[objectIndex[n - 1]]` is the XML object numbered n.
 */
export async function readInstanceMask(png: Buffer, path: string, objects: readonly ShapedObject[], objectIndex: readonly number[]): Promise<{ objects: ShapedObject[]; warnings: FormatWarning[] }> {
  const { width, height, colors } = await pixelColors(png);
  const pixelsOf = new Map<number, Uint8Array>();
  const unknown = new Set<number>();
  for (let p = 0; p < colors.length; p++) {
    const color = colors[p]!;
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
