// color_class: the named classes take the colours given (`#RRGGBB`); objects pass unchanged. Classes
// a graph makes get colours of their own; this is how a graph chooses them before it saves.
import { ClassListBuilder, requireMappedClasses } from '../classes.ts';
import type { ProcessingLayer } from './layer.ts';

export const colorClass: ProcessingLayer<{ classes_color_mapping: Record<string, string> }, null> = {
  plan(settings, input) {
    const colors = settings.classes_color_mapping;
    requireMappedClasses(input, colors, '/classes_color_mapping');
    const out = new ClassListBuilder('/classes_color_mapping');
    for (const c of input.classes) out.clone(Object.hasOwn(colors, c.title) ? { ...c, color: colors[c.title]!.toUpperCase() } : c, c.title);
    return { output: { classes: out.list(), tags: input.tags }, prepared: null };
  },
  run: (item) => [item],
};
