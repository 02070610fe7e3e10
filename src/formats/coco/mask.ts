// Binary masks: COCO run-length encodings in, Supervisely bitmaps (base64 of zlib of a PNG cropped to
// the mask's bounding box) out. The PNG is 1-bit greyscale, written here with node:zlib.
import { deflateSync } from 'node:zlib';
import type { CanonicalBitmap } from '../canonical.ts';

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
  const stride = Math.ceil(w / 8) + 1;
  const raw = Buffer.alloc(stride * h);
  for (let y = 0; y < h; y++) {
    const src = (top + y) * width + left;
    const dst = y * stride + 1; // byte 0 of each row: filter type 0
    for (let x = 0; x < w; x++) if (pixels[src + x]) raw[dst + (x >> 3)]! |= 0x80 >> (x & 7);
  }
  const png = encodePng(w, h, raw);
  return { origin: [left, top], data: deflateSync(png).toString('base64'), width: w, height: h };
}

/** A 1-bit greyscale PNG from filtered scanlines. */
function encodePng(width: number, height: number, scanlines: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(scanlines)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
