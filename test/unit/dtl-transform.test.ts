// Geometry that moves with a DTL layer's pixels: affine maps, cuts to the image's rectangle, masks
// moved pixel by pixel, each against coordinates worked out by hand.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CanonicalObject, Point } from '../../src/formats/canonical.ts';
import { decodeBitmap } from '../../src/formats/supervisely/bitmap.ts';
import {
  type Affine,
  apply,
  clipPolyline,
  clipRing,
  compose,
  encodeMask,
  invert,
  rotation,
  shapeOf,
  transformBitmap,
  transformObject,
  translation,
} from '../../src/dtl/transform.ts';

const object = (points: Point[], interior: Point[][] = [], extra: object = {}): CanonicalObject => ({
  classTitle: 'c',
  description: '',
  tags: [],
  bitmap: null,
  points: { exterior: points, interior },
  ...extra,
});

/** A mask from rows of '#' (set) and '.' (unset). */
const mask = (rows: string[]) => ({
  width: rows[0]!.length,
  height: rows.length,
  pixels: Uint8Array.from(rows.join('').split(''), (c) => (c === '#' ? 1 : 0)),
});

/** A bitmap's pixels as rows of '#' and '.', with its origin. */
async function rowsOf(bitmap: { origin: [number, number]; data: string }): Promise<{ origin: [number, number]; rows: string[] }> {
  const m = await decodeBitmap(bitmap.data);
  const rows = [];
  for (let y = 0; y < m.height; y++) rows.push(Array.from(m.pixels.subarray(y * m.width, (y + 1) * m.width), (v) => (v ? '#' : '.')).join(''));
  return { origin: bitmap.origin, rows };
}

describe('affine maps', () => {
  test('compose applies the inner map first, and invert undoes a map', () => {
    const m = compose(translation(10, 0), rotation(90)); // turn, then move right
    const p = apply(m, [1, 0]);
    assert.ok(Math.abs(p[0] - 10) < 1e-12 && Math.abs(p[1] + 1) < 1e-12, `a quarter turn counter-clockwise takes (1, 0) up to (0, -1): ${p}`);
    const back = apply(invert(m), p);
    assert.ok(Math.abs(back[0] - 1) < 1e-12 && Math.abs(back[1]) < 1e-12);
  });
});

describe('cutting to a rectangle', () => {
  const box = { left: 0, top: 0, right: 10, bottom: 10 };

  test('a square over the right edge is cut along it', () => {
    assert.deepEqual(clipRing([[5, 2], [15, 2], [15, 6], [5, 6]], box), [[5, 2], [10, 2], [10, 6], [5, 6]]);
  });

  test('a triangle over a corner gains the corner', () => {
    const cut = clipRing([[8, 8], [14, 8], [8, 14]], box);
    assert.deepEqual(cut, [[8, 10], [8, 8], [10, 8], [10, 10]]);
  });

  test('a ring wholly outside leaves nothing', () => {
    assert.deepEqual(clipRing([[11, 1], [12, 1], [12, 2]], box), []);
  });

  test('a line that leaves and comes back makes two pieces', () => {
    assert.deepEqual(clipPolyline([[2, 2], [2, 14], [6, 14], [6, 2], [8, 2]], box), [
      [[2, 2], [2, 10]],
      [[6, 10], [6, 2], [8, 2]],
    ]);
  });
});

describe('moving objects', () => {
  const size = { width: 10, height: 10 };

  test('a shape carried by the object wins over the guess from its points', () => {
    assert.equal(shapeOf(object([[0, 0], [5, 5]])), 'rectangle');
    assert.equal(shapeOf(object([[0, 0], [5, 5]], [], { shape: 'line' })), 'line');
    assert.equal(shapeOf(object([[1, 1]])), 'point');
    assert.equal(shapeOf(object([[0, 0], [5, 0], [5, 5]])), 'polygon');
  });

  test('a rectangle turned an eighth becomes the box of its corners, cut to the image', async () => {
    const m: Affine = compose(translation(5, 5), compose(rotation(45), translation(-5, -5)));
    const [moved] = await transformObject(object([[3, 3], [7, 7]]), m, size);
    const half = 2 * Math.SQRT2;
    const r = (v: number) => Math.round(v * 1e6) / 1e6;
    assert.deepEqual(moved!.points.exterior, [[r(5 - half), r(5 - half)], [r(5 + half), r(5 + half)]]);
  });

  test('a polygon keeps its hole when both are cut; a hole outside the image goes', async () => {
    const [moved] = await transformObject(
      object([[2, 2], [14, 2], [14, 8], [2, 8]], [[[4, 4], [6, 4], [6, 6], [4, 6]], [[11, 4], [13, 4], [13, 6], [11, 6]]]),
      translation(0, 0),
      size,
    );
    assert.deepEqual(moved!.points, { exterior: [[2, 2], [10, 2], [10, 8], [2, 8]], interior: [[[4, 4], [6, 4], [6, 6], [4, 6]]] });
  });

  test('points and lines outside the image are dropped; a line cut in two becomes two objects', async () => {
    assert.deepEqual(await transformObject(object([[12, 3]]), translation(0, 0), size), []);
    const line = object([[2, 2], [2, 14], [6, 14], [6, 2]], [], { shape: 'line' });
    const pieces = await transformObject(line, translation(0, 0), size);
    assert.deepEqual(pieces.map((p) => p.points.exterior), [[[2, 2], [2, 10]], [[6, 10], [6, 2]]]);
    assert.ok(pieces.every((p) => (p as { shape?: string }).shape === 'line'), 'the pieces keep their shape');
  });

  test('a bitmap mirrored left to right lands pixel for pixel where its pixels went', async () => {
    const bitmap = encodeMask(mask(['##.', '#..']), [1, 4])!;
    const mirrored = await transformBitmap(bitmap, [-1, 0, 10, 0, 1, 0], size);
    // Column x of a 10-wide image goes to 9 - x: the set columns 1 and 2 land on 8 and 7.
    assert.deepEqual(await rowsOf(mirrored!), { origin: [7, 4], rows: ['##', '.#'] });
  });

  test('a bitmap cut by the image keeps its pixels inside, trimmed to the set ones', async () => {
    const bitmap = encodeMask(mask(['.##', '###', '#..']), [8, 0])!;
    assert.deepEqual(await rowsOf((await transformBitmap(bitmap, translation(0, 0), size))!), { origin: [8, 0], rows: ['.#', '##', '#.'] });
    assert.equal(await transformBitmap(bitmap, translation(5, 0), size), null, 'moved wholly outside');
  });
});
