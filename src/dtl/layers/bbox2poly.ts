// bbox2poly: rectangles of the named classes become 4-point polygons (clockwise from the top-left).
import { type Mapping, reshapedClasses } from '../classes.ts';
import { objectBox, reshaped } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import type { ProcessingLayer } from './layer.ts';

export const bbox2poly: ProcessingLayer<{ classes_mapping: Mapping }, Map<string, string>> = {
  plan(settings, input) {
    const { set, targets } = reshapedClasses(input, settings.classes_mapping, (s) => s === 'rectangle', () => 'polygon');
    return { output: set, prepared: targets };
  },
  run(item, targets) {
    const objects = [];
    for (const o of item.annotation.objects) {
      const title = targets.get(o.classTitle);
      const box = title === undefined ? null : objectBox(o);
      if (title === undefined || !box) {
        if (title === undefined) objects.push(o);
        continue;
      }
      const { left: l, top: t, right: r, bottom: b } = box;
      objects.push(reshaped(o, title, { bitmap: null, points: { exterior: [[l, t], [r, t], [r, b], [l, b]], interior: [] } }));
    }
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
