// bbox: objects of the named classes become their bounding boxes, in rectangle classes (Supervisely
// rectangles, which include their last column and row).
import { type Mapping, reshapedClasses } from '../classes.ts';
import { boxPoints, rectangleOf, reshaped } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import type { ProcessingLayer } from './layer.ts';

export const bbox: ProcessingLayer<{ classes_mapping: Mapping }, Map<string, string>> = {
  plan(settings, input) {
    const { set, targets } = reshapedClasses(input, settings.classes_mapping, () => true, () => 'rectangle');
    return { output: set, prepared: targets };
  },
  run(item, targets) {
    const objects = [];
    for (const o of item.annotation.objects) {
      const title = targets.get(o.classTitle);
      if (title === undefined) {
        objects.push(o);
        continue;
      }
      const box = rectangleOf(o);
      if (box) objects.push(reshaped(o, title, { bitmap: null, points: { exterior: boxPoints(box), interior: [] } }));
    }
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
