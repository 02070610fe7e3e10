// The perceptual hashes of an image, read with sharp from its grid thumbnail: the thumbnail is upright
// (EXIF orientation applied) and small, so decoding it again costs little, and the same bytes always
// give the same hashes.
import type { Sharp } from '../sharp.ts';
import { DHASH_HEIGHT, DHASH_WIDTH, PHASH_SIDE, dhashOf, phashOf } from './perceptual-hash.ts';

export interface PerceptualHashes {
  /** DCT pHash, 16 hex digits. */
  phash: string;
  /** Difference hash, 16 hex digits. */
  dhash: string;
}

async function greyPixels(sharp: Sharp, image: Buffer, width: number, height: number): Promise<Buffer> {
  // Flattened on white first, so a transparent image hashes as it is seen, not as its hidden colours.
  return sharp(image).flatten({ background: '#ffffff' }).greyscale().resize(width, height, { fit: 'fill' }).raw().toBuffer();
}

export async function renderPerceptualHashes(sharp: Sharp, image: Buffer): Promise<PerceptualHashes> {
  const [square, strip] = await Promise.all([greyPixels(sharp, image, PHASH_SIDE, PHASH_SIDE), greyPixels(sharp, image, DHASH_WIDTH, DHASH_HEIGHT)]);
  return { phash: phashOf(square), dhash: dhashOf(strip) };
}
