// Between a layer's RawImage and sharp: the pixels into a sharp pipeline and back, and the names of
// the items a layer makes out of one.
import type { Sharp as SharpInstance } from 'sharp';
import { loadSharp } from '../../../sharp.ts';
import type { RawImage } from '../../item.ts';

/** A sharp pipeline reading the raw pixels. */
export async function fromRaw(raw: RawImage): Promise<SharpInstance> {
  const sharp = await loadSharp();
  const { width, height, channels } = raw;
  return sharp(raw.data, { raw: { width, height, channels } });
}

/** The pipeline's result as raw pixels with the channels it had. */
export async function toRaw(pipeline: SharpInstance): Promise<RawImage> {
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3 && info.channels !== 4) throw new Error(`unexpected ${info.channels} channels`);
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** Opaque black, what the 2018 DTL fills new regions with. */
export const BLACK = { r: 0, g: 0, b: 0, alpha: 1 };

/** `name` with `_<suffix>` before its extension: `a.jpg` → `a_2.jpg`. */
export function suffixedName(name: string, suffix: string | number): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}_${suffix}${name.slice(dot)}` : `${name}_${suffix}`;
}

/** Uniform in [min, max); a range whose min exceeds its max is an error, as in the 2018 DTL. */
export function uniform(random: () => number, min: number, max: number, what: string): number {
  if (min > max) throw new Error(`${what}: min (${min}) exceeds max (${max})`);
  return min + (max - min) * random();
}
