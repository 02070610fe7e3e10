// flip: mirrors the image and its annotation. As in the 2018 DTL, `horizontal` flips about the
// horizontal axis (rows reversed: y becomes H - y) and `vertical` about the vertical one (x becomes
// W - x).
import { Type } from 'typebox';
import { type Affine, transformAnnotation } from '../../transform.ts';
import { type LayerFunction, withPixels } from '../../item.ts';
import { fromRaw, toRaw } from './raw.ts';
import { layerSettings } from './schema.ts';

export const flipSettings = layerSettings({ axis: Type.Union([Type.Literal('horizontal'), Type.Literal('vertical')]) });

export interface FlipSettings {
  axis: 'horizontal' | 'vertical';
}

export const flip: LayerFunction<FlipSettings> = async (item, { axis }) => {
  const raw = await item.image.raw();
  const pipeline = await fromRaw(raw);
  const flipped = await toRaw(axis === 'horizontal' ? pipeline.flip() : pipeline.flop());
  const m: Affine = axis === 'horizontal' ? [1, 0, 0, 0, -1, raw.height] : [-1, 0, raw.width, 0, 1, 0];
  return [withPixels(item, flipped, await transformAnnotation(item.annotation, m, flipped))];
};
