// Every near pair among 100,000 perceptual hashes (bench/README.md): the multi-index search of
// src/services/hamming-pairs.ts against a floor measured in the same run, a plain scan comparing a
// sample of the hashes with all others (the popcount of each pair), extrapolated to every pair. The
// pairs found for the sample are checked against the scan's.
//
//   node --import tsx bench/near-duplicates.ts [--count 100000] [--distance 12] [--rounds 3] [--sample 1000]
import { parseArgs } from 'node:util';
import { DEFAULT_DISTANCE, type HashArrays, dhashLimit, forEachNearPair, popcount32 } from '../src/services/hamming-pairs.ts';
import { mulberry32Words } from '../src/seeded-random.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '100000' },
    distance: { type: 'string', default: String(DEFAULT_DISTANCE) },
    rounds: { type: 'string', default: '3' },
    sample: { type: 'string', default: '1000' },
  },
});
const count = Number(values.count);
const distance = Number(values.distance);
const rounds = Number(values.rounds);
const sample = Math.min(count, Number(values.sample));
const TARGET_MS = 2000;

const random = mulberry32Words;

/**
 * Hashes as a photo collection gives them: most pictures alone, some in small bursts (a few shots of
 * one scene, a few copies of one picture), a few in large ones (frames of one video); each member a
 * few bits off its cluster's centre. A pHash has 32 bits set (half its frequencies lie above the
 * median), so centres do too; flips in the pHash come in pairs that keep that weight.
 */
function clusteredHashes(total: number, seed: number): HashArrays {
  const next = random(seed);
  const phash = new Uint32Array(total * 2);
  const dhash = new Uint32Array(total * 2);
  const setBit = (words: Uint32Array, at: number, bit: number) => (words[at + (bit >> 5)] = (words[at + (bit >> 5)]! ^ (1 << (31 - (bit & 31)))) >>> 0);
  let i = 0;
  while (i < total) {
    const roll = next() % 100;
    const size = roll < 80 ? 1 : roll < 99 ? 2 + (next() % 9) : 20 + (next() % 100);
    const bits = Array.from({ length: 64 }, (_, b) => b);
    for (let b = 63; b > 0; b -= 1) {
      const k = next() % (b + 1);
      [bits[b], bits[k]] = [bits[k]!, bits[b]!];
    }
    const centre = new Uint32Array(2);
    for (const b of bits.slice(0, 32)) setBit(centre, 0, b);
    const dCentre = [next(), next()];
    for (let m = 0; m < size && i < total; m += 1, i += 1) {
      phash.set(centre, 2 * i);
      dhash.set(dCentre, 2 * i);
      for (let f = next() % 5; f > 0; f -= 1) {
        // Swap a set bit with a clear one: the weight stays 32.
        const one = bits[next() % 32]!;
        const zero = bits[32 + (next() % 32)]!;
        setBit(phash, 2 * i, one);
        setBit(phash, 2 * i, zero);
      }
      for (let f = next() % 10; f > 0; f -= 1) setBit(dhash, 2 * i, next() % 64);
    }
  }
  return { phash, dhash };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const hashes = clusteredHashes(count, 42);
const { phash, dhash } = hashes;
const limit = dhashLimit(distance);

// The floor: sample hashes against every hash after them, the plain way.
function plainScan(): { ms: number; pairs: Set<string> } {
  const pairs = new Set<string>();
  const started = performance.now();
  for (let i = 0; i < sample; i += 1) {
    const hi = phash[2 * i]!;
    const lo = phash[2 * i + 1]!;
    for (let j = i + 1; j < count; j += 1) {
      if (popcount32(hi ^ phash[2 * j]!) + popcount32(lo ^ phash[2 * j + 1]!) > distance) continue;
      if (popcount32(dhash[2 * i]! ^ dhash[2 * j]!) + popcount32(dhash[2 * i + 1]! ^ dhash[2 * j + 1]!) <= limit) pairs.add(`${i}-${j}`);
    }
  }
  return { ms: performance.now() - started, pairs };
}

const ours: number[] = [];
const floors: number[] = [];
let found = 0;
let sampled = new Set<string>();
let scanned = new Set<string>();
for (let round = 0; round < rounds; round += 1) {
  const started = performance.now();
  let pairs = 0;
  const inSample = new Set<string>();
  forEachNearPair(hashes, distance, (i, j) => {
    pairs += 1;
    if (i < sample) inSample.add(`${i}-${j}`);
  });
  ours.push(performance.now() - started);
  found = pairs;
  sampled = inSample;
  const scan = plainScan();
  // Compared pairs in the sample, scaled to every pair of the array.
  const comparedInSample = sample * count - (sample * (sample + 1)) / 2;
  floors.push((scan.ms * ((count * (count - 1)) / 2)) / comparedInSample);
  scanned = scan.pairs;
}
const same = sampled.size === scanned.size && [...scanned].every((p) => sampled.has(p));
const oursMs = median(ours);
const floorMs = median(floors);
console.log(`${count.toLocaleString('en')} hashes, distance ${distance} (dHash ≤ ${limit}), ${rounds} rounds`);
console.log(`near pairs found: ${found.toLocaleString('en')}; the sample's ${sampled.size} pairs ${same ? 'equal' : 'DIFFER from'} the plain scan's`);
console.log(`multi-index search: ${oursMs.toFixed(0)} ms (rounds ${ours.map((m) => m.toFixed(0)).join(', ')}); target < ${TARGET_MS} ms`);
console.log(`plain scan of every pair (floor, extrapolated from ${sample} hashes): ${(floorMs / 1000).toFixed(1)} s (rounds ${floors.map((m) => (m / 1000).toFixed(1)).join(', ')})`);
console.log(`ratio: the search takes ${((oursMs / floorMs) * 100).toFixed(2)} % of the plain scan (${(floorMs / oursMs).toFixed(0)}× faster)`);
const pass = same && oursMs < TARGET_MS;
console.log(pass ? 'PASS' : 'FAIL');
process.exitCode = pass ? 0 : 1;
