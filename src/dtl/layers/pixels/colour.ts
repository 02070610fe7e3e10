// Per-pixel arithmetic shared by the colour layers: they change the colour channels and leave alpha.
import type { RawImage } from '../../item.ts';

/**
 * A copy of the pixels with `f` applied to each pixel's colour channels, values clipped to 0–255.
 * `f` writes its result into `out`, so a large image costs no allocation per pixel.
 */
export function mapColours(raw: RawImage, f: (r: number, g: number, b: number, out: Float64Array) => void): RawImage {
  const data = Buffer.from(raw.data);
  const out = new Float64Array(3);
  for (let k = 0; k < data.length; k += raw.channels) {
    f(data[k]!, data[k + 1]!, data[k + 2]!, out);
    data[k] = clampByte(out[0]!);
    data[k + 1] = clampByte(out[1]!);
    data[k + 2] = clampByte(out[2]!);
  }
  return { ...raw, data };
}

/** Clipped, then cut to a whole number, as numpy's clip and astype(uint8) did in the 2018 DTL. */
const clampByte = (v: number): number => (v <= 0 ? 0 : v >= 255 ? 255 : Math.trunc(v));

/**
 * Standard normal numbers from uniform ones (Box–Muller, both of each pair used: one uniform number a
 * value, which is what costs most when a 12-megapixel image takes 36 million of them).
 */
export function gaussians(random: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const value = spare;
      spare = null;
      return value;
    }
    const radius = Math.sqrt(-2 * Math.log(1 - random())); // 1 - random() is in (0, 1]: the logarithm is finite
    const angle = 2 * Math.PI * random();
    spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  };
}
