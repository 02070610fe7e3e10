// random_color: mixes the colour channels by a random matrix near the identity, A = I + N·strength/5
// with N standard normal (the 2018 DTL's formula); each pixel, as a row, is multiplied by A. One matrix
// per image. The annotation does not change.
import { Type } from 'typebox';
import { type LayerFunction, withPixels } from '../../item.ts';
import { gaussians, mapColours } from './colour.ts';
import { layerSettings } from './schema.ts';

export const randomColorSettings = layerSettings({ strength: Type.Number({ minimum: 0, maximum: 1 }) });

export interface RandomColorSettings {
  strength: number;
}

export const randomColor: LayerFunction<RandomColorSettings> = async (item, { strength }, context) => {
  const normal = gaussians(() => context.random());
  const a = Array.from({ length: 9 }, (_, k) => (k % 4 === 0 ? 1 : 0) + (normal() * strength) / 5);
  const mixed = mapColours(await item.image.raw(), (r, g, b, out) => {
    out[0] = r * a[0]! + g * a[3]! + b * a[6]!;
    out[1] = r * a[1]! + g * a[4]! + b * a[7]!;
    out[2] = r * a[2]! + g * a[5]! + b * a[8]!;
  });
  return [withPixels(item, mixed, item.annotation)];
};
