// rename: classes take new titles (`__ignore__` drops their objects; classes not named stay as they are).
import { ClassListBuilder, type Mapping, mapTitle, requireMappedClasses } from '../classes.ts';
import { withAnnotation } from '../item.ts';
import type { ProcessingLayer } from './layer.ts';

export const rename: ProcessingLayer<{ classes_mapping: Mapping }, Mapping> = {
  plan(settings, input) {
    requireMappedClasses(input, settings.classes_mapping, '/classes_mapping');
    const out = new ClassListBuilder('/classes_mapping');
    for (const c of input.classes) {
      const title = mapTitle(settings.classes_mapping, c.title);
      if (title !== null) out.clone(c, title ?? c.title);
    }
    return { output: { classes: out.list(), tags: input.tags }, prepared: settings.classes_mapping };
  },
  run(item, mapping) {
    const objects = [];
    for (const o of item.annotation.objects) {
      const title = mapTitle(mapping, o.classTitle);
      if (title === null) continue;
      objects.push(title === undefined || title === o.classTitle ? o : { ...o, classTitle: title });
    }
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
