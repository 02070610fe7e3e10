// blur: a median filter of a fixed odd kernel, or a gaussian one whose sigma is drawn from a range
// (the 2018 DTL's cv2.medianBlur and cv2.GaussianBlur). The annotation does not change.
import { Type } from 'typebox';
import { type LayerFunction, withPixels } from '../../item.ts';
import { fromRaw, toRaw, uniform } from './raw.ts';
import { layerSettings } from './schema.ts';

/** sharp's smallest sigma; a smaller one leaves the image as it is. */
const MIN_SIGMA = 0.3;
/**
 * Where the kernel is cut, as a fraction of its peak. libvips cuts at 0.2 by default, which turns a
 * sigma below about 0.6 into no blur at all; cv2's kernel reaches about 3 sigma, a cut near 0.01.
 */
const MIN_AMPLITUDE = 0.01;
const Sigma = Type.Number({ minimum: 0, maximum: 1000 });

export const blurSettings = Type.Union([
  layerSettings({ name: Type.Literal('median'), kernel: Type.Integer({ minimum: 3, maximum: 101 }) }),
  layerSettings({ name: Type.Literal('gaussian'), sigma: Type.Object({ min: Sigma, max: Sigma }, { additionalProperties: false }) }),
]);

export type BlurSettings = { name: 'median'; kernel: number } | { name: 'gaussian'; sigma: { min: number; max: number } };

export const blur: LayerFunction<BlurSettings> = async (item, settings, context) => {
  const raw = await item.image.raw();
  const pipeline = await fromRaw(raw);
  if (settings.name === 'median') {
    if (settings.kernel % 2 === 0) throw new Error('blur: the median kernel must be odd');
    return [withPixels(item, await toRaw(pipeline.median(settings.kernel)), item.annotation)];
  }
  const sigma = uniform(() => context.random(), settings.sigma.min, settings.sigma.max, 'blur: sigma');
  const blurred = sigma < MIN_SIGMA ? raw : await toRaw(pipeline.blur({ sigma, minAmplitude: MIN_AMPLITUDE }));
  return [withPixels(item, blurred, item.annotation)];
};
