// Generated shapes for the segment tool's tests and benchmark: a filled shape on a plain background,
// as an image file (sharp) and as the mask of the pixels it covers.
import sharp from 'sharp';

export type Inside = (x: number, y: number) => boolean;

export const disc = (cx: number, cy: number, r: number): Inside => (x, y) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
export const ring = (cx: number, cy: number, r: number, hole: number): Inside => (x, y) => disc(cx, cy, r)(x, y) && !disc(cx, cy, hole)(x, y);
export const square = (left: number, top: number, side: number): Inside => (x, y) => x >= left && x < left + side && y >= top && y < top + side;

/** One byte a pixel, 1 where the pixel's centre is inside. */
export function shapeMask(width: number, height: number, inside: Inside): Uint8Array {
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) pixels[y * width + x] = inside(x + 0.5, y + 0.5) ? 1 : 0;
  return pixels;
}

/** A PNG of the shape in a saturated colour on a pale plain background. */
export async function shapePicture(width: number, height: number, inside: Inside): Promise<Buffer> {
  const mask = shapeMask(width, height, inside);
  const rgb = Buffer.alloc(width * height * 3);
  for (let i = 0; i < mask.length; i++) rgb.set(mask[i] ? [200, 40, 40] : [235, 235, 220], i * 3);
  return sharp(rgb, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** Intersection over union of two masks of the same size. */
export function maskIoU(a: Uint8Array, b: Uint8Array): number {
  let both = 0;
  let either = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] && b[i]) both += 1;
    if (a[i] || b[i]) either += 1;
  }
  return either === 0 ? 1 : both / either;
}
