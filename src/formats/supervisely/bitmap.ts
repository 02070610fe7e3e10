// A Supervisely bitmap's data (base64 of zlib-compressed PNG): its size checked without decoding the
// pixels, and its pixels decoded for the writers that draw masks.
import { deflateSync, inflateSync } from 'node:zlib';
import { loadSharp } from '../../sharp.ts';
import { encodePngSync } from '../png.ts';

/** Inflated PNGs above this are refused, so a small zlib bomb cannot exhaust memory. */
export const MAX_MASK_INFLATED_BYTES = 64 * 1024 * 1024;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The width and height of the mask in a bitmap's `data`. Throws an Error saying what is wrong (not
 * base64, not zlib, too large, not a PNG).
 */
export function readMaskSize(data: string): { width: number; height: number } {
  return pngSize(inflateMask(data));
}

function pngSize(png: Buffer): { width: number; height: number } {
  // Signature, then the IHDR chunk: length 13, type, width, height.
  if (png.length < 33 || !png.subarray(0, 8).equals(PNG_SIGNATURE)) {
    throw new Error('bitmap data does not inflate to a PNG');
  }
  if (png.readUInt32BE(8) !== 13 || png.toString('latin1', 12, 16) !== 'IHDR') {
    throw new Error('bitmap data inflates to a PNG without an IHDR header');
  }
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff) {
    throw new Error(`bitmap data inflates to a PNG of invalid size ${width}x${height}`);
  }
  return { width, height };
}

function inflateMask(data: string): Buffer {
  if (data.length === 0 || !BASE64.test(data) || data.length % 4 === 1) throw new Error('bitmap data is not base64');
  try {
    return inflateSync(Buffer.from(data, 'base64'), { maxOutputLength: MAX_MASK_INFLATED_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new Error(`bitmap data inflates to more than ${MAX_MASK_INFLATED_BYTES} bytes`);
    }
    // zlib's own words ("incorrect header check") tell a client nothing it can act on.
    throw new Error('bitmap data is not valid zlib-compressed data');
  }
}

/** A bitmap's mask at the size of its PNG, row-major, one byte a pixel (0 or 1). */
export interface BitmapMask {
  width: number;
  height: number;
  pixels: Uint8Array;
}

/**
 * The pixels of a bitmap's mask. A PNG with an alpha channel (the usual 1-bit palette with index 0
 * transparent, or RGBA) is decoded by its alpha, any other by its grey value: set where not zero.
 * Throws as readMaskSize does for data that is no mask.
 */
export async function decodeBitmap(data: string): Promise<BitmapMask> {
  const png = inflateMask(data);
  const { width, height } = pngSize(png);
  const sharp = await loadSharp();
  const limit = { limitInputPixels: width * height };
  const { hasAlpha } = await sharp(png, limit).metadata();
  const image = hasAlpha ? sharp(png, limit).ensureAlpha().extractChannel(3) : sharp(png, limit).greyscale();
  const { data: raw, info } = await image.raw().toBuffer({ resolveWithObject: true });
  const pixels = new Uint8Array(width * height);
  for (let p = 0, k = 0; p < pixels.length; p++, k += info.channels) pixels[p] = raw[k]! > 0 ? 1 : 0;
  return { width, height, pixels };
}

/** PNG colour types (IHDR byte 9). */
const RGB = 2;
const PALETTE = 3;

/**
 * Whether the 2018 Supervisely reader can take this mask: it decodes the PNG with OpenCV, unchanged,
 * and accepts only a single channel (greyscale) or four (alpha, by which it reads the mask). RGB,
 * and a palette without a transparency chunk, decode to three channels, which it refuses ("Wrong
 * internal mask format"); grey with alpha, RGBA and a palette with tRNS decode to four.
 */
export function isLegacyReadableMask(data: string): boolean {
  const png = inflateMask(data);
  pngSize(png);
  const colourType = png[25];
  if (colourType === RGB) return false;
  if (colourType !== PALETTE) return true;
  // Ancillary chunks come after IHDR and before the first IDAT; tRNS is among them when present.
  for (let at = 8; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'tRNS') return true;
    if (type === 'IDAT' || type === 'IEND') return false;
    at += 12 + length;
  }
  return false;
}

/**
 * The mask's data as the 2018 reader can take it: as it is when it can (isLegacyReadableMask), else
 * its pixels (decodeBitmap's reading) written again as a 1-bit greyscale PNG of the same size, so
 * the origin stands.
 */
export async function legacyReadableMask(data: string): Promise<string> {
  if (isLegacyReadableMask(data)) return data;
  const mask = await decodeBitmap(data);
  return deflateSync(encodePngSync({ ...mask, kind: 'bits' })).toString('base64');
}
