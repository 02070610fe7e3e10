// Moving annotation geometry with its pixels, for the DTL layers that resize, crop, flip or rotate an
// image. Every such change is an affine map of image coordinates followed by a cut to the new image's
// rectangle, so one function (transformObject) serves them all.
//
// Coordinates are continuous, as src/formats/raster.ts takes them: pixel (x, y) covers
// [x, x+1) × [y, y+1). So flipping an image W wide maps x to W - x, and a bitmap's pixel to the one
// its centre lands in. Results are rounded to 1e-6, so that a quarter turn gives whole numbers back
// instead of 2.9999999999999996.
//
// Objects have no shape of their own in the canonical model (their class has one). shapeOf uses an
// object's `shape` when it carries one (as ShapedObject does); otherwise it guesses from the
// geometry, and a two-point line is then taken for a rectangle.
import { deflateSync } from 'node:zlib';
import type { CanonicalAnnotation, CanonicalBitmap, CanonicalObject, ClassShape, Point } from '../formats/canonical.ts';
import { isClassShape } from '../formats/canonical.ts';
import { encodePngSync } from '../formats/png.ts';
import { decodeBitmap } from '../formats/supervisely/bitmap.ts';

/** x' = a·x + b·y + c, y' = d·x + e·y + f. */
export type Affine = readonly [a: number, b: number, c: number, d: number, e: number, f: number];

export const IDENTITY: Affine = [1, 0, 0, 0, 1, 0];

export const translation = (dx: number, dy: number): Affine => [1, 0, dx, 0, 1, dy];

export const scaling = (sx: number, sy: number): Affine => [sx, 0, 0, 0, sy, 0];

/** Rotation by `degrees` counter-clockwise as seen on screen (y grows downwards), about the origin. */
export function rotation(degrees: number): Affine {
  const radians = (degrees * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  return [cos, sin, 0, -sin, cos, 0];
}

/** The map that applies `first`, then `then`. */
export function compose(then: Affine, first: Affine): Affine {
  const [a1, b1, c1, d1, e1, f1] = then;
  const [a2, b2, c2, d2, e2, f2] = first;
  return [a1 * a2 + b1 * d2, a1 * b2 + b1 * e2, a1 * c2 + b1 * f2 + c1, d1 * a2 + e1 * d2, d1 * b2 + e1 * e2, d1 * c2 + e1 * f2 + f1];
}

export function invert(m: Affine): Affine {
  const [a, b, c, d, e, f] = m;
  const det = a * e - b * d;
  if (det === 0) throw new Error('the transform is not invertible');
  return [e / det, -b / det, (b * f - c * e) / det, -d / det, a / det, (c * d - a * f) / det];
}

export const apply = (m: Affine, [x, y]: Point): Point => [m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]];

/** An axis-aligned rectangle in continuous image coordinates. */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export const imageBox = (size: { width: number; height: number }): Box => ({ left: 0, top: 0, right: size.width, bottom: size.height });

export function boundsOf(points: readonly Point[]): Box {
  const box = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
  for (const [x, y] of points) {
    box.left = Math.min(box.left, x);
    box.top = Math.min(box.top, y);
    box.right = Math.max(box.right, x);
    box.bottom = Math.max(box.bottom, y);
  }
  return box;
}

export function intersect(a: Box, b: Box): Box | null {
  const box = { left: Math.max(a.left, b.left), top: Math.max(a.top, b.top), right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom) };
  return box.right > box.left && box.bottom > box.top ? box : null;
}

const tidy = (v: number): number => Math.round(v * 1e6) / 1e6 + 0; // + 0 turns -0 into 0
const tidyPoint = ([x, y]: Point): Point => [tidy(x), tidy(y)];

/**
 * A ring cut to the box (Sutherland–Hodgman: the box is convex, so one pass per side is exact).
 * Empty when nothing of the ring is inside.
 */
