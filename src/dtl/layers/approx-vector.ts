// approx_vector: polygons and lines of the named classes simplified by Douglas-Peucker: points closer
// than `epsilon` pixels to the simplified outline are left out. A ring keeps at least three points.
import type { Point } from '../../formats/canonical.ts';
import { requireClasses } from '../classes.ts';
import { withAnnotation } from '../item.ts';
import { type ProcessingLayer, shapesOf } from './layer.ts';

/** Distance from p to the segment a–b. */
function segmentDistance(p: Point, a: Point, b: Point): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const length2 = dx * dx + dy * dy;
  const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

/** The open path simplified; its first and last points stay. */
export function douglasPeucker(points: readonly Point[], epsilon: number): Point[] {
  if (points.length < 3) return points.map((p) => [p[0], p[1]]);
  const keep = new Uint8Array(points.length);
  keep[0] = keep[points.length - 1] = 1;
  const stack: [number, number][] = [[0, points.length - 1]];
  while (stack.length) {
    const [from, to] = stack.pop()!;
    let far = -1;
    let farthest = epsilon;
    for (let i = from + 1; i < to; i++) {
      const d = segmentDistance(points[i]!, points[from]!, points[to]!);
      if (d > farthest) {
        farthest = d;
        far = i;
      }
    }
    if (far >= 0) {
      keep[far] = 1;
      stack.push([from, far], [far, to]);
    }
  }
  return points.filter((_, i) => keep[i]).map((p) => [p[0], p[1]]);
}

/** A closed ring simplified: cut at its first point and closed again; fewer than three points keep the ring. */
function simplifyRing(ring: readonly Point[], epsilon: number): Point[] {
  if (ring.length <= 3) return ring.map((p) => [p[0], p[1]]);
  const simplified = douglasPeucker([...ring, ring[0]!], epsilon).slice(0, -1);
  return simplified.length >= 3 ? simplified : ring.map((p) => [p[0], p[1]]);
}

export const approxVector: ProcessingLayer<{ classes: string[]; epsilon: number }, { kinds: Map<string, 'polygon' | 'line'>; epsilon: number }> = {
  plan(settings, input) {
    requireClasses(input, settings.classes, '/classes');
    const shapes = shapesOf(input);
    const kinds = new Map<string, 'polygon' | 'line'>();
    for (const title of settings.classes) {
      const shape = shapes.get(title);
      if (shape === 'polygon' || shape === 'line') kinds.set(title, shape);
    }
    return { output: input, prepared: { kinds, epsilon: settings.epsilon } };
  },
  run(item, { kinds, epsilon }) {
    const objects = item.annotation.objects.map((o) => {
      const kind = kinds.get(o.classTitle);
      if (!kind) return o;
      const { exterior, interior } = o.points;
      if (kind === 'line') return { ...o, points: { exterior: douglasPeucker(exterior, epsilon), interior: [] } };
      return { ...o, points: { exterior: simplifyRing(exterior, epsilon), interior: interior.map((r) => simplifyRing(r, epsilon)) } };
    });
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
