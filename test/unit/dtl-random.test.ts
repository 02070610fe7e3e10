// DTL's seeded randomness: repeatable for one seed, layer and image; different across them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../src/dtl/random.ts';

const draw = (random: () => number, n: number) => Array.from({ length: n }, () => random());

test('the same seed, layer and image give the same numbers; another of the three gives others', () => {
  const first = draw(seededRandom(42, 3, 'a.png'), 100);
  assert.deepEqual(draw(seededRandom(42, 3, 'a.png'), 100), first);
  assert.notDeepEqual(draw(seededRandom(43, 3, 'a.png'), 100), first);
  assert.notDeepEqual(draw(seededRandom(42, 4, 'a.png'), 100), first);
  assert.notDeepEqual(draw(seededRandom(42, 3, 'b.png'), 100), first);
  assert.ok(first.every((x) => x >= 0 && x < 1));
});

test('the numbers are spread evenly over [0, 1)', () => {
  const buckets = new Array<number>(10).fill(0);
  for (const x of draw(seededRandom('task-7', 0, 'img'), 100_000)) buckets[Math.floor(x * 10)]! += 1;
  for (const count of buckets) assert.ok(Math.abs(count - 10_000) < 500, String(buckets));
});
