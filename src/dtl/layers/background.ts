// background: a rectangle of the whole image in the given class, first among the objects (so every
// other object lies on top of it when drawn).
import { ClassListBuilder, ClassError } from '../classes.ts';
import { withAnnotation } from '../item.ts';
import type { ProcessingLayer } from './layer.ts';

export const background: ProcessingLayer<{ class: string }, string> = {
  plan(settings, input) {
    const out = new ClassListBuilder('/class');
    for (const c of input.classes) out.clone(c, c.title);
    if (input.classes.some((c) => c.title === settings.class && c.shape !== 'rectangle')) throw new ClassError(`class "${settings.class}" is not a rectangle class`, '/class');
    out.create(settings.class, 'rectangle');
    return { output: { classes: out.list(), tags: input.tags }, prepared: settings.class };
  },
  run(item, title) {
    const { width, height } = item.annotation.size;
    // A Supervisely rectangle includes its last column and row: the whole image ends at W-1, H-1.
    const object = { classTitle: title, description: '', tags: [], bitmap: null, points: { exterior: [[0, 0], [width - 1, height - 1]] as [number, number][], interior: [] } };
    return [withAnnotation(item, { ...item.annotation, objects: [object, ...item.annotation.objects] })];
  },
};
