// The DTL layers that change pixels, by action name, with the schema of their settings: the graph
// engine validates a layer's settings against `settings` and runs `run` on each item.
import type { TSchema } from 'typebox';
import type { LayerFunction } from '../../item.ts';
import { blur, blurSettings } from './blur.ts';
import { contrastBrightness, contrastBrightnessSettings } from './contrast-brightness.ts';
import { crop, cropSettings } from './crop.ts';
import { flip, flipSettings } from './flip.ts';
import { instancesCrop, instancesCropSettings } from './instances-crop.ts';
import { noise, noiseSettings } from './noise.ts';
import { randomColor, randomColorSettings } from './random-color.ts';
import { resize, resizeSettings } from './resize.ts';
import { rotate, rotateSettings } from './rotate.ts';
import { slidingWindow, slidingWindowSettings } from './sliding-window.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each layer takes its own settings type
export const pixelLayers: Record<string, { settings: TSchema; run: LayerFunction<any> }> = {
  resize: { settings: resizeSettings, run: resize },
  crop: { settings: cropSettings, run: crop },
  flip: { settings: flipSettings, run: flip },
  rotate: { settings: rotateSettings, run: rotate },
  instances_crop: { settings: instancesCropSettings, run: instancesCrop },
  sliding_window: { settings: slidingWindowSettings, run: slidingWindow },
  blur: { settings: blurSettings, run: blur },
  contrast_brightness: { settings: contrastBrightnessSettings, run: contrastBrightness },
  noise: { settings: noiseSettings, run: noise },
  random_color: { settings: randomColorSettings, run: randomColor },
};
