// noise: adds gaussian noise of the given mean and standard deviation to every colour value, as the
// 2018 DTL did. The annotation does not change.
import { Type } from 'typebox';
import { type LayerFunction, withPixels } from '../../item.ts';
import { gaussian, mapColours } from './colour.ts';

export const noiseSettings = Type.Object(
  { mean: Type.Number({ minimum: -255, maximum: 255 }), std: Type.Number({ minimum: 0, maximum: 1000 }) },
  { additionalProperties: false },
);

export interface NoiseSettings {
  mean: number;
  std: number;
}

export const noise: LayerFunction<NoiseSettings> = async (item, { mean, std }, context) => {
  const random = () => context.random();
  const noisy = mapColours(await item.image.raw(), ([r, g, b]) => [
    r + mean + std * gaussian(random),
    g + mean + std * gaussian(random),
    b + mean + std * gaussian(random),
  ]);
  return [withPixels(item, noisy, item.annotation)];
};