export function clipRing(ring: readonly Point[], box: Box): Point[] {
  type Side = { inside: (p: Point) => boolean; cross: (p: Point, q: Point) => Point };
  const atX = (x: number) => (p: Point, q: Point): Point => [x, p[1] + ((q[1] - p[1]) * (x - p[0])) / (q[0] - p[0])];
  const atY = (y: number) => (p: Point, q: Point): Point => [p[0] + ((q[0] - p[0]) * (y - p[1])) / (q[1] - p[1]), y];
  const sides: Side[] = [
    { inside: (p) => p[0] >= box.left, cross: atX(box.left) },
    { inside: (p) => p[0] <= box.right, cross: atX(box.right) },
    { inside: (p) => p[1] >= box.top, cross: atY(box.top) },
    { inside: (p) => p[1] <= box.bottom, cross: atY(box.bottom) },
  ];
  let points: Point[] = [...ring];
  for (const { inside, cross } of sides) {
    const input = points;
    points = [];
    for (let i = 0; i < input.length; i++) {
      const current = input[i]!;
      const previous = input[(i + input.length - 1) % input.length]!;
      if (inside(current)) {
        if (!inside(previous)) points.push(cross(previous, current));
        points.push(current);
      } else if (inside(previous)) points.push(cross(previous, current));
    }
  }
  return withoutRepeats(points);
}

function withoutRepeats(points: Point[]): Point[] {
  const out: Point[] = [];
  for (const p of points) {
    const last = out[out.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p);
  }
  while (out.length > 1 && out[0]![0] === out[out.length - 1]![0] && out[0]![1] === out[out.length - 1]![1]) out.pop();
  return out;
}

/** Twice the signed area of a ring (shoelace). */
function doubleArea(ring: readonly Point[]): number {
  let sum = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) sum += (ring[j]![0] - ring[i]![0]) * (ring[j]![1] + ring[i]![1]);
  return sum;
}

/**
 * A polyline cut to the box: the pieces inside, each of two points or more (Liang–Barsky on each
 * segment; consecutive segments that stay inside make one piece).
 */
export function clipPolyline(points: readonly Point[], box: Box): Point[][] {
  const pieces: Point[][] = [];
  let piece: Point[] = [];
  for (let i = 1; i < points.length; i++) {
    const segment = clipSegment(points[i - 1]!, points[i]!, box);
    if (!segment) {
      if (piece.length > 1) pieces.push(piece);
      piece = [];
      continue;
    }
    const [from, to, enteredAtStart] = segment;
    if (!enteredAtStart || piece.length === 0) {
      if (piece.length > 1) pieces.push(piece);
      piece = [from];
    }
    piece.push(to);
    if (to !== points[i]) {
      pieces.push(piece);
      piece = [];
    }
  }
  if (piece.length > 1) pieces.push(piece);
  return pieces;
}

