// multiply: every item becomes `multiply` items: itself and copies named `<stem>__<k><ext>` (k from
// 1), so that random layers after this one draw other numbers for each copy.
import type { DtlItem } from '../item.ts';
import { samePlan, type ProcessingLayer } from './layer.ts';

export function copyName(name: string, k: number): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}__${k}${name.slice(dot)}` : `${name}__${k}`;
}

export const multiply: ProcessingLayer<{ multiply: number }, { multiply: number }> = {
  plan: samePlan,
  run(item, { multiply: times }) {
    const items: DtlItem[] = [item];
    for (let k = 1; k < times; k++) items.push({ ...item, name: copyName(item.name, k), annotation: structuredClone(item.annotation) });
    return items;
  },
};
