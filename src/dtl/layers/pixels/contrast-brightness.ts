// contrast_brightness: multiplies each colour value by a contrast drawn from its range (about grey 128
// with center_grey), then adds a brightness drawn from its range, as the 2018 DTL did. One draw of
// each per image. The annotation does not change.
import { Type } from 'typebox';
import { type LayerFunction, withPixels } from '../../item.ts';
import { mapColours } from './colour.ts';
import { uniform } from './raw.ts';
import { layerSettings } from './schema.ts';

const Contrast = Type.Number({ minimum: 0, maximum: 10 });
const Brightness = Type.Number({ minimum: -255, maximum: 255 });

export const contrastBrightnessSettings = layerSettings({
    contrast: Type.Object({ min: Contrast, max: Contrast, center_grey: Type.Optional(Type.Boolean({ default: false })) }, { additionalProperties: false }),
    brightness: Type.Object({ min: Brightness, max: Brightness }, { additionalProperties: false }),
});

export interface ContrastBrightnessSettings {
  contrast: { min: number; max: number; center_grey?: boolean };
  brightness: { min: number; max: number };
}

export const contrastBrightness: LayerFunction<ContrastBrightnessSettings> = async (item, { contrast, brightness }, context) => {
  const random = () => context.random();
  const factor = uniform(random, contrast.min, contrast.max, 'contrast_brightness: contrast');
  const shift = uniform(random, brightness.min, brightness.max, 'contrast_brightness: brightness');
  const centre = contrast.center_grey ? 128 : 0;
  const change = (v: number) => (v - centre) * factor + centre + shift;
  const changed = mapColours(await item.image.raw(), (r, g, b, out) => {
    out[0] = change(r);
    out[1] = change(g);
    out[2] = change(b);
  });
  return [withPixels(item, changed, item.annotation)];
};
