// poly2bitmap and rasterize: vector objects of the named classes become bitmaps of the pixels they
// cover (pixel centres inside, as raster.ts draws). poly2bitmap draws each object on its own;
// rasterize gives each pixel to one object only, the one drawn last (later objects lie on top), so
// the bitmaps do not overlap. An object left with no pixel in the image is dropped.
import type { CanonicalObject } from '../../formats/canonical.ts';
import { type Mapping, reshapedClasses } from '../classes.ts';
import { NO_POINTS, objectMask, rasterBitmap, reshaped } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import { type ProcessingLayer, shapesOf } from './layer.ts';
import type { ClassShape } from '../../formats/canonical.ts';

interface Prepared {
  targets: Map<string, string>;
  shapes: Map<string, ClassShape>;
}

const vector = (s: ClassShape) => s !== 'bitmap';

function plan(settings: { classes_mapping: Mapping }, input: Parameters<ProcessingLayer['plan']>[1]) {
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
