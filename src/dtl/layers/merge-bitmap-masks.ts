// merge_bitmap_masks: the bitmaps of `class` in an image become one bitmap, their union, after the
// image's other objects (as the 2018 layer placed it); it keeps the first one's description and tags.
import type { CanonicalObject } from '../../formats/canonical.ts';
import { requireClass } from '../classes.ts';
import { bitmapRaster, rasterBitmap, reshaped } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import { type ProcessingLayer, shapesOf } from './layer.ts';

export const mergeBitmapMasks: ProcessingLayer<{ class: string }, string | null> = {
  plan(settings, input) {
    requireClass(input, settings.class, '/class');
    return { output: input, prepared: shapesOf(input).get(settings.class) === 'bitmap' ? settings.class : null };
  },
  async run(item, title) {
    if (title === null) return [item];
    const merged = item.annotation.objects.filter((o) => o.classTitle === title && o.bitmap);
    if (merged.length === 0) return [item];
    const others = item.annotation.objects.filter((o) => !merged.includes(o));
    let union: CanonicalObject[] = merged;
    if (merged.length > 1) {
      const { width, height } = item.annotation.size;
      const mask = await bitmapRaster(merged[0]!.bitmap!, width, height);
      for (const o of merged.slice(1)) {
        const next = await bitmapRaster(o.bitmap!, width, height);
        for (let p = 0; p < mask.pixels.length; p++) mask.pixels[p]! |= next.pixels[p]!;
      }
      const bitmap = rasterBitmap(mask);
      union = bitmap ? [reshaped(merged[0]!, title, { bitmap, points: merged[0]!.points })] : [];
    }
    return [withAnnotation(item, { ...item.annotation, objects: [...others, ...union] })];
  },
};
