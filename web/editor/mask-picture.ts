// The segment tool's mask as a picture the page can show at once: a PNG of one bit a pixel (two
// palette entries, the outside one transparent) whose image data is stored, not compressed. Made in
// the decoder's worker by packing bits and two checksums, it is an eighth of the mask's bytes (128 KiB
// for 1024 × 1024): little to hand to a Blob and for the browser to read, where a canvas's
// convertToBlob costs an RGBA pixel loop and a compression on every click, and a 32-bit picture
// 4 MiB to copy and decode.

/** The mask's colour over the image: a translucent blue. */
export const MASK_RGBA: [number, number, number, number] = [30, 144, 255, 150];

/** Deflate's stored blocks hold at most this many bytes each. */
const STORED_BLOCK = 65535;

let crcTable: Uint32Array | undefined;
function crc32(bytes: Uint8Array, from: number, to: number): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = from; i < to; i++) c = crcTable[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  // Sums reduced every 5552 bytes, the most that cannot overflow 32 bits (zlib's NMAX).
  for (let at = 0; at < bytes.length; ) {
    const end = Math.min(bytes.length, at + 5552);
    for (; at < end; at++) {
      a += bytes[at]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * A PNG of the mask (`width` × `height`, one byte a pixel, non-zero inside): `rgba` where set,
 * transparent elsewhere.
 */
export function maskPicture(mask: Uint8Array, width: number, height: number, rgba: [number, number, number, number]): Uint8Array {
  // The image data: each row a filter byte (0, none) and its pixels 8 to a byte, the first leftmost.
  const rowBytes = 1 + Math.ceil(width / 8);
  const raw = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) {
    const row = y * rowBytes + 1;
    const from = y * width;
    for (let x = 0; x < width; x++) if (mask[from + x]) raw[row + (x >> 3)]! |= 0x80 >> (x & 7);
  }
  // zlib: its header, the data in stored blocks (a 5-byte header each), the data's Adler-32.
  const blocks = Math.max(1, Math.ceil(raw.length / STORED_BLOCK));
  const zlibLength = 2 + raw.length + blocks * 5 + 4;
  const [r, g, b, a] = rgba;
  const chunks: [string, number][] = [['IHDR', 13], ['PLTE', 6], ['tRNS', 2], ['IDAT', zlibLength], ['IEND', 0]];
  const png = new Uint8Array(8 + chunks.reduce((sum, [, length]) => sum + 12 + length, 0));
  const view = new DataView(png.buffer);
  png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let at = 8;
  for (const [type, length] of chunks) {
    view.setUint32(at, length);
    for (let i = 0; i < 4; i++) png[at + 4 + i] = type.charCodeAt(i);
    const data = at + 8;
    if (type === 'IHDR') {
      view.setUint32(data, width);
      view.setUint32(data + 4, height);
      png.set([1, 3, 0, 0, 0], data + 8); // 1 bit a pixel, palette colours, no interlace
    } else if (type === 'PLTE') png.set([0, 0, 0, r, g, b], data);
    else if (type === 'tRNS') png.set([0, a], data); // the outside transparent, the mask `a`
    else if (type === 'IDAT') {
      png.set([0x78, 0x01], data);
      let out = data + 2;
      for (let block = 0; block < blocks; block++) {
        const start = block * STORED_BLOCK;
        const size = Math.min(STORED_BLOCK, raw.length - start);
        png[out] = block === blocks - 1 ? 1 : 0; // the last block says so
        view.setUint16(out + 1, size, true);
        view.setUint16(out + 3, ~size & 0xffff, true);
        png.set(raw.subarray(start, start + size), out + 5);
        out += 5 + size;
      }
      view.setUint32(out, adler32(raw));
    }
    view.setUint32(data + length, crc32(png, at + 4, data + length));
    at = data + length + 4;
  }
  return png;
}
