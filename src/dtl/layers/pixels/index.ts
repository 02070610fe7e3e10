// The layers that change pixels and geometry together (resize, crop, flip, rotate, instances_crop,
// sliding_window, blur, contrast_brightness, noise, random_color), by action. Each brings its settings
// schema and its function; the graph checks settings against config.ts as well, and passes classes
// through these layers unchanged.
import type { TSchema } from 'typebox';
import type { LayerFunction } from '../../item.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each layer has settings of its own
export const pixelLayers: Record<string, { settings: TSchema; run: LayerFunction<any> }> = {};
