// Real pictures, drawn with sharp, for the tests of what is made from images (thumbnails).
import sharp from 'sharp';

/**
 * A `width` × `height` picture with a gradient (so no two sizes encode alike), as PNG, or as JPEG
 * with an EXIF orientation: 6 means "turn 90° clockwise to show", so it shows `height` wide.
 */
export async function picture(width: number, height: number, options: { seed?: number; orientation?: number } = {}): Promise<Buffer> {
  const seed = options.seed ?? 0;
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = (y * width + x) * 3;
      pixels[at] = (x * 255) / width;
      pixels[at + 1] = (y * 255) / height;
      pixels[at + 2] = (seed * 37) % 256;
    }
  }
  const image = sharp(pixels, { raw: { width, height, channels: 3 } });
  if (options.orientation) return image.jpeg().withMetadata({ orientation: options.orientation }).toBuffer();
  return image.png().toBuffer();
}
