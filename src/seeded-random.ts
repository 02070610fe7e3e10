// mulberry32: a small, fast generator from a 32-bit seed, for everything that must draw the same
// numbers on every run and machine (DTL's random layers, a version's split, generated test data).
// Not for secrets.

/** Uniform 32-bit unsigned integers. */
export function mulberry32Words(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** Uniform numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  const words = mulberry32Words(seed);
  return () => words() / 4294967296;
}
