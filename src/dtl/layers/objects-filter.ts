// objects_filter: objects of the filtering classes whose size is less (or greater) than a bound are
// deleted, or are the only ones of those classes kept. The size is the object's area (area_size), or
// its box's width or height; with several bounds, one passed is enough.
import type { CanonicalObject, ClassShape } from '../../formats/canonical.ts';
import { requireClasses } from '../classes.ts';
import { objectArea, objectBox } from '../geometry.ts';
import { withAnnotation } from '../item.ts';
import { type ProcessingLayer, shapesOf } from './layer.ts';

interface Sizes {
  filtering_classes: string[];
  action: 'delete' | 'keep';
  comparator: 'less' | 'greater';
  area_size?: number | undefined;
  width?: number | undefined;
  height?: number | undefined;
}

interface Prepared extends Sizes {
  classes: Set<string>;
  shapes: Map<string, ClassShape>;
}

async function matches(o: CanonicalObject, p: Prepared): Promise<boolean> {
  const beyond = (value: number, bound: number | undefined) => bound !== undefined && (p.comparator === 'less' ? value < bound : value > bound);
  const box = objectBox(o);
  if (box && (beyond(box.right - box.left, p.width) || beyond(box.bottom - box.top, p.height))) return true;
  return p.area_size !== undefined && beyond(await objectArea(o, p.shapes.get(o.classTitle)!), p.area_size);
}

export const objectsFilter: ProcessingLayer<{ filter_by: { polygon_sizes: Sizes } }, Prepared> = {
  plan(settings, input) {
    const sizes = settings.filter_by.polygon_sizes;
    requireClasses(input, sizes.filtering_classes, '/filter_by/polygon_sizes/filtering_classes');
    return { output: input, prepared: { ...sizes, classes: new Set(sizes.filtering_classes), shapes: shapesOf(input) } };
  },
  async run(item, prepared) {
    const objects: CanonicalObject[] = [];
    for (const o of item.annotation.objects) {
      if (!prepared.classes.has(o.classTitle) || (await matches(o, prepared)) === (prepared.action === 'keep')) objects.push(o);
    }
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