/** The part of segment p→q inside the box, and whether it starts at p. */
function clipSegment(p: Point, q: Point, box: Box): [Point, Point, boolean] | null {
  const dx = q[0] - p[0];
  const dy = q[1] - p[1];
  let t0 = 0;
  let t1 = 1;
  const edges: [number, number][] = [
    [-dx, p[0] - box.left],
    [dx, box.right - p[0]],
    [-dy, p[1] - box.top],
    [dy, box.bottom - p[1]],
  ];
  for (const [denominator, distance] of edges) {
    if (denominator === 0) {
      if (distance < 0) return null;
    } else {
      const t = distance / denominator;
      if (denominator < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
    }
  }
  if (t0 > t1) return null;
  const at = (t: number): Point => [p[0] + t * dx, p[1] + t * dy];
  return [t0 === 0 ? p : at(t0), t1 === 1 ? q : at(t1), t0 === 0];
}

/** The shape of an object: the one it carries, else the one its geometry suggests. */
export function shapeOf(object: CanonicalObject): ClassShape {
  const carried = (object as { shape?: unknown }).shape;
  if (isClassShape(carried)) return carried;
  if (object.bitmap) return 'bitmap';
  const { exterior, interior } = object.points;
  if (exterior.length === 1) return 'point';
  if (exterior.length === 2 && interior.length === 0) return 'rectangle';
  return 'polygon';
}

/**
 * The object moved by `m` and cut to an image of `size`: none when nothing of it is left inside, and
 * several for a line cut into pieces. A rectangle stays axis-aligned: after a rotation it becomes the
 * bounding box of its turned corners, as the 2018 DTL's rectangles did.
 */
export async function transformObject(object: CanonicalObject, m: Affine, size: { width: number; height: number }): Promise<CanonicalObject[]> {
  const box = imageBox(size);
  const { exterior, interior } = object.points;
  const moved = (points: CanonicalObject['points']): CanonicalObject => ({ ...object, bitmap: null, points });
  switch (shapeOf(object)) {
    case 'bitmap': {
      if (!object.bitmap) return [];
      const bitmap = await transformBitmap(object.bitmap, m, size);
      return bitmap ? [{ ...object, bitmap }] : [];
    }
    case 'point': {
      const [x, y] = tidyPoint(apply(m, exterior[0]!));
      return x >= box.left && x <= box.right && y >= box.top && y <= box.bottom ? [moved({ exterior: [[x, y]], interior: [] })] : [];
    }
    case 'rectangle': {
      const [[l, t], [r, b]] = exterior as [Point, Point];
      const corners: Point[] = [[l, t], [r, t], [r, b], [l, b]].map((p) => apply(m, p as Point));
      const cut = intersect(boundsOf(corners), box);
      if (!cut) return [];
      return [moved({ exterior: [tidyPoint([cut.left, cut.top]), tidyPoint([cut.right, cut.bottom])], interior: [] })];
    }
    case 'line':
      return clipPolyline(exterior.map((p) => apply(m, p)), box)
        .map((piece) => withoutRepeats(piece.map(tidyPoint)))
        .filter((piece) => piece.length > 1)
        .map((piece) => moved({ exterior: piece, interior: [] }));
    case 'polygon': {
      const ring = (points: Point[]) => {
        const cut = withoutRepeats(clipRing(points.map((p) => apply(m, p)), box).map(tidyPoint));
        return cut.length >= 3 && doubleArea(cut) !== 0 ? cut : null;
      };
      const outer = ring(exterior);
      if (!outer) return [];
      const holes = interior.map(ring).filter((h): h is Point[] => h !== null);
      return [moved({ exterior: outer, interior: holes })];
    }
  }
}

/** transformObject for every object of an annotation, for an image of `size`. */
export async function transformAnnotation(annotation: CanonicalAnnotation, m: Affine, size: { width: number; height: number }): Promise<CanonicalAnnotation> {
  const objects: CanonicalObject[] = [];
  for (const object of annotation.objects) objects.push(...(await transformObject(object, m, size)));
  return { ...annotation, size: { width: size.width, height: size.height }, objects };
}

/**
 * A bitmap moved by `m` onto an image of `size`: each pixel of the image takes the mask's value where
 * its centre comes from (nearest neighbour, so flips and quarter turns are exact), cut to the image
 * and to the set pixels' box. Null when no pixel is left.
 */
export async function transformBitmap(bitmap: CanonicalBitmap, m: Affine, size: { width: number; height: number }): Promise<CanonicalBitmap | null> {
  const mask = await decodeBitmap(bitmap.data);
  const [ox, oy] = bitmap.origin;
  const corners: Point[] = [
    [ox, oy],
    [ox + mask.width, oy],
    [ox + mask.width, oy + mask.height],
    [ox, oy + mask.height],
  ];
  const reach = intersect(boundsOf(corners.map((p) => apply(m, p))), imageBox(size));
  if (!reach) return null;
  const left = Math.max(0, Math.floor(tidy(reach.left)));
  const top = Math.max(0, Math.floor(tidy(reach.top)));
  const width = Math.min(size.width, Math.ceil(tidy(reach.right))) - left;
  const height = Math.min(size.height, Math.ceil(tidy(reach.bottom))) - top;
  const back = invert(m);
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [sx, sy] = apply(back, [left + x + 0.5, top + y + 0.5]);
      const mx = Math.floor(sx - ox);
      const my = Math.floor(sy - oy);
      if (mx >= 0 && my >= 0 && mx < mask.width && my < mask.height && mask.pixels[my * mask.width + mx]) pixels[y * width + x] = 1;
    }
  }
  return encodeMask({ width, height, pixels }, [left, top]);
}

/** A mask whose top-left pixel is at `origin`, cut to its set pixels and encoded; null when none is set. */
export function encodeMask(mask: { width: number; height: number; pixels: Uint8Array }, origin: [number, number]): CanonicalBitmap | null {
  const { width, pixels } = mask;
  let left = width;
  let top = mask.height;
  let right = -1;
  let bottom = -1;
  for (let y = 0; y < mask.height; y++) {
    for (let x = 0; x < width; x++) {
      if (!pixels[y * width + x]) continue;
      left = Math.min(left, x);
      right = Math.max(right, x);
      top = Math.min(top, y);
      bottom = y;
    }
  }
  if (right < 0) return null;
  const w = right - left + 1;
  const h = bottom - top + 1;
  const cut = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) cut.set(pixels.subarray((top + y) * width + left, (top + y) * width + left + w), y * w);
  const png = encodePngSync({ width: w, height: h, pixels: cut, kind: 'bits' });
  return { origin: [origin[0] + left, origin[1] + top], data: deflateSync(png).toString('base64'), width: w, height: h };
}
