// The pixel tools of the writers: drawing geometry, outer contours, bitmap decoding, RLE and PNG
// encoding, each checked against an independent reading (the COCO RLE decoder, sharp).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import type { Point } from '../../src/formats/canonical.ts';
import { decodeRle, encodeRle, maskToBitmap } from '../../src/formats/coco/mask.ts';
import { outerContours } from '../../src/formats/contours.ts';
import { encodePng } from '../../src/formats/png.ts';
import { type Raster, drawPolyline, fillPolygon, fillRectangle, newRaster, paintMask } from '../../src/formats/raster.ts';
import { decodeBitmap } from '../../src/formats/supervisely/index.ts';
import { PEER } from '../helpers/peer-fixtures.ts';

const count = (r: Raster) => r.pixels.reduce((n, v) => n + (v ? 1 : 0), 0);

/** A mask of random blobs: seeded, so a failure repeats. */
function randomMask(width: number, height: number, seed: number): Raster {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const r = newRaster(width, height);
  for (let k = 0; k < 12; k++) {
    const cx = next() * width;
    const cy = next() * height;
    const radius = 1 + next() * 5;
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if ((x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 < radius ** 2) r.pixels[y * width + x] = 1;
  }
  for (let k = 0; k < width * height * 0.05; k++) r.pixels[Math.floor(next() * width * height)] = 1;
  return r;
}

/**
 * The mask with its holes filled: every unset pixel the outside cannot reach. Pieces are 4-connected,
 * so the outside passes between two of their pixels that meet only at a corner (8-connected).
 */
function holesFilled(mask: Raster): Raster {
  const { width, height } = mask;
  const outside = new Uint8Array(width * height);
  const stack: number[] = [];
  for (let x = 0; x < width; x++) stack.push(x, (height - 1) * width + x);
  for (let y = 0; y < height; y++) stack.push(y * width, y * width + width - 1);
  while (stack.length) {
    const p = stack.pop()!;
    if (outside[p] || mask.pixels[p]) continue;
    outside[p] = 1;
    const [x, y] = [p % width, Math.floor(p / width)];
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        if (x + dx >= 0 && x + dx < width && y + dy >= 0 && y + dy < height) stack.push((y + dy) * width + x + dx);
      }
    }
  }
  return { width, height, pixels: outside.map((v) => (v ? 0 : 1)) };
}

describe('raster, contours, masks', () => {
  test('a box sets the pixels whose centres are inside it, as COCO counts its area', () => {
    const r = newRaster(12, 12);
    fillRectangle(r, [[0, 0], [10, 10]], 1);
    assert.equal(count(r), 100);
    const half = newRaster(12, 12);
    fillRectangle(half, [[0.6, 0], [2.5, 1]], 1);
    assert.deepEqual([...half.pixels.subarray(0, 4)], [0, 1, 0, 0]);
  });

  test('a polygon with a hole leaves the hole as it was', () => {
    const r = newRaster(20, 20);
    r.pixels.fill(7);
    fillPolygon(r, [[[2, 2], [18, 2], [18, 18], [2, 18]], [[6, 6], [10, 6], [10, 10], [6, 10]]], 1);
    assert.equal(r.pixels.filter((v) => v === 1).length, 16 * 16 - 16);
    assert.equal(r.pixels[8 * 20 + 8], 7);
  });

  test('a line sets each pixel it passes through once a column', () => {
    const r = newRaster(10, 10);
    drawPolyline(r, [[0.5, 0.5], [9.5, 3.5]], 1);
    assert.equal(count(r), 10);
  });

  test('outer contours drawn back give each piece with its holes filled, exactly', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const mask = randomMask(40, 30, seed);
      const contours = outerContours(mask);
      assert.ok(contours.length > 1, 'the mask has several pieces');
      const drawn = newRaster(40, 30);
      for (const ring of contours) {
        assert.ok(ring.length >= 4);
        fillPolygon(drawn, [ring], 1);
      }
      assert.deepEqual(drawn.pixels, holesFilled(mask).pixels, `seed ${seed}`);
    }
  });

  test('pieces that meet only at a corner are two polygons', () => {
    const mask: Raster = { width: 2, height: 2, pixels: Uint8Array.from([1, 0, 0, 1]) };
    assert.deepEqual(outerContours(mask), [
      [[0, 0], [1, 0], [1, 1], [0, 1]],
      [[1, 1], [2, 1], [2, 2], [1, 2]],
    ] as Point[][]);
  });

  test('a bitmap decodes to the mask it was made from, by value or by alpha', async () => {
    const mask = randomMask(23, 17, 9);
    const bitmap = maskToBitmap(mask)!;
    const decoded = await decodeBitmap(bitmap.data);
    const back = newRaster(23, 17);
    paintMask(back, decoded, bitmap.origin, 1);
    assert.deepEqual(back.pixels, mask.pixels);

    // The peer bitmaps are RGBA PNGs whose colour is the same everywhere: only alpha tells the mask.
    const annotation = JSON.parse(readFileSync(path.join(PEER, 'superannotate/supervisely/instance/ds/ann/cat2.jpg.json'), 'utf8')) as { objects: { bitmap: { data: string } }[] };
    const { width, height, pixels } = await decodeBitmap(annotation.objects[0]!.bitmap.data);
    const set = pixels.reduce((n, v) => n + v, 0);
    assert.ok(set > 0 && set < width * height);
  });

  test('RLE of a mask placed on an image decodes to the same pixels, clipped to the image', () => {
    const mask = randomMask(15, 12, 4);
    for (const [left, top] of [[0, 0], [5, 7], [-3, -2], [30, 25]]) {
      const rle = encodeRle(mask, left!, top!, 35, 30);
      const decoded = decodeRle(rle.counts, 30, 35);
      const expected = newRaster(35, 30);
      paintMask(expected, mask, [left!, top!], 1);
      assert.deepEqual(decoded.pixels, expected.pixels, `at ${left}, ${top}`);
      assert.equal(rle.area, count(expected));
      assert.equal(rle.counts.reduce((a, b) => a + b, 0), 35 * 30);
    }
    assert.equal(encodeRle(mask, 40, 40, 35, 30).bbox, null);
  });

  test('a palette PNG keeps its indices and colours', async () => {
    const pixels = Uint8Array.from([0, 1, 2, 255]);
    const palette = Array.from({ length: 256 }, (_, i) => (i === 1 ? 0xff0000 : i === 2 ? 0x00ff00 : i === 255 ? 0xe0e0c0 : 0));
    const png = await encodePng({ width: 2, height: 2, pixels, kind: 'palette', palette });
    assert.equal((await sharp(png).metadata()).isPalette, true);
    const { data } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([...data], [0, 0, 0, 255, 0, 0, 0, 255, 0, 0xe0, 0xe0, 0xc0]);
  });
});
