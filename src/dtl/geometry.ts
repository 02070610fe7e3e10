// Geometry of annotation objects for the annotation layers: boxes, areas, and the way between
// vector shapes and bitmaps. Coordinates are continuous as raster.ts takes them: pixel (x, y) covers
// [x, x+1) × [y, y+1), and a rectangle is `[[left, top], [right, bottom]]`.
import type { CanonicalBitmap, CanonicalObject, ClassShape, Point } from '../formats/canonical.ts';
import { maskToBitmap } from '../formats/coco/mask.ts';
import { shoelaceArea } from '../formats/coco/geometry.ts';
import { type Raster, newRaster, paintObject } from '../formats/raster.ts';
import { decodeBitmap } from '../formats/supervisely/bitmap.ts';

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The object's bounding box; a bitmap's is the extent of its mask. Null for an object without points. */
export function objectBox(object: CanonicalObject): Box | null {
  if (object.bitmap) {
    const [left, top] = object.bitmap.origin;
    return { left, top, right: left + object.bitmap.width, bottom: top + object.bitmap.height };
  }
  const points = object.points.exterior;
  if (points.length === 0) return null;
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const [x, y] of points) {
    if (x < left) left = x;
    if (x > right) right = x;
    if (y < top) top = y;
    if (y > bottom) bottom = y;
  }
  return { left, top, right, bottom };
}

/**
 * The object's bounding box as a Supervisely rectangle, which includes its last column and row: a
 * bitmap's ends at its last pixel (origin + size - 1), a vector object's at its largest coordinates
 * (as Supervisely's SDK boxes them since 2019; the 2018 engine ended a bitmap's one pixel further).
 */
export function rectangleOf(object: CanonicalObject): Box | null {
  const box = objectBox(object);
  if (!box || !object.bitmap) return box;
  return { ...box, right: box.right - 1, bottom: box.bottom - 1 };
}

/** The rectangle's two corners. */
export const boxPoints = (box: Box): Point[] => [
  [box.left, box.top],
  [box.right, box.bottom],
];

/** The area an object covers: a polygon's by its rings, a rectangle's box, a bitmap's set pixels; lines and points none. */
export async function objectArea(object: CanonicalObject, shape: ClassShape): Promise<number> {
  if (shape === 'bitmap') {
    if (!object.bitmap) return 0;
    const mask = await decodeBitmap(object.bitmap.data);
    let set = 0;
    for (const p of mask.pixels) set += p;
    return set;
  }
  if (shape === 'polygon') {
    const { exterior, interior } = object.points;
    return Math.max(0, shoelaceArea(exterior) - interior.reduce((sum, ring) => sum + shoelaceArea(ring), 0));
  }
  if (shape === 'rectangle') {
    const box = objectBox(object);
    return box ? (box.right - box.left) * (box.bottom - box.top) : 0;
  }
  return 0;
}

/** The object drawn on a mask the size of its image. */
export async function objectMask(object: CanonicalObject, shape: ClassShape, width: number, height: number): Promise<Raster> {
  const raster = newRaster(width, height);
  await paintObject(raster, shape, object, 1);
  return raster;
}

/** A mask of the image's size as a bitmap cropped to its set pixels; null when none is set. */
export const rasterBitmap = (raster: Raster): CanonicalBitmap | null => maskToBitmap(raster);

/** The bitmap's mask placed on a mask of the image's size (what lies outside the image is cut off). */
export async function bitmapRaster(bitmap: CanonicalBitmap, width: number, height: number): Promise<Raster> {
  const raster = newRaster(width, height);
  await paintObject(raster, 'bitmap', { bitmap, points: { exterior: [], interior: [] } }, 1);
  return raster;
}

/** An object with other geometry, its class, description and tags kept. */
export function reshaped(object: CanonicalObject, classTitle: string, geometry: Pick<CanonicalObject, 'bitmap' | 'points'>): CanonicalObject {
  return { classTitle, description: object.description, tags: object.tags.map((t) => ({ ...t })), bitmap: geometry.bitmap, points: geometry.points };
}

export const NO_POINTS = { exterior: [] as Point[], interior: [] as Point[][] };

/** The 4-connected pieces of a mask, each as a mask of the same size, in scan order of their first pixel. */
export function maskPieces(mask: Raster): Raster[] {
  const { width, height, pixels } = mask;
  const label = new Int32Array(width * height);
  const queue = new Int32Array(width * height);
  const pieces: Raster[] = [];
  for (let start = 0; start < pixels.length; start++) {
    if (!pixels[start] || label[start]) continue;
    const piece = newRaster(width, height);
    const id = pieces.length + 1;
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    label[start] = id;
    while (head < tail) {
      const p = queue[head++]!;
      piece.pixels[p] = 1;
      const x = p % width;
      for (const q of [x > 0 ? p - 1 : -1, x < width - 1 ? p + 1 : -1, p - width, p + width]) {
        if (q >= 0 && q < pixels.length && pixels[q] && !label[q]) {
          label[q] = id;
          queue[tail++] = q;
        }
      }
    }
    pieces.push(piece);
  }
  return pieces;
}

/** A bitmap's own mask (at the size of its PNG). */
export async function bitmapMask(bitmap: CanonicalBitmap): Promise<Raster> {
  return decodeBitmap(bitmap.data);
}

/** A mask of a bitmap's own size as a bitmap placed at `origin`, cropped to its set pixels. */
export function placedBitmap(mask: Raster, origin: readonly [number, number]): CanonicalBitmap | null {
  const bitmap = maskToBitmap(mask);
  return bitmap && { ...bitmap, origin: [bitmap.origin[0] + origin[0], bitmap.origin[1] + origin[1]] };
}

export const setPixels = (mask: Raster): number => mask.pixels.reduce((n, p) => n + (p ? 1 : 0), 0);
