// Turns the bytes of an image into a WebP thumbnail and a thumbhash, with sharp.
import { rgbaToThumbHash } from 'thumbhash';
import type { Sharp } from '../sharp.ts';

export interface RenderedThumbnail {
  webp: Buffer;
  width: number;
  height: number;
}

/** WebP quality: small files that still read well at the size of a grid cell. */
const WEBP_QUALITY = 80;
/** thumbhash encodes at most 100 × 100 pixels: more only costs time. */
const THUMBHASH_SIDE = 100;

/**
 * The image fitted inside `size` × `size` (never enlarged), turned upright as its EXIF orientation
 * says, as WebP. `maxPixels` stops decompression bombs before they are decoded.
 */
export async function renderThumbnail(sharp: Sharp, image: Buffer, size: number, maxPixels: number): Promise<RenderedThumbnail> {
  const { data, info } = await sharp(image, { limitInputPixels: maxPixels })
    .rotate()
    .resize(size, size, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: WEBP_QUALITY })
    .toBuffer({ resolveWithObject: true });
  return { webp: data, width: info.width, height: info.height };
}

/** The thumbhash (base64) of an image, read from its thumbnail: decoding that is cheap. */
export async function renderThumbhash(sharp: Sharp, thumbnail: Buffer): Promise<string> {
  const { data, info } = await sharp(thumbnail)
    .resize(THUMBHASH_SIDE, THUMBHASH_SIDE, { fit: 'inside', withoutEnlargement: true })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return Buffer.from(rgbaToThumbHash(info.width, info.height, data)).toString('base64');
}
