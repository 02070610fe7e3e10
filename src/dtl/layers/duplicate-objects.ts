// duplicate_objects: each object of a named class gets a copy in the class the mapping gives (a
// clone of the source class: its shape and colour), after the objects of the image.
import { ClassListBuilder, type Mapping, mapTitle, requireMappedClasses } from '../classes.ts';
import { withAnnotation } from '../item.ts';
import type { ProcessingLayer } from './layer.ts';

export const duplicateObjects: ProcessingLayer<{ classes_mapping: Mapping }, Mapping> = {
  plan(settings, input) {
    requireMappedClasses(input, settings.classes_mapping, '/classes_mapping');
    const out = new ClassListBuilder('/classes_mapping');
    for (const c of input.classes) out.clone(c, c.title);
    for (const c of input.classes) {
      const title = mapTitle(settings.classes_mapping, c.title);
      if (title !== null && title !== undefined) out.clone(c, title);
    }
    return { output: { classes: out.list(), tags: input.tags }, prepared: settings.classes_mapping };
  },
  run(item, mapping) {
    const copies = [];
    for (const o of item.annotation.objects) {
      const title = mapTitle(mapping, o.classTitle);
      if (title !== null && title !== undefined) copies.push({ ...structuredClone(o), classTitle: title });
    }
    return [withAnnotation(item, { ...item.annotation, objects: [...item.annotation.objects, ...copies] })];
  },
};
