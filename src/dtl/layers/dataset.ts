// dataset: the output dataset of every item: a name, or (`rule: save_original`) the dataset the
// image came from, without its project's title.
import type { ProcessingLayer } from './layer.ts';

export const dataset: ProcessingLayer<{ name: string } | { rule: 'save_original' }, { name: string } | { rule: 'save_original' }> = {
  plan: (settings, input) => ({ output: input, prepared: settings }),
  run: (item, settings) => [{ ...item, dataset: 'name' in settings ? settings.name : item.source.dataset }],
};
