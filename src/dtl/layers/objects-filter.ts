// objects_filter: objects of the filtering classes whose size is less (or greater) than a bound are
// deleted, or are the only ones of those classes kept. The size is the object's area (area_size in
// pixels, or 2018's {percent} of the image's area), or its box's width or height (width, height, or
// 2018's area_size {width, height}); with several bounds, one passed is enough.
import type { CanonicalObject, ClassShape } from '../../formats/canonical.ts';
import { objectArea, objectBox } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import { type ProcessingLayer, shapesOf } from './layer.ts';

interface Sizes {
  filtering_classes: string[];
  action: 'delete' | 'keep';
  comparator: 'less' | 'greater';
  area_size?: number | { percent: number } | { width: number; height: number } | undefined;
  width?: number | undefined;
  height?: number | undefined;
}

interface Prepared extends Sizes {
  classes: Set<string>;
  shapes: Map<string, ClassShape>;
}

async function matches(o: CanonicalObject, p: Prepared, imageArea: number): Promise<boolean> {
  const beyond = (value: number, bound: number | undefined) => bound !== undefined && (p.comparator === 'less' ? value < bound : value > bound);
  const sides = typeof p.area_size === 'object' && 'width' in p.area_size ? p.area_size : p;
  // The box's sides as the 2018 engine measured them: a bitmap's mask size, a vector object's extent.
  const box = objectBox(o);
  if (box && (beyond(box.right - box.left, sides.width) || beyond(box.bottom - box.top, sides.height))) return true;
  if (typeof p.area_size === 'number') return beyond(await objectArea(o, p.shapes.get(o.classTitle)!), p.area_size);
  if (typeof p.area_size === 'object' && 'percent' in p.area_size) {
    return imageArea > 0 && beyond((100 * (await objectArea(o, p.shapes.get(o.classTitle)!))) / imageArea, p.area_size.percent);
  }
  return false;
}

export const objectsFilter: ProcessingLayer<{ filter_by: { polygon_sizes: Sizes } }, Prepared> = {
  plan(settings, input) {
    const sizes = settings.filter_by.polygon_sizes;
    // A filtering class not at the input filters nothing, as in 2018: published graphs name classes
    // their data layer's mapping has already merged away (the smart tool's `obj_Car`).
    return { output: input, prepared: { ...sizes, classes: new Set(sizes.filtering_classes), shapes: shapesOf(input) } };
  },
  async run(item, prepared) {
    const objects: CanonicalObject[] = [];
    const imageArea = item.annotation.size.width * item.annotation.size.height;
    for (const o of item.annotation.objects) {
      if (!prepared.classes.has(o.classTitle) || (await matches(o, prepared, imageArea)) === (prepared.action === 'keep')) objects.push(o);
    }
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
