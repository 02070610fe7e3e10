// The pair search against the plain comparison of every pair, at every distance it takes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_DISTANCE, type HashArrays, MAX_DISTANCE, dhashLimit, distanceBetween, forEachNearPair, nearGroups, nearestTo, packHashes, popcount32 } from '../../src/services/hamming-pairs.ts';
import { mulberry32Words } from '../../src/seeded-random.ts';

const random = mulberry32Words;

/** `count` hash pairs in clusters of up to 6, each member a few bits off its cluster's centre. */
function clustered(count: number, seed: number): HashArrays {
  const next = random(seed);
  const phash = new Uint32Array(count * 2);
  const dhash = new Uint32Array(count * 2);
  for (let i = 0; i < count; ) {
    const centre = [next(), next(), next(), next()];
    for (let size = 1 + (next() % 6); size > 0 && i < count; size -= 1, i += 1) {
      const words = [...centre];
      for (let flips = next() % 14; flips > 0; flips -= 1) {
        const bit = next() % 128;
        words[bit >> 5]! ^= 1 << (bit & 31);
      }
      phash.set([words[0]!, words[1]!], 2 * i);
      dhash.set([words[2]!, words[3]!], 2 * i);
    }
  }
  return { phash, dhash };
}

function plainPairs(hashes: HashArrays, distance: number): string[] {
  const pairs: string[] = [];
  const count = hashes.phash.length / 2;
  for (let i = 0; i < count; i += 1) {
    for (let j = i + 1; j < count; j += 1) {
      if (distanceBetween(hashes.phash, i, hashes.phash, j) <= distance && distanceBetween(hashes.dhash, i, hashes.dhash, j) <= dhashLimit(distance)) pairs.push(`${i}-${j}`);
    }
  }
  return pairs;
}

test('popcount counts the bits of 32-bit words', () => {
  for (const [word, bits] of [[0, 0], [1, 1], [0xffffffff, 32], [0x80000000, 1], [0x0f0f0f0f, 16], [0xdeadbeef, 24]] as const) assert.equal(popcount32(word), bits);
});

test('hex hashes pack into two words each', () => {
  const words = packHashes(['ffffffff00000001', '8000000000000000']);
  assert.deepEqual([...words], [0xffffffff, 1, 0x80000000, 0]);
  assert.equal(distanceBetween(words, 0, words, 1), 32);
});

test('every near pair is found once, at every distance, as the plain comparison finds them', () => {
  const hashes = clustered(1500, 7);
  for (let distance = 0; distance <= MAX_DISTANCE; distance += 1) {
    const found: string[] = [];
    forEachNearPair(hashes, distance, (i, j) => {
      assert.ok(i < j);
      found.push(`${i}-${j}`);
    });
    const expected = plainPairs(hashes, distance);
    assert.equal(new Set(found).size, found.length, `no pair twice at ${distance}`);
    assert.deepEqual(found.sort(), expected.sort(), `distance ${distance}`);
    if (distance === DEFAULT_DISTANCE) assert.ok(expected.length > 500, 'the data has near pairs to find');
  }
});

test('identical hashes are all paired, however many share a bucket', () => {
  const phash = new Uint32Array(200).fill(0x12345678);
  const dhash = new Uint32Array(200).fill(7);
  let pairs = 0;
  forEachNearPair({ phash, dhash }, 0, () => (pairs += 1));
  assert.equal(pairs, (100 * 99) / 2);
});

test('groups join chains of near pairs and leave lone hashes out', () => {
  // a–b 4 bits apart, b–c 4 bits apart, a–c 8: one group at 4; d alone.
  const hex = ['0000000000000000', '000000000000000f', '00000000000000ff', 'ffffffff00000000'];
  const hashes = { phash: packHashes(hex), dhash: packHashes(hex) };
  assert.deepEqual(nearGroups(hashes, 4), [[0, 1, 2]]);
  assert.deepEqual(nearGroups(hashes, 3), []);
});

test('the nearest to one hash come nearest first, and the rule holds both hashes', () => {
  const hashes = { phash: packHashes(['0000000000000000', '0000000000000003', '0000000000000001', '0000000000000000']), dhash: packHashes(['0000000000000000', '0000000000000000', '0000000000000000', 'ffff000000000000']) };
  const query = { phash: packHashes(['0000000000000000']), dhash: packHashes(['0000000000000000']) };
  assert.deepEqual(nearestTo(hashes, query, 0, 4).map((n) => [n.index, n.phashDistance, n.dhashDistance]), [[0, 0, 0], [2, 1, 0], [1, 2, 0]]);
  // Hash 3 has the same pHash but its dHash is 16 bits off: near only once the dHash may be 16 off (N = 11).
  assert.deepEqual(nearestTo(hashes, query, 0, 11).map((n) => n.index), [0, 2, 1, 3]);
  assert.equal(dhashLimit(11), 16);
});

test('a distance outside 0 to MAX_DISTANCE is refused', () => {
  const hashes = clustered(10, 1);
  for (const bad of [-1, MAX_DISTANCE + 1, 2.5]) {
    assert.throws(() => forEachNearPair(hashes, bad, () => undefined), RangeError);
    assert.throws(() => nearestTo(hashes, hashes, 0, bad), RangeError);
  }
});
