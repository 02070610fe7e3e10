// generate_hints: points for training interactive segmentation, as the 2018 layer made them: the
// objects of `class` drawn together make a mask, and each image gets positive points on it and
// negative points off it, in two point classes of their own. Each kind numbers
// `min_points_number` plus a draw from an exponential distribution of mean 2, rounded down (no more
// than there are pixels of the kind); the points are distinct pixels drawn at random (seeded, as
// every random layer) and go after the image's objects, positives first.
import type { CanonicalObject, ClassShape } from '../../formats/canonical.ts';
import { newRaster, paintObject } from '../../formats/raster.ts';
import { ClassListBuilder, requireClass } from '../classes.ts';
import { withAnnotation } from '../item.ts';
import { type ProcessingLayer, shapesOf } from './layer.ts';

interface Settings {
  class: string;
  positive_class: string;
  negative_class: string;
  min_points_number: number;
}

interface Prepared extends Settings {
  shapes: Map<string, ClassShape>;
}

/** `count` distinct pixels among `total` for which `wanted` holds (there are at least `count`). */
function distinctPixels(count: number, total: number, wanted: (p: number) => boolean, random: () => number): number[] {
  const chosen = new Set<number>();
  // Drawing at random and throwing back what does not fit is quick unless the kind is rare; then
  // the pixels of the kind are listed and drawn from.
  for (let attempt = 0; chosen.size < count && attempt < 64 * count; attempt++) {
    const p = Math.floor(random() * total);
    if (wanted(p)) chosen.add(p);
  }
  if (chosen.size < count) {
    const rest: number[] = [];
    for (let p = 0; p < total; p++) if (wanted(p) && !chosen.has(p)) rest.push(p);
    for (let i = 0; chosen.size < count; i++) {
      const j = i + Math.floor(random() * (rest.length - i));
      [rest[i], rest[j]] = [rest[j]!, rest[i]!];
      chosen.add(rest[i]!);
    }
  }
  return [...chosen];
}

export const generateHints: ProcessingLayer<Settings, Prepared> = {
  plan(settings, input) {
    requireClass(input, settings.class, '/class');
    const out = new ClassListBuilder('/positive_class');
    for (const c of input.classes) out.clone(c, c.title);
    out.create(settings.positive_class, 'point');
    const negative = new ClassListBuilder('/negative_class');
    for (const c of out.list()) negative.clone(c, c.title);
    negative.create(settings.negative_class, 'point');
    return { output: { classes: negative.list(), tags: input.tags }, prepared: { ...settings, shapes: shapesOf(input) } };
  },
  async run(item, p, context) {
    const { width, height } = item.annotation.size;
    const mask = newRaster(width, height);
    for (const o of item.annotation.objects) if (o.classTitle === p.class) await paintObject(mask, p.shapes.get(o.classTitle)!, o, 1);
    let area = 0;
    for (const v of mask.pixels) area += v;
    const draw = () => p.min_points_number + Math.floor(-2 * Math.log(1 - context.random()));
    const positives = Math.min(draw(), area);
    const negatives = Math.min(draw(), width * height - area);
    const point = (classTitle: string, pixel: number): CanonicalObject => ({
      classTitle,
      description: '',
      tags: [],
      bitmap: null,
      points: { exterior: [[pixel % width, Math.floor(pixel / width)]], interior: [] },
    });
    const hints = [
      ...distinctPixels(positives, mask.pixels.length, (q) => mask.pixels[q] === 1, context.random).map((q) => point(p.positive_class, q)),
      ...distinctPixels(negatives, mask.pixels.length, (q) => mask.pixels[q] === 0, context.random).map((q) => point(p.negative_class, q)),
    ];
    return [withAnnotation(item, { ...item.annotation, objects: [...item.annotation.objects, ...hints] })];
  },
};
