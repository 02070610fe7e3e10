// poly2bitmap: vector objects of the named classes become bitmaps of the pixels they cover (pixel
// centres inside, as raster.ts draws), each object on its own. An object with no pixel in the image
// is dropped.
import type { CanonicalObject, ClassShape } from '../../formats/canonical.ts';
import { type ClassSet, type Mapping, reshapedClasses } from '../classes.ts';
import { NO_POINTS, objectMask, rasterBitmap, reshaped } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import { type ProcessingLayer, shapesOf } from './layer.ts';

export interface Prepared {
  targets: Map<string, string>;
  shapes: Map<string, ClassShape>;
}

const vector = (s: ClassShape) => s !== 'bitmap';

/** The plan of poly2bitmap and rasterize: vector classes the mapping names become bitmap classes. */
export function plan(settings: { classes_mapping: Mapping }, input: ClassSet) {
  const { set, targets } = reshapedClasses(input, settings.classes_mapping, vector, () => 'bitmap');
  return { output: set, prepared: { targets, shapes: shapesOf(input) } };
}

export const poly2bitmap: ProcessingLayer<{ classes_mapping: Mapping }, Prepared> = {
  plan,
  async run(item, { targets, shapes }) {
    const { width, height } = item.annotation.size;
    const objects: CanonicalObject[] = [];
    for (const o of item.annotation.objects) {
      const title = targets.get(o.classTitle);
      if (title === undefined) {
        objects.push(o);
        continue;
      }
      const bitmap = rasterBitmap(await objectMask(o, shapes.get(o.classTitle)!, width, height));
      if (bitmap) objects.push(reshaped(o, title, { bitmap, points: NO_POINTS }));
    }
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
