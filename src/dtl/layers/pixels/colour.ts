// Per-pixel arithmetic shared by the colour layers: they change the colour channels and leave alpha.
import type { RawImage } from '../../item.ts';

/** A copy of the pixels with `f` applied to each pixel's colour channels (values clamped to 0–255). */
export function mapColours(raw: RawImage, f: (rgb: [number, number, number]) => [number, number, number]): RawImage {
  const data = Buffer.from(raw.data);
  const rgb: [number, number, number] = [0, 0, 0];
  for (let k = 0; k < data.length; k += raw.channels) {
    rgb[0] = data[k]!;
    rgb[1] = data[k + 1]!;
    rgb[2] = data[k + 2]!;
    const [r, g, b] = f(rgb);
    data[k] = clampByte(r);
    data[k + 1] = clampByte(g);
    data[k + 2] = clampByte(b);
  }
  return { ...raw, data };
}

const clampByte = (v: number): number => (v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v));

/** A standard normal number from uniform ones (Box–Muller). */
export function gaussian(random: () => number): number {
  const u = 1 - random(); // in (0, 1], so the logarithm is finite
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
