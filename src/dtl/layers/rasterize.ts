// rasterize: as poly2bitmap, but each pixel belongs to one object only, the one drawn last (later
// objects lie on top), so the bitmaps do not overlap. An object left with no pixel is dropped.
import type { CanonicalObject } from '../../formats/canonical.ts';
import type { Mapping } from '../classes.ts';
import { NO_POINTS, objectMask, rasterBitmap, reshaped } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import type { ProcessingLayer } from './layer.ts';
import { type Prepared, plan } from './poly2bitmap.ts';

export const rasterize: ProcessingLayer<{ classes_mapping: Mapping }, Prepared> = {
  plan,
  async run(item, { targets, shapes }) {
    const { width, height } = item.annotation.size;
    const objects = item.annotation.objects;
    const masks = await Promise.all(objects.map((o) => (targets.has(o.classTitle) ? objectMask(o, shapes.get(o.classTitle)!, width, height) : null)));
    // From the top down: a pixel already taken by a later object is cleared from the earlier ones.
    const taken = new Uint8Array(width * height);
    for (let i = masks.length - 1; i >= 0; i--) {
      const mask = masks[i];
      if (!mask) continue;
      for (let p = 0; p < taken.length; p++) {
        if (!mask.pixels[p]) continue;
        if (taken[p]) mask.pixels[p] = 0;
        else taken[p] = 1;
      }
    }
    const out: CanonicalObject[] = [];
    objects.forEach((o, i) => {
      const mask = masks[i];
      if (!mask) return void out.push(o);
      const bitmap = rasterBitmap(mask);
      if (bitmap) out.push(reshaped(o, targets.get(o.classTitle)!, { bitmap, points: NO_POINTS }));
    });
    return [withAnnotation(item, { ...item.annotation, objects: out })];
  },
};
