// pHash and dHash on pixels whose answer is known, and on pictures drawn with sharp.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { distanceBetween, packHashes } from '../../src/services/hamming-pairs.ts';
import { DHASH_HEIGHT, DHASH_WIDTH, PHASH_SIDE, dhashOf, isHash64, phashOf } from '../../src/services/perceptual-hash.ts';
import { renderPerceptualHashes } from '../../src/services/perceptual-hash-render.ts';
import { distinctPicture } from '../helpers/near-duplicate-corpus.ts';

const grid = (width: number, height: number, value: (x: number, y: number) => number): number[] =>
  Array.from({ length: width * height }, (_, i) => value(i % width, Math.floor(i / width)));
const distance = (a: string, b: string): number => distanceBetween(packHashes([a]), 0, packHashes([b]), 0);

test('a flat image has only its brightness (the DC term) above the median', () => {
  assert.equal(phashOf(grid(PHASH_SIDE, PHASH_SIDE, () => 128)), '8000000000000000');
});

test('pHash ignores brightness and contrast, and sees a mirror image as far', () => {
  const picture = (x: number, y: number) => 100 + 60 * Math.sin(x / 5) * Math.cos(y / 7) + x;
  const hash = phashOf(grid(PHASH_SIDE, PHASH_SIDE, picture));
  assert.equal(isHash64(hash), true);
  assert.equal(phashOf(grid(PHASH_SIDE, PHASH_SIDE, (x, y) => picture(x, y) * 1.1 + 5)), hash);
  const mirrored = phashOf(grid(PHASH_SIDE, PHASH_SIDE, (x, y) => picture(PHASH_SIDE - 1 - x, y)));
  assert.ok(distance(hash, mirrored) >= 16, `mirror at ${distance(hash, mirrored)}`);
  // Half of the 63 frequencies beside the DC term lie above their median: a hash without ties weighs 32.
  assert.equal(distance(hash, '0000000000000000'), 32);
});

test('dHash sets a bit where a pixel is brighter than its right neighbour', () => {
  assert.equal(dhashOf(grid(DHASH_WIDTH, DHASH_HEIGHT, (x) => x * 10)), '0000000000000000');
  assert.equal(dhashOf(grid(DHASH_WIDTH, DHASH_HEIGHT, (x) => 255 - x * 10)), 'ffffffffffffffff');
  assert.equal(dhashOf(grid(DHASH_WIDTH, DHASH_HEIGHT, (x, y) => (y === 0 ? 255 - x : x))), 'ff00000000000000');
});

test('pixels of the wrong count are refused', () => {
  assert.throws(() => phashOf(new Uint8Array(10)), RangeError);
  assert.throws(() => dhashOf(new Uint8Array(64)), RangeError);
});

test('sharp gives the same hashes for the same bytes, close ones for a copy, far ones for another picture', async () => {
  const original = await distinctPicture(1);
  const first = await renderPerceptualHashes(sharp, original);
  assert.deepEqual(await renderPerceptualHashes(sharp, original), first);
  const copy = await renderPerceptualHashes(sharp, await sharp(original).resize(200).jpeg({ quality: 60 }).toBuffer());
  assert.ok(distance(first.phash, copy.phash) <= 6, `pHash of the copy at ${distance(first.phash, copy.phash)}`);
  const other = await renderPerceptualHashes(sharp, await distinctPicture(2));
  assert.ok(distance(first.phash, other.phash) > 16, `pHash of another picture at ${distance(first.phash, other.phash)}`);
});

test('a transparent image hashes as it shows on white', async () => {
  const svg = (fill: string) => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="${fill}"/><circle cx="20" cy="30" r="12" fill="black"/></svg>`);
  const transparent = await sharp(svg('none')).png().toBuffer();
  const white = await sharp(svg('white')).flatten({ background: '#fff' }).png().toBuffer();
  assert.deepEqual(await renderPerceptualHashes(sharp, transparent), await renderPerceptualHashes(sharp, white));
});
