// skeletonize: bitmaps of the named classes thinned to lines one pixel wide, by one of three methods
// (skeleton.ts). Each bitmap stays one bitmap of its class; one left with no pixel is dropped.
// Named classes of other shapes pass unchanged.
import type { CanonicalObject } from '../../formats/canonical.ts';
import { requireClasses } from '../classes.ts';
import { bitmapMask, placedBitmap, reshaped } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import { type SkeletonMethod, skeleton } from '../skeleton.ts';
import { type ProcessingLayer, shapesOf } from './layer.ts';

export const skeletonize: ProcessingLayer<{ classes: string[]; method: SkeletonMethod }, { classes: Set<string>; method: SkeletonMethod }> = {
  plan(settings, input) {
    requireClasses(input, settings.classes, '/classes');
    const shapes = shapesOf(input);
    return { output: input, prepared: { classes: new Set(settings.classes.filter((t) => shapes.get(t) === 'bitmap')), method: settings.method } };
  },
  async run(item, { classes, method }) {
    const objects: CanonicalObject[] = [];
    for (const o of item.annotation.objects) {
      if (!classes.has(o.classTitle) || !o.bitmap) {
        objects.push(o);
        continue;
      }
      const bitmap = placedBitmap(skeleton(await bitmapMask(o.bitmap), method), o.bitmap.origin);
      if (bitmap) objects.push(reshaped(o, o.classTitle, { bitmap, points: o.points }));
    }
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
