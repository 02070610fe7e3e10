// noise: adds gaussian noise of the given mean and standard deviation to every colour value, as the
// 2018 DTL did. The annotation does not change.
import { Type } from 'typebox';
import { type LayerFunction, withPixels } from '../../item.ts';
import { gaussians, mapColours } from './colour.ts';
import { layerSettings } from './schema.ts';

export const noiseSettings = layerSettings({ mean: Type.Number({ minimum: -255, maximum: 255 }), std: Type.Number({ minimum: 0, maximum: 1000 }) });

export interface NoiseSettings {
  mean: number;
  std: number;
}

export const noise: LayerFunction<NoiseSettings> = async (item, { mean, std }, context) => {
  const normal = gaussians(() => context.random());
  const noisy = mapColours(await item.image.raw(), (r, g, b, out) => {
    out[0] = r + mean + std * normal();
    out[1] = g + mean + std * normal();
    out[2] = b + mean + std * normal();
  });
  return [withPixels(item, noisy, item.annotation)];
};
