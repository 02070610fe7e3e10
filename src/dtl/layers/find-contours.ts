// find_contours: bitmaps of the named classes become polygons, one a 4-connected piece of the mask,
// traced along the pixel edges (holes filled: a piece's outer contour only).
import type { CanonicalObject, Point } from '../../formats/canonical.ts';
import { outerContours } from '../../formats/contours.ts';
import { type Mapping, reshapedClasses } from '../classes.ts';
import { bitmapMask, reshaped } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import type { ProcessingLayer } from './layer.ts';

export const findContours: ProcessingLayer<{ classes_mapping: Mapping }, Map<string, string>> = {
  plan(settings, input) {
    const { set, targets } = reshapedClasses(input, settings.classes_mapping, (s) => s === 'bitmap', () => 'polygon');
    return { output: set, prepared: targets };
  },
  async run(item, targets) {
    const objects: CanonicalObject[] = [];
    for (const o of item.annotation.objects) {
      const title = targets.get(o.classTitle);
      if (title === undefined || !o.bitmap) {
        if (title === undefined) objects.push(o);
        continue;
      }
      const [ox, oy] = o.bitmap.origin;
      for (const contour of outerContours(await bitmapMask(o.bitmap))) {
        const exterior = contour.map(([x, y]): Point => [x + ox, y + oy]);
        objects.push(reshaped(o, title, { bitmap: null, points: { exterior, interior: [] } }));
      }
    }
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
