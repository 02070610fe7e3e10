// resize: scales the image and its annotation to a given size. With aspect_ratio.keep, a side of -1
// follows the other in proportion; with both sides given, the image is scaled to fit inside them and
// centred on black, so the result has exactly the size asked for (the 2018 DTL's padding). A side of
// -1 without keep is refused, as the original refused it.
import { Type } from 'typebox';
import { compose, scaling, translation, transformAnnotation } from '../../transform.ts';
import { type LayerFunction, withPixels } from '../../item.ts';
import { BLACK, fromRaw, toRaw } from './raw.ts';
import { layerSettings } from './schema.ts';

/** Larger outputs are refused: one item's pixels must fit comfortably in memory. */
export const MAX_RESIZE_SIDE = 16384;
/** 64 megapixels: 256 MB as RGBA. */
export const MAX_RESIZE_PIXELS = 64 * 1024 * 1024;

const Side = Type.Integer({ minimum: -1, maximum: MAX_RESIZE_SIDE });

export const resizeSettings = layerSettings({
    width: Side,
    height: Side,
    aspect_ratio: Type.Object({ keep: Type.Boolean({ default: false }) }, { additionalProperties: false }),
});

export interface ResizeSettings {
  width: number;
  height: number;
  aspect_ratio: { keep: boolean };
}

/** What the settings say for an image of `width`×`height`: the scaled size and where it sits. */
export function resizePlan(settings: ResizeSettings, width: number, height: number) {
  const plan = planSizes(settings, width, height);
  const { width: w, height: h } = plan.canvas;
  if (w > MAX_RESIZE_SIDE || h > MAX_RESIZE_SIDE || w * h > MAX_RESIZE_PIXELS) {
    throw new Error(`resize: ${w}x${h} is larger than ${MAX_RESIZE_SIDE} a side or ${MAX_RESIZE_PIXELS} pixels`);
  }
  return plan;
}

function planSizes(settings: ResizeSettings, width: number, height: number) {
  const { keep } = settings.aspect_ratio;
  const size = (n: number) => Math.max(1, Math.round(n));
  if (settings.width === 0 || settings.height === 0) throw new Error('resize: width and height must not be 0');
  if (settings.width === -1 || settings.height === -1) {
    if (!keep) throw new Error('resize: a side of -1 needs aspect_ratio.keep');
    if (settings.width === -1 && settings.height === -1) throw new Error('resize: width and height cannot both be -1');
    const w = settings.width === -1 ? size((width * settings.height) / height) : settings.width;
    const h = settings.height === -1 ? size((height * settings.width) / width) : settings.height;
    return { scaled: { width: w, height: h }, canvas: { width: w, height: h }, left: 0, top: 0 };
  }
  if (!keep) {
    const scaled = { width: settings.width, height: settings.height };
    return { scaled, canvas: scaled, left: 0, top: 0 };
  }
  const factor = Math.min(settings.width / width, settings.height / height);
  const scaled = { width: Math.min(settings.width, size(width * factor)), height: Math.min(settings.height, size(height * factor)) };
  const canvas = { width: settings.width, height: settings.height };
  return { scaled, canvas, left: Math.floor((canvas.width - scaled.width) / 2), top: Math.floor((canvas.height - scaled.height) / 2) };
}

export const resize: LayerFunction<ResizeSettings> = async (item, settings) => {
  const raw = await item.image.raw();
  const { scaled, canvas, left, top } = resizePlan(settings, raw.width, raw.height);
  let pipeline = (await fromRaw(raw)).resize(scaled.width, scaled.height, { fit: 'fill' });
  if (canvas.width !== scaled.width || canvas.height !== scaled.height) {
    // extend() runs before resize() in one pipeline, so the padding takes a pipeline of its own.
    pipeline = (await fromRaw(await toRaw(pipeline))).extend({
      left,
      top,
      right: canvas.width - scaled.width - left,
      bottom: canvas.height - scaled.height - top,
      background: BLACK,
    });
  }
  const resized = await toRaw(pipeline);
  const m = compose(translation(left, top), scaling(scaled.width / raw.width, scaled.height / raw.height));
  return [withPixels(item, resized, await transformAnnotation(item.annotation, m, resized))];
};
