// tag: an image tag added to every image (its value replaced where the image has it) or deleted.
import type { TagValue, TagValueType } from '../../formats/canonical.ts';
import { withAnnotation } from '../item.ts';
import type { ProcessingLayer } from './layer.ts';

type Settings = { tag: string | { name: string; value: TagValue }; action: 'add' | 'delete' };

const valueTypeOf = (value: TagValue): TagValueType => (value === null ? 'none' : typeof value === 'number' ? 'any_number' : 'any_string');

export const tag: ProcessingLayer<Settings, { name: string; value: TagValue; add: boolean }> = {
  plan(settings, input) {
    const { name, value } = typeof settings.tag === 'string' ? { name: settings.tag, value: null } : settings.tag;
    const add = settings.action === 'add';
    const others = input.tags.filter((t) => !(t.title === name && t.scope === 'images'));
    const there = input.tags.find((t) => t.title === name && t.scope === 'images');
    const tags = add ? [...others, there && there.valueType !== 'none' && value !== null ? there : { title: name, scope: 'images' as const, valueType: valueTypeOf(value) }] : others;
    return { output: { classes: input.classes, tags }, prepared: { name, value, add } };
  },
  run(item, { name, value, add }) {
    const kept = item.annotation.tags.filter((t) => t.name !== name);
    return [withAnnotation(item, { ...item.annotation, tags: add ? [...kept, { name, value }] : kept })];
  },
};
