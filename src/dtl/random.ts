// Seeded randomness for DTL's random layers (crop's random part, rotate, noise, random_color, `if`'s
// probability, …). The same seed, layer and image give the same numbers on every run, in any order
// of images, so one graph over the same data writes the same archive byte for byte.
import { createHash } from 'node:crypto';

/** mulberry32: a small, fast generator of uniform numbers in [0, 1) from a 32-bit state. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The generator of one layer for one item. */
export function seededRandom(seed: string | number, layerIndex: number, itemName: string): () => number {
  const digest = createHash('sha256').update(`${seed}\u0000${layerIndex}\u0000${itemName}`).digest();
  return mulberry32(digest.readUInt32LE(0));
}
