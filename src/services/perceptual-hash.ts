// Perceptual hashes of an image, from its grey pixels: two images that look alike (one resized,
// recompressed, slightly cropped or brightened from the other) get hashes a few bits apart, where the
// SHA-256 of their bytes shares nothing. Pure functions; sharp makes the pixels (perceptual-hash-render.ts).
//
// Two hashes, because each misses what the other sees: pHash keeps the signs of the lowest spatial
// frequencies (the layout of light and dark), dHash the signs of horizontal gradients (the edges).
// A pair near in both is near-duplicate far more surely than a pair near in one.

/** The side of the grey square pHash reads: its DCT gives the 8 × 8 lowest frequencies kept. */
export const PHASH_SIDE = 32;
/** dHash reads 9 × 8 grey pixels: 8 left-right comparisons a row. */
export const DHASH_WIDTH = 9;
export const DHASH_HEIGHT = 8;

const LOW = 8;

/** cos((2x + 1) u π / 2N) for u < 8, x < 32: the only DCT coefficients pHash uses. */
const COSINES: Float64Array = (() => {
  const table = new Float64Array(LOW * PHASH_SIDE);
  for (let u = 0; u < LOW; u += 1) {
    for (let x = 0; x < PHASH_SIDE; x += 1) table[u * PHASH_SIDE + x] = Math.cos(((2 * x + 1) * u * Math.PI) / (2 * PHASH_SIDE));
  }
  return table;
})();

/** A 64-bit hash as 16 lowercase hex digits, bit 63 first. */
function hexOf(bits: ArrayLike<boolean | number>): string {
  let hex = '';
  for (let i = 0; i < 64; i += 4) hex += ((Number(bits[i]) << 3) | (Number(bits[i + 1]) << 2) | (Number(bits[i + 2]) << 1) | Number(bits[i + 3])).toString(16);
  return hex;
}

/**
 * The DCT pHash of a 32 × 32 grey image (row by row): the 8 × 8 lowest frequencies of its 2-D DCT-II,
 * each bit set when the coefficient is above their median (the DC term left out of the median, as it
 * only says how bright the image is).
 */
export function phashOf(grey: ArrayLike<number>): string {
  if (grey.length !== PHASH_SIDE * PHASH_SIDE) throw new RangeError(`pHash reads ${PHASH_SIDE * PHASH_SIDE} pixels, not ${grey.length}`);
  // Rows first (32 rows × 8 frequencies), then columns: 8 × 8 × 32 × 2 products instead of 32⁴.
  const rows = new Float64Array(PHASH_SIDE * LOW);
  for (let y = 0; y < PHASH_SIDE; y += 1) {
    for (let u = 0; u < LOW; u += 1) {
      let sum = 0;
      for (let x = 0; x < PHASH_SIDE; x += 1) sum += grey[y * PHASH_SIDE + x]! * COSINES[u * PHASH_SIDE + x]!;
      rows[y * LOW + u] = sum;
    }
  }
  const low = new Float64Array(LOW * LOW);
  for (let v = 0; v < LOW; v += 1) {
    for (let u = 0; u < LOW; u += 1) {
      let sum = 0;
      for (let y = 0; y < PHASH_SIDE; y += 1) sum += rows[y * LOW + u]! * COSINES[v * PHASH_SIDE + y]!;
      // Rounded: a coefficient that is zero in exact arithmetic (a flat image's) must not take a
      // sign from floating-point noise.
      low[v * LOW + u] = Math.round(sum * 1e6) / 1e6;
    }
  }
  const sorted = Array.from(low.subarray(1)).sort((a, b) => a - b);
  const median = (sorted[31]! + sorted[32]!) / 2;
  return hexOf(Array.from(low, (c) => c > median));
}

/** The dHash of a 9 × 8 grey image (row by row): a bit per pixel brighter than its right neighbour. */
export function dhashOf(grey: ArrayLike<number>): string {
  if (grey.length !== DHASH_WIDTH * DHASH_HEIGHT) throw new RangeError(`dHash reads ${DHASH_WIDTH * DHASH_HEIGHT} pixels, not ${grey.length}`);
  const bits: boolean[] = [];
  for (let y = 0; y < DHASH_HEIGHT; y += 1) {
    for (let x = 0; x < DHASH_WIDTH - 1; x += 1) bits.push(grey[y * DHASH_WIDTH + x]! > grey[y * DHASH_WIDTH + x + 1]!);
  }
  return hexOf(bits);
}

/** Whether `text` is a 64-bit hash as stored (16 lowercase hex digits). */
export const isHash64 = (text: string): boolean => /^[0-9a-f]{16}$/.test(text);
