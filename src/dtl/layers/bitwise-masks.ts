// bitwise_masks: each bitmap of `classes_to_correct` becomes its pixelwise `and`, `or` or `nor` with
// the image's first bitmap of `class_mask`, which stays as it is (`nor` is the 2018 name of
// exclusive or: the pixels set in one of the two only). An image without a `class_mask` bitmap is
// left as it is; a bitmap left with no pixel is dropped.
import type { CanonicalObject } from '../../formats/canonical.ts';
import { requireClass, requireClasses } from '../classes.ts';
import { bitmapRaster, rasterBitmap, reshaped } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import { type ProcessingLayer, shapesOf } from './layer.ts';

type Operation = 'and' | 'or' | 'nor';
interface Settings {
  type: Operation;
  class_mask: string;
  classes_to_correct: string[];
}

const OPERATIONS: Record<Operation, (a: number, b: number) => number> = { and: (a, b) => a & b, or: (a, b) => a | b, nor: (a, b) => a ^ b };

export const bitwiseMasks: ProcessingLayer<Settings, { mask: string; corrected: Set<string>; op: (a: number, b: number) => number } | null> = {
  plan(settings, input) {
    requireClass(input, settings.class_mask, '/class_mask');
    requireClasses(input, settings.classes_to_correct, '/classes_to_correct');
    const shapes = shapesOf(input);
    if (shapes.get(settings.class_mask) !== 'bitmap') return { output: input, prepared: null };
    const corrected = new Set(settings.classes_to_correct.filter((t) => t !== settings.class_mask && shapes.get(t) === 'bitmap'));
    return { output: input, prepared: { mask: settings.class_mask, corrected, op: OPERATIONS[settings.type] } };
  },
  async run(item, prepared) {
    if (!prepared) return [item];
    const { mask: maskClass, corrected, op } = prepared;
    const maskObject = item.annotation.objects.find((o) => o.classTitle === maskClass && o.bitmap);
    if (!maskObject) return [item];
    const { width, height } = item.annotation.size;
    const mask = await bitmapRaster(maskObject.bitmap!, width, height);
    const objects: CanonicalObject[] = [];
    for (const o of item.annotation.objects) {
      if (!corrected.has(o.classTitle) || !o.bitmap) {
        objects.push(o);
        continue;
      }
      const own = await bitmapRaster(o.bitmap, width, height);
      for (let p = 0; p < own.pixels.length; p++) own.pixels[p] = op(mask.pixels[p]!, own.pixels[p]!);
      const bitmap = rasterBitmap(own);
      if (bitmap) objects.push(reshaped(o, o.classTitle, { bitmap, points: o.points }));
    }
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
