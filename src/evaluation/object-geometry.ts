// Stored objects as the evaluation compares them: a box [x, y, w, h] and a COCO run-length mask.
// A rectangle's mask is the polygon of its corners (as COCO makes a box's), a polygon's is its
// exterior less its holes, a bitmap's is its pixels placed at its origin. Points and lines have no
// area and are not evaluated.
import type { Point } from '../formats/canonical.ts';
import { decodeBitmap } from '../formats/supervisely/bitmap.ts';
import { type Rle, rleFromMask, rleFromPolygon, rleMerge, rleToBox } from './rle.ts';

export interface StoredGeometry {
  bitmap: { origin: [number, number]; data: string } | null;
  points: { exterior: Point[]; interior: Point[][] };
}

export const EVALUATED_SHAPES = new Set(['rectangle', 'polygon', 'bitmap']);

/**
 * The box of an object: a rectangle's corners; a polygon's or a bitmap's is the extent of its pixels,
 * as COCO files give the box of a segmentation (pycocotools' toBbox of its mask).
 */
export async function boxOf(shape: string, o: StoredGeometry, h: number, w: number): Promise<number[]> {
  if (shape === 'rectangle') {
    const [[ax, ay], [bx, by]] = o.points.exterior as [Point, Point];
    return [Math.min(ax, bx), Math.min(ay, by), Math.abs(bx - ax), Math.abs(by - ay)];
  }
  return rleToBox(await maskOf(shape, o, h, w));
}

/** The complement of a mask (runs start with zeros: prepend or drop an empty first run). */
function invert(r: Rle): Rle {
  const counts = r.counts[0] === 0 ? r.counts.slice(1) : Uint32Array.from([0, ...r.counts]);
  return { h: r.h, w: r.w, counts };
}

/** The mask of an object in an image of h × w. */
export async function maskOf(shape: string, o: StoredGeometry, h: number, w: number): Promise<Rle> {
  if (shape === 'bitmap' && o.bitmap) {
    const mask = await decodeBitmap(o.bitmap.data);
    const full = new Uint8Array(h * w);
    const [ox, oy] = o.bitmap.origin;
    for (let y = 0; y < mask.height; y++) {
      for (let x = 0; x < mask.width; x++) {
        const [ix, iy] = [ox + x, oy + y];
        if (mask.pixels[y * mask.width + x] && ix >= 0 && iy >= 0 && ix < w && iy < h) full[ix * h + iy] = 1;
      }
    }
    return rleFromMask(full, h, w);
  }
  if (shape === 'rectangle') {
    const [[ax, ay], [bx, by]] = o.points.exterior as [Point, Point];
    const [xs, ys, xe, ye] = [Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by)];
    return rleFromPolygon([xs, ys, xs, ye, xe, ye, xe, ys], h, w);
  }
  const outer = rleFromPolygon(o.points.exterior.flat(), h, w);
  if (o.points.interior.length === 0) return outer;
  const holes = rleMerge(o.points.interior.map((ring) => rleFromPolygon(ring.flat(), h, w)));
  return rleMerge([outer, invert(holes)], true);
}
