// dummy: items pass as they are (a junction where several streams meet, or a placeholder).
import { samePlan, type ProcessingLayer } from './layer.ts';

export const dummy: ProcessingLayer<Record<string, never>, Record<string, never>> = {
  plan: samePlan,
  run: (item) => [item],
};
