// Seeded randomness for DTL's random layers (crop's random part, rotate, noise, random_color, `if`'s
// probability, …). The same seed, layer and image give the same numbers on every run, in any order
// of images, so one graph over the same data writes the same archive byte for byte.
import { createHash } from 'node:crypto';
import { mulberry32 } from '../seeded-random.ts';


/** The generator of one layer for one item. */
export function seededRandom(seed: string | number, layerIndex: number, itemName: string): () => number {
  const digest = createHash('sha256').update(`${seed}\u0000${layerIndex}\u0000${itemName}`).digest();
  return mulberry32(digest.readUInt32LE(0));
}
