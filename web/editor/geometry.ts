// Geometry of the editor, in the image's own pixel coordinates: keeping points inside the image,
// rectangles in the stored form, vertices inserted and removed under each shape's minimum, and what
// lies under the pointer. Pure functions over plain arrays: the editor's tests run them in Node.
import type { Point } from './annotation-types.ts';

export type Shape = 'point' | 'rectangle' | 'line' | 'polygon' | 'bitmap';

export interface Size {
  width: number;
  height: number;
}

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The fewest points each shape's exterior may have (the server refuses fewer); a hole needs 3. */
export const MIN_POINTS: Record<Shape, number> = { point: 1, rectangle: 2, line: 2, polygon: 3, bitmap: 0 };
export const MIN_HOLE_POINTS = 3;
/** The server's bound on the points of one object. */
export const MAX_POINTS_PER_OBJECT = 100_000;

/** Coordinates are kept to 1/100 pixel: enough for any zoom, and short in the stored text. */
const round = (v: number) => Math.round(v * 100) / 100;

/** The point moved to the nearest place inside the image (edges included). */
export function clampPoint(p: readonly number[], size: Size): Point {
  const [x = 0, y = 0] = p;
  return [round(Math.min(size.width, Math.max(0, x))), round(Math.min(size.height, Math.max(0, y)))];
}

export const clampRing = (ring: readonly (readonly number[])[], size: Size): Point[] => ring.map((p) => clampPoint(p, size));

/** A rectangle from any two opposite corners, as the format stores it: [[left, top], [right, bottom]]. */
export function rectangleOf(a: readonly number[], b: readonly number[], size: Size): Point[] {
  const [ax, ay] = clampPoint(a, size);
  const [bx, by] = clampPoint(b, size);
  return [
    [Math.min(ax!, bx!), Math.min(ay!, by!)],
    [Math.max(ax!, bx!), Math.max(ay!, by!)],
  ];
}

/** The four corners of a stored rectangle, clockwise from the top left. */
export function rectangleCorners(exterior: readonly (readonly number[])[]): Point[] {
  const [[l = 0, t = 0] = [], [r = 0, b = 0] = []] = exterior;
  return [
    [l, t],
    [r, t],
    [r, b],
    [l, b],
  ];
}

/** The rectangle after corner `corner` (0..3, as rectangleCorners) was dragged to `to`. */
export function rectangleWithCorner(exterior: readonly (readonly number[])[], corner: number, to: readonly number[], size: Size): Point[] {
  const corners = rectangleCorners(exterior);
  const opposite = corners[(corner + 2) % 4]!;
  return rectangleOf(opposite, to, size);
}

export function boxOf(points: readonly (readonly number[])[]): Box {
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const [x = 0, y = 0] of points) {
    if (x < left) left = x;
    if (x > right) right = x;
    if (y < top) top = y;
    if (y > bottom) bottom = y;
  }
  return { left, top, right, bottom };
}

export const boxesMeet = (a: Box, b: Box): boolean => a.left <= b.right && b.left <= a.right && a.top <= b.bottom && b.top <= a.bottom;

/**
 * How far (dx, dy) may move the box without leaving the image: the move is shortened on each axis so
 * that the whole shape stays inside (its shape unchanged, unlike clamping each point).
 */
export function boundedMove(box: Box, dx: number, dy: number, size: Size): [number, number] {
  const x = Math.min(size.width - box.right, Math.max(-box.left, dx));
  const y = Math.min(size.height - box.bottom, Math.max(-box.top, dy));
  return [x, y];
}

export const translated = (ring: readonly (readonly number[])[], dx: number, dy: number): Point[] => ring.map(([x = 0, y = 0]) => [round(x + dx), round(y + dy)]);

/** The ring with `point` inserted before index `at` (at = ring.length appends). */
export function withVertexInserted(ring: readonly Point[], at: number, point: Point): Point[] {
  if (ring.length >= MAX_POINTS_PER_OBJECT) return [...ring];
  return [...ring.slice(0, at), point, ...ring.slice(at)];
}

/** The ring without vertex `at`, or null when that would leave fewer than `min` points. */
export function withVertexRemoved(ring: readonly Point[], at: number, min: number): Point[] | null {
  if (ring.length - 1 < min || at < 0 || at >= ring.length) return null;
  return ring.filter((_, i) => i !== at);
}

export const withVertexMoved = (ring: readonly Point[], at: number, to: Point): Point[] => ring.map((p, i) => (i === at ? to : p));

const distanceSquared = (a: readonly number[], b: readonly number[]) => (a[0]! - b[0]!) ** 2 + (a[1]! - b[1]!) ** 2;

/** The point of segment a–b nearest to p. */
export function nearestOnSegment(p: readonly number[], a: readonly number[], b: readonly number[]): Point {
  const dx = b[0]! - a[0]!;
  const dy = b[1]! - a[1]!;
  const length = dx * dx + dy * dy;
  const t = length === 0 ? 0 : Math.min(1, Math.max(0, ((p[0]! - a[0]!) * dx + (p[1]! - a[1]!) * dy) / length));
  return [a[0]! + t * dx, a[1]! + t * dy];
}

/**
 * The edge of the ring nearest to p within `tolerance`: the index to insert a vertex at, the point
 * on the edge, its distance. A closed ring has an edge from its last point back to its first.
 */
export function nearestEdge(ring: readonly Point[], p: readonly number[], closed: boolean, tolerance: number): { at: number; point: Point; distance: number } | null {
  let best: { at: number; point: Point; distance: number } | null = null;
  const edges = closed ? ring.length : ring.length - 1;
  for (let i = 0; i < edges; i += 1) {
    const a = ring[i]!;
    const b = ring[(i + 1) % ring.length]!;
    const point = nearestOnSegment(p, a, b);
    const distance = Math.sqrt(distanceSquared(p, point));
    if (distance <= tolerance && (!best || distance < best.distance)) best = { at: i + 1, point, distance };
  }
  return best;
}

/** The index of the ring's vertex within `tolerance` of p (the nearest), or -1. */
export function nearestVertex(ring: readonly Point[], p: readonly number[], tolerance: number): number {
  let best = -1;
  let bestDistance = tolerance * tolerance;
  ring.forEach((v, i) => {
    const d = distanceSquared(v, p);
    if (d <= bestDistance) {
      best = i;
      bestDistance = d;
    }
  });
  return best;
}

/** Whether p is inside the ring (even-odd rule, as the drawing fills it). */
export function insideRing(ring: readonly (readonly number[])[], p: readonly number[]): boolean {
  const [x = 0, y = 0] = p;
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i, i += 1) {
    const [xi = 0, yi = 0] = ring[i]!;
    const [xj = 0, yj = 0] = ring[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Whether p (image pixels) touches a shape, `tolerance` pixels counting as near for lines and points. */
export function touches(shape: Shape, points: { exterior: readonly Point[]; interior: readonly Point[][] }, p: readonly number[], tolerance: number): boolean {
  const { exterior, interior } = points;
  switch (shape) {
    case 'point':
      return exterior.some((v) => distanceSquared(v, p) <= tolerance * tolerance);
    case 'line':
      return nearestEdge(exterior, p, false, tolerance) !== null;
    case 'rectangle': {
      const box = boxOf(exterior);
      return p[0]! >= box.left && p[0]! <= box.right && p[1]! >= box.top && p[1]! <= box.bottom;
    }
    case 'polygon':
      return insideRing(exterior, p) && !interior.some((hole) => insideRing(hole, p));
    default:
      return false;
  }
}
