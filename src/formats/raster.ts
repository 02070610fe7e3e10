// Draws annotation geometry onto masks of one byte a pixel, for the writers that store pixels (COCO
// RLE, VOC segmentation, machine and human masks).
//
// Coordinates are continuous, as the readers take them: pixel (x, y) covers [x, x+1) × [y, y+1), and
// a polygon or rectangle sets the pixels whose centres lie inside it. So a box from 0 to 10 sets ten
// pixels a row, as COCO's `[0, 0, 10, 10]` means, and a polygon traced along pixel edges (the outer
// contour of a mask) draws that mask back exactly. Lines have no area: they set the pixels they pass
// through. A point sets its pixel and the four beside it, the disc of radius 1 Supervisely draws.
//
// Supervisely's own drawing takes coordinates as pixel indices instead: its rectangles include their
// right column and bottom row, one pixel more each way than the same box here.
import type { ClassShape, Point } from './canonical.ts';
import { decodeBitmap } from './supervisely/bitmap.ts';

/** Row-major, one byte a pixel. */
export interface Raster {
  width: number;
  height: number;
  pixels: Uint8Array;
}

export const newRaster = (width: number, height: number): Raster => ({ width, height, pixels: new Uint8Array(width * height) });

/** Image coordinates of a raster's top-left pixel, for a raster that covers part of an image. */
export type Offset = readonly [number, number];
const ORIGIN: Offset = [0, 0];

/**
 * Fills the rings together by the even-odd rule, so holes listed after the exterior stay unset as
 * Supervisely draws them (cv2.fillPoly with every ring). Pixels in a hole keep what they had.
 */
export function fillPolygon(r: Raster, rings: readonly (readonly Point[])[], value: number, offset: Offset = ORIGIN): void {
  let minY = Infinity;
  let maxY = -Infinity;
  for (const ring of rings) {
    for (const [, y] of ring) {
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  const [ox, oy] = offset;
  // Rows whose centre y + 0.5 lies in [minY, maxY).
  const first = Math.max(0, Math.ceil(minY - oy - 0.5));
  const last = Math.min(r.height, Math.ceil(maxY - oy - 0.5));
  const crossings: number[] = [];
  for (let y = first; y < last; y++) {
    const yc = y + 0.5 + oy;
    crossings.length = 0;
    for (const ring of rings) {
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const [xi, yi] = ring[i]!;
        const [xj, yj] = ring[j]!;
        if (yi <= yc !== yj <= yc) crossings.push(xi + ((yc - yi) * (xj - xi)) / (yj - yi));
      }
    }
    crossings.sort((a, b) => a - b);
    for (let k = 0; k + 1 < crossings.length; k += 2) fillRow(r, y, crossings[k]! - ox, crossings[k + 1]! - ox, value);
  }
}

/** Sets the pixels of row y whose centres lie in [from, to). */
function fillRow(r: Raster, y: number, from: number, to: number, value: number): void {
  const x0 = Math.max(0, Math.ceil(from - 0.5));
  const x1 = Math.min(r.width, Math.ceil(to - 0.5));
  if (x1 > x0) r.pixels.fill(value, y * r.width + x0, y * r.width + x1);
}

/** A rectangle `[[left, top], [right, bottom]]`: the pixels whose centres lie inside. */
export function fillRectangle(r: Raster, corners: readonly Point[], value: number, offset: Offset = ORIGIN): void {
  const [[left, top], [right, bottom]] = corners as [Point, Point];
  const y0 = Math.max(0, Math.ceil(Math.min(top, bottom) - offset[1] - 0.5));
  const y1 = Math.min(r.height, Math.ceil(Math.max(top, bottom) - offset[1] - 0.5));
  for (let y = y0; y < y1; y++) fillRow(r, y, Math.min(left, right) - offset[0], Math.max(left, right) - offset[0], value);
}

/** The pixels each segment passes through, one pixel wide (Bresenham between the pixels of its ends). */
export function drawPolyline(r: Raster, points: readonly Point[], value: number, offset: Offset = ORIGIN): void {
  for (let i = 1; i < points.length; i++) {
    let x0 = Math.floor(points[i - 1]![0] - offset[0]);
    let y0 = Math.floor(points[i - 1]![1] - offset[1]);
    const x1 = Math.floor(points[i]![0] - offset[0]);
    const y1 = Math.floor(points[i]![1] - offset[1]);
    const dx = Math.abs(x1 - x0);
    const dy = -Math.abs(y1 - y0);
    const sx = x0 < x1 ? 1 : -1;
    const sy = y0 < y1 ? 1 : -1;
    let error = dx + dy;
    for (;;) {
      setPixel(r, x0, y0, value);
      if (x0 === x1 && y0 === y1) break;
      const e2 = 2 * error;
      if (e2 >= dy) {
        error += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        error += dx;
        y0 += sy;
      }
    }
  }
}

/** The pixel the point lies in and its four neighbours, so that a point shows in a mask. */
export function drawPoint(r: Raster, [x, y]: Point, value: number, offset: Offset = ORIGIN): void {
  const px = Math.floor(x - offset[0]);
  const py = Math.floor(y - offset[1]);
  for (const [dx, dy] of [[0, 0], [-1, 0], [1, 0], [0, -1], [0, 1]] as const) setPixel(r, px + dx, py + dy, value);
}

function setPixel(r: Raster, x: number, y: number, value: number): void {
  if (x >= 0 && y >= 0 && x < r.width && y < r.height) r.pixels[y * r.width + x] = value;
}

/** The set pixels of `mask`, whose top-left pixel is at `origin` in image coordinates. */
export function paintMask(r: Raster, mask: Raster, origin: Point, value: number, offset: Offset = ORIGIN): void {
  const left = origin[0] - offset[0];
  const top = origin[1] - offset[1];
  const y0 = Math.max(0, top);
  const y1 = Math.min(r.height, top + mask.height);
  const x0 = Math.max(0, left);
  const x1 = Math.min(r.width, left + mask.width);
  for (let y = y0; y < y1; y++) {
    const from = (y - top) * mask.width - left;
    const row = y * r.width;
    for (let x = x0; x < x1; x++) if (mask.pixels[from + x]) r.pixels[row + x] = value;
  }
}

/** What paintObject draws: a stored object's geometry, whose shape its class gives. */
export interface DrawnObject {
  bitmap: { origin: [number, number]; data: string } | null;
  points: { exterior: Point[]; interior: Point[][] };
}

/** Draws one object of the given shape; a bitmap is decoded for it (its data must be a valid mask). */
export async function paintObject(r: Raster, shape: ClassShape, object: DrawnObject, value: number, offset: Offset = ORIGIN): Promise<void> {
  const { exterior, interior } = object.points;
  switch (shape) {
    case 'bitmap':
      if (object.bitmap) paintMask(r, await decodeBitmap(object.bitmap.data), object.bitmap.origin, value, offset);
      return;
    case 'polygon':
      return fillPolygon(r, [exterior, ...interior], value, offset);
    case 'rectangle':
      return fillRectangle(r, exterior, value, offset);
    case 'line':
      return drawPolyline(r, exterior, value, offset);
    case 'point':
      return drawPoint(r, exterior[0]!, value, offset);
  }
}
