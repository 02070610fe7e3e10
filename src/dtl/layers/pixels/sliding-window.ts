// sliding_window: one item per position of a window slid left to right, top to bottom, consecutive
// windows overlapping by at least min_overlap. The step is window - min_overlap; the last window of a
// row or column is moved back to end at the image's edge, so every pixel is covered and no window
// hangs outside (the 2018 DTL's windows). An image smaller than the window is an error. Items are
// named `<name>_<n>` (n from 1, row by row).
import { Type } from 'typebox';
import { type LayerFunction } from '../../item.ts';
import { cropItem } from './crop.ts';
import { suffixedName } from './raw.ts';
import { layerSettings } from './schema.ts';

/** One image gives at most this many windows. */
export const MAX_WINDOWS_PER_IMAGE = 10000;

const Length = Type.Integer({ minimum: 1, maximum: 65535 });

export const slidingWindowSettings = layerSettings({
    window: Type.Object({ width: Length, height: Length }, { additionalProperties: false }),
    min_overlap: Type.Object({ x: Type.Integer({ minimum: 0, maximum: 65535 }), y: Type.Integer({ minimum: 0, maximum: 65535 }) }, { additionalProperties: false }),
});

export interface SlidingWindowSettings {
  window: { width: number; height: number };
  min_overlap: { x: number; y: number };
}

/** The starts of windows of `length` over `total` with the given step, the last one at the end. */
export function windowStarts(total: number, length: number, step: number): number[] {
  const starts: number[] = [];
  for (let start = 0; ; start += step) {
    if (start + length >= total) {
      starts.push(total - length);
      return starts;
    }
    starts.push(start);
  }
}

export const slidingWindow: LayerFunction<SlidingWindowSettings> = async (item, { window, min_overlap }) => {
  const { width, height } = item.annotation.size;
  if (min_overlap.x >= window.width || min_overlap.y >= window.height) throw new Error('sliding_window: min_overlap must be less than the window');
  if (window.width > width || window.height > height) {
    throw new Error(`sliding_window: the ${window.width}x${window.height} window is larger than the ${width}x${height} image`);
  }
  const xs = windowStarts(width, window.width, window.width - min_overlap.x);
  const ys = windowStarts(height, window.height, window.height - min_overlap.y);
  if (xs.length * ys.length > MAX_WINDOWS_PER_IMAGE) throw new Error(`sliding_window: more than ${MAX_WINDOWS_PER_IMAGE} windows in one image`);
  const items = [];
  let n = 0;
  for (const top of ys) {
    for (const left of xs) {
      const box = { left, top, right: left + window.width, bottom: top + window.height };
      items.push(...(await cropItem({ ...item, name: suffixedName(item.name, ++n) }, box)));
    }
  }
  return items;
};
