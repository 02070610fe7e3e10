// drop_obj_by_class: the objects of the named classes are removed, and their classes with them.
import { requireClasses } from '../classes.ts';
import { withAnnotation } from '../item.ts';
import type { ProcessingLayer } from './layer.ts';

export const dropObjByClass: ProcessingLayer<{ classes: string[] }, Set<string>> = {
  plan(settings, input) {
    requireClasses(input, settings.classes, '/classes');
    const dropped = new Set(settings.classes);
    return { output: { classes: input.classes.filter((c) => !dropped.has(c.title)), tags: input.tags }, prepared: dropped };
  },
  run(item, dropped) {
    return [withAnnotation(item, { ...item.annotation, objects: item.annotation.objects.filter((o) => !dropped.has(o.classTitle)) })];
  },
};
