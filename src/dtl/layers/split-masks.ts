// split_masks: a bitmap of a named class becomes one bitmap a 4-connected piece of its mask.
import type { CanonicalObject } from '../../formats/canonical.ts';
import { requireClasses } from '../classes.ts';
import { bitmapMask, maskPieces, placedBitmap, reshaped } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import { type ProcessingLayer, shapesOf } from './layer.ts';

export const splitMasks: ProcessingLayer<{ classes: string[] }, Set<string>> = {
  plan(settings, input) {
    requireClasses(input, settings.classes, '/classes');
    const shapes = shapesOf(input);
    return { output: input, prepared: new Set(settings.classes.filter((t) => shapes.get(t) === 'bitmap')) };
  },
  async run(item, classes) {
    const objects: CanonicalObject[] = [];
    for (const o of item.annotation.objects) {
      if (!classes.has(o.classTitle) || !o.bitmap) {
        objects.push(o);
        continue;
      }
      for (const piece of maskPieces(await bitmapMask(o.bitmap))) {
        const bitmap = placedBitmap(piece, o.bitmap.origin);
        if (bitmap) objects.push(reshaped(o, o.classTitle, { bitmap, points: o.points }));
      }
    }
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
