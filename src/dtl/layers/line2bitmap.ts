// line2bitmap: objects of the mapped classes become bitmaps of their outlines, `width` pixels wide
// (stroke.ts): lines along their points, polygons and rectangles round their edges, bitmaps round
// their boundary. The 2018 DTL used it to turn contours into bands of a class (a "neutral" zone
// along road edges). An object with no pixel in the image is dropped.
import type { CanonicalObject, ClassShape } from '../../formats/canonical.ts';
import { newRaster } from '../../formats/raster.ts';
import { type Mapping, reshapedClasses } from '../classes.ts';
import { NO_POINTS, rasterBitmap, reshaped } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import { strokeObject } from '../stroke.ts';
import { type ProcessingLayer, shapesOf } from './layer.ts';

interface Prepared {
  targets: Map<string, string>;
  shapes: Map<string, ClassShape>;
  width: number;
}

export const line2bitmap: ProcessingLayer<{ classes_mapping: Mapping; width: number }, Prepared> = {
  plan(settings, input) {
    const { set, targets } = reshapedClasses(input, settings.classes_mapping, () => true, () => 'bitmap');
    return { output: set, prepared: { targets, shapes: shapesOf(input), width: settings.width } };
  },
  async run(item, { targets, shapes, width }) {
    const { width: w, height: h } = item.annotation.size;
    const objects: CanonicalObject[] = [];
    for (const o of item.annotation.objects) {
      const title = targets.get(o.classTitle);
      if (title === undefined) {
        objects.push(o);
        continue;
      }
      const mask = newRaster(w, h);
      await strokeObject(mask, shapes.get(o.classTitle)!, o, width);
      const bitmap = rasterBitmap(mask);
      if (bitmap) objects.push(reshaped(o, title, { bitmap, points: NO_POINTS }));
    }
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
