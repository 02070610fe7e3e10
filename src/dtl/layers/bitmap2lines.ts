// bitmap2lines: thinned bitmaps of the mapped classes become lines (skeleton-paths.ts), each line
// the pixels it passes through, in image coordinates. Lines of fewer than `min_points_cnt` points are
// dropped; with `approx_epsilon`, each line is simplified by Douglas-Peucker as approx_vector does.
// The bitmap should be a skeleton already (the skeletonize layer): a thick mask gives a tangle.
import type { CanonicalObject, Point } from '../../formats/canonical.ts';
import { type Mapping, reshapedClasses } from '../classes.ts';
import { bitmapMask, reshaped } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import { skeletonPaths } from '../skeleton-paths.ts';
import { douglasPeucker } from './approx-vector.ts';
import type { ProcessingLayer } from './layer.ts';

interface Settings {
  classes_mapping: Mapping;
  min_points_cnt: number;
  approx_epsilon?: number;
}

interface Prepared {
  targets: Map<string, string>;
  minPoints: number;
  epsilon: number | undefined;
}

export const bitmap2lines: ProcessingLayer<Settings, Prepared> = {
  plan(settings, input) {
    const { set, targets } = reshapedClasses(input, settings.classes_mapping, (s) => s === 'bitmap', () => 'line');
    return { output: set, prepared: { targets, minPoints: settings.min_points_cnt, epsilon: settings.approx_epsilon } };
  },
  async run(item, { targets, minPoints, epsilon }) {
    const objects: CanonicalObject[] = [];
    for (const o of item.annotation.objects) {
      const title = targets.get(o.classTitle);
      if (title === undefined) {
        objects.push(o);
        continue;
      }
      if (!o.bitmap) continue;
      const [ox, oy] = o.bitmap.origin;
      for (const path of skeletonPaths(await bitmapMask(o.bitmap))) {
        if (path.length < minPoints) continue;
        const points = path.map(([x, y]): Point => [x + ox, y + oy]);
        const exterior = epsilon === undefined ? points : douglasPeucker(points, epsilon);
        objects.push(reshaped(o, title, { bitmap: null, points: { exterior, interior: [] } }));
      }
    }
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
