// drop_noise: pieces of bitmaps of the named classes smaller than `min_area` are cleared: an area in
// pixels (`40px`) or in percent (`0.5%`) of the image (`src_type: image`) or of the object's own box
// (`src_type: bbox`). An object with nothing left is dropped.
import type { CanonicalObject } from '../../formats/canonical.ts';
import { requireClasses } from '../classes.ts';
import { bitmapMask, maskPieces, placedBitmap, reshaped, setPixels } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import { type ProcessingLayer, shapesOf } from './layer.ts';

interface Prepared {
  classes: Set<string>;
  amount: number;
  percent: boolean;
  ofBox: boolean;
}

export const dropNoise: ProcessingLayer<{ classes: string[]; min_area: string; src_type: 'image' | 'bbox' }, Prepared> = {
  plan(settings, input) {
    requireClasses(input, settings.classes, '/classes');
    const shapes = shapesOf(input);
    const percent = settings.min_area.endsWith('%');
    return {
      output: input,
      prepared: { classes: new Set(settings.classes.filter((t) => shapes.get(t) === 'bitmap')), amount: parseFloat(settings.min_area), percent, ofBox: settings.src_type === 'bbox' },
    };
  },
  async run(item, { classes, amount, percent, ofBox }) {
    const objects: CanonicalObject[] = [];
    const { width, height } = item.annotation.size;
    for (const o of item.annotation.objects) {
      if (!classes.has(o.classTitle) || !o.bitmap) {
        objects.push(o);
        continue;
      }
      const whole = ofBox ? o.bitmap.width * o.bitmap.height : width * height;
      const least = percent ? (amount / 100) * whole : amount;
      const mask = await bitmapMask(o.bitmap);
      let changed = false;
      for (const piece of maskPieces(mask)) {
        if (setPixels(piece) >= least) continue;
        changed = true;
        for (let p = 0; p < piece.pixels.length; p++) if (piece.pixels[p]) mask.pixels[p] = 0;
      }
      if (!changed) {
        objects.push(o);
        continue;
      }
      const bitmap = placedBitmap(mask, o.bitmap.origin);
      if (bitmap) objects.push(reshaped(o, o.classTitle, { bitmap, points: o.points }));
    }
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
