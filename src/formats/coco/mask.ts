// Binary masks: COCO run-length encodings in, Supervisely bitmaps (base64 of zlib of a PNG cropped to
// the mask's bounding box) out, and back to run-length encodings for the COCO writer. The PNG is
// 1-bit greyscale.
import { deflateSync } from 'node:zlib';
import type { CanonicalBitmap } from '../canonical.ts';
import { encodePngSync } from '../png.ts';

/** A mask of `width` × `height` pixels, row-major, one byte a pixel (0 or 1). */
export interface Mask {
  width: number;
  height: number;
  pixels: Uint8Array;
}

/** Masks above this many pixels are refused, so one bad `size` cannot exhaust memory. */
export const MAX_MASK_PIXELS = 100_000_000;

/**
 * Decodes a COCO RLE (`counts` a list, or the compressed string of the COCO API) of an image of
 * `height` × `width`. COCO runs go down the columns (Fortran order), starting with a run of zeros.
 */
export function decodeRle(counts: number[] | string, height: number, width: number): Mask {
  if (!Number.isSafeInteger(height) || !Number.isSafeInteger(width) || height <= 0 || width <= 0) {
    throw new Error(`RLE size must be two positive integers [height, width], got [${height}, ${width}]`);
  }
  if (height * width > MAX_MASK_PIXELS) throw new Error(`RLE mask of ${width}x${height} is larger than ${MAX_MASK_PIXELS} pixels`);
  const runs = typeof counts === 'string' ? decodeCompressedCounts(counts) : counts;
  const total = height * width;
  const pixels = new Uint8Array(total);
  let at = 0;
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i]!;
    if (!Number.isSafeInteger(run) || run < 0) throw new Error(`RLE counts[${i}] is not a non-negative integer`);
    if (at + run > total) throw new Error(`RLE counts cover more than the ${total} pixels of a ${width}x${height} mask`);
    if (i % 2 === 1) {
      for (let k = at; k < at + run; k++) {
        // Column-major index k → row-major pixel.
        const x = Math.floor(k / height);
        pixels[(k - x * height) * width + x] = 1;
      }
    }
    at += run;
  }
  return { width, height, pixels };
}

/** The COCO API's compressed counts: 5-bit groups with a continuation bit, each run after the second relative to the run two before. */
export function decodeCompressedCounts(text: string): number[] {
  const counts: number[] = [];
  let p = 0;
  while (p < text.length) {
    let x = 0;
    let k = 0;
    let more = true;
    while (more) {
      if (p >= text.length) throw new Error('RLE counts string ends inside a number');
      const c = text.charCodeAt(p) - 48;
      if (c < 0 || c > 63) throw new Error(`RLE counts string has an invalid character at ${p}`);
      x |= (c & 0x1f) << (5 * k);
      more = (c & 0x20) !== 0;
      p++;
      k++;
      if (!more && c & 0x10) x |= -1 << (5 * k);
    }
    if (counts.length > 2) x += counts[counts.length - 2]!;
    counts.push(x);
  }
  return counts;
}

/** The mask cropped to its bounding box as a Supervisely bitmap, or null when no pixel is set. */
export function maskToBitmap(mask: Mask): CanonicalBitmap | null {
  const { width, height, pixels } = mask;
  let left = width;
  let top = height;
  let right = -1;
  let bottom = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (pixels[row + x]) {
        if (x < left) left = x;
        if (x > right) right = x;
        if (y < top) top = y;
        bottom = y;
      }
    }
  }
  if (right < 0) return null;
  const w = right - left + 1;
  const h = bottom - top + 1;
  const crop = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) crop.set(pixels.subarray((top + y) * width + left, (top + y) * width + left + w), y * w);
  const png = encodePngSync({ width: w, height: h, pixels: crop, kind: 'bits' });
  return { origin: [left, top], data: deflateSync(png).toString('base64'), width: w, height: h };
}

/** A mask as a COCO RLE of its whole image, with what the COCO writer puts beside it. */
export interface EncodedRle {
  /** Uncompressed counts, down the columns, starting with a run of zeros. */
  counts: number[];
  /** Pixels set inside the image. */
  area: number;
  /** `[x, y, width, height]` of the pixels set, or null when none is inside the image. */
  bbox: [number, number, number, number] | null;
}

/**
 * The COCO RLE of `mask` placed with its top-left pixel at (`left`, `top`) in an image of
 * `imageWidth` × `imageHeight`; pixels outside the image are dropped. Columns the mask does not
 * reach cost one run each, so a small object on a large image is cheap.
 */
export function encodeRle(mask: Mask, left: number, top: number, imageWidth: number, imageHeight: number): EncodedRle {
  const counts: number[] = [];
  let value = 0;
  let run = 0;
  const push = (v: number, n: number) => {
    if (n === 0) return;
    if (v === value) run += n;
    else {
      counts.push(run);
      value = v;
      run = n;
    }
  };
  let area = 0;
  let minX = imageWidth;
  let minY = imageHeight;
  let maxX = -1;
  let maxY = -1;
  const y0 = Math.max(0, top);
  const y1 = Math.min(imageHeight, top + mask.height);
  for (let x = 0; x < imageWidth; x++) {
    const mx = x - left;
    if (mx < 0 || mx >= mask.width || y1 <= y0) {
      push(0, imageHeight);
      continue;
    }
    push(0, y0);
    for (let y = y0; y < y1; y++) {
      const set = mask.pixels[(y - top) * mask.width + mx] ? 1 : 0;
      push(set, 1);
      if (set) {
        area += 1;
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        if (y > maxY) maxY = y;
      }
    }
    push(0, imageHeight - y1);
  }
  counts.push(run);
  return { counts, area, bbox: maxX < 0 ? null : [minX, minY, maxX - minX + 1, maxY - minY + 1] };
}
