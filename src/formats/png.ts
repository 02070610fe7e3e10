// PNG encoding of masks, one byte a pixel in: 1-bit (0 or 1), 8-bit greyscale, 8-bit palette
// indices with their colours, or palette indices written out as their RGB colours (truecolour, for
// readers that take a mask's colours without applying a palette). Masks are what the formats store (Supervisely bitmaps, machine masks,
// VOC segmentation) and their exact values matter, so they are encoded here rather than by an image
// library that may quantise a palette.
import { promisify } from 'node:util';
import { deflate, deflateSync } from 'node:zlib';

export interface PngMask {
  width: number;
  height: number;
  /** Row-major, one byte a pixel: 0 or 1 for `bits`, the value for `grey`, the index for `palette` and `rgb`. */
  pixels: Uint8Array;
  kind: 'bits' | 'grey' | 'palette' | 'rgb';
  /** For `palette` and `rgb`: the colour of each index as 0xRRGGBB (at most 256). */
  palette?: readonly number[];
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const deflateAsync = promisify(deflate);

/** The PNG bytes, compressed on the thread pool: a mask of a large photo takes a while to deflate. */
export async function encodePng(mask: PngMask): Promise<Buffer> {
  return assemble(mask, await deflateAsync(scanlines(mask)));
}

/** The PNG bytes, compressed at once: for small masks. */
export function encodePngSync(mask: PngMask): Buffer {
  return assemble(mask, deflateSync(scanlines(mask)));
}

/** Filter type 0 before each row; 1-bit rows packed most significant bit first. */
function scanlines({ width, height, pixels, kind, palette }: PngMask): Buffer {
  if (pixels.length !== width * height) throw new Error(`a ${width}x${height} mask needs ${width * height} pixels, got ${pixels.length}`);
  if (kind === 'rgb') return rgbScanlines(width, height, pixels, checkedPalette(palette, 'an RGB'));
  const stride = (kind === 'bits' ? Math.ceil(width / 8) : width) + 1;
  const raw = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const out = y * stride + 1;
    if (kind === 'bits') {
      for (let x = 0; x < width; x++) if (pixels[row + x]) raw[out + (x >> 3)]! |= 0x80 >> (x & 7);
    } else raw.set(pixels.subarray(row, row + width), out);
  }
  return raw;
}

function checkedPalette(palette: readonly number[] | undefined, what: string): readonly number[] {
  if (!palette || palette.length === 0 || palette.length > 256) throw new Error(`${what} PNG needs 1 to 256 colours`);
  return palette;
}

/** Each index as its colour's three bytes; an index past the palette is black. */
function rgbScanlines(width: number, height: number, pixels: Uint8Array, palette: readonly number[]): Buffer {
  const stride = width * 3 + 1;
  const raw = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0, out = y * stride + 1; x < width; x++, out += 3) {
      const c = palette[pixels[y * width + x]!] ?? 0;
      raw[out] = (c >> 16) & 0xff;
      raw[out + 1] = (c >> 8) & 0xff;
      raw[out + 2] = c & 0xff;
    }
  }
  return raw;
}

function assemble({ width, height, kind, palette }: PngMask, idat: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = kind === 'bits' ? 1 : 8; // bit depth
  header[9] = kind === 'palette' ? 3 : kind === 'rgb' ? 2 : 0; // colour type: palette, truecolour or greyscale
  const chunks = [SIGNATURE, chunk('IHDR', header)];
  if (kind === 'palette') {
    palette = checkedPalette(palette, 'a palette');
    const plte = Buffer.alloc(palette.length * 3);
    palette.forEach((c, i) => {
      plte[i * 3] = (c >> 16) & 0xff;
      plte[i * 3 + 1] = (c >> 8) & 0xff;
      plte[i * 3 + 2] = c & 0xff;
    });
    chunks.push(chunk('PLTE', plte));
  }
  chunks.push(chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(chunks);
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
