import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type BinaryMask, maskToPolygons, simplifyRing } from '../../src/formats/mask-polygons.ts';
import { fillPolygon, newRaster } from '../../src/formats/raster.ts';

function shape(width: number, height: number, inside: (x: number, y: number) => boolean): BinaryMask {
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) pixels[y * width + x] = inside(x + 0.5, y + 0.5) ? 1 : 0;
  return { width, height, pixels };
}

const disc = (cx: number, cy: number, r: number) => (x: number, y: number) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
const ring = (cx: number, cy: number, r: number, hole: number) => (x: number, y: number) => disc(cx, cy, r)(x, y) && !disc(cx, cy, hole)(x, y);
const square = (left: number, top: number, side: number) => (x: number, y: number) => x >= left && x < left + side && y >= top && y < top + side;

/** The pixels the polygons set when drawn back (even-odd, pixel centres) against the mask's. */
function roundTripIoU(mask: BinaryMask, tolerance: number): number {
  const drawn = newRaster(mask.width, mask.height);
  for (const p of maskToPolygons(mask, { tolerance })) fillPolygon(drawn, [p.exterior, ...p.interior], 1);
  let both = 0;
  let either = 0;
  for (let i = 0; i < mask.pixels.length; i++) {
    const a = mask.pixels[i] !== 0;
    const b = drawn.pixels[i] !== 0;
    if (a && b) both += 1;
    if (a || b) either += 1;
  }
  return both / either;
}

describe('mask to polygons', () => {
  it('traces a square as its four corners', () => {
    const polygons = maskToPolygons(shape(20, 20, square(5, 6, 8)), { tolerance: 0 });
    assert.equal(polygons.length, 1);
    assert.deepEqual(polygons[0]!.exterior, [[5, 6], [13, 6], [13, 14], [5, 14]]);
    assert.deepEqual(polygons[0]!.interior, []);
  });

  it('keeps the hole of a ring, and an island in the hole as a polygon of its own', () => {
    const mask = shape(100, 100, (x, y) => ring(50, 50, 40, 20)(x, y) || disc(50, 50, 8)(x, y));
    const polygons = maskToPolygons(mask, { tolerance: 1 });
    assert.equal(polygons.length, 2);
    assert.equal(polygons[0]!.interior.length, 1, 'the ring has one hole');
    assert.equal(polygons[1]!.interior.length, 0, 'the island has none');
    const xs = polygons[0]!.interior[0]!.map(([x]) => x);
    assert.ok(Math.min(...xs) >= 29 && Math.max(...xs) <= 71, 'the hole lies inside the ring');
  });

  it('draws back a disc, a square and a ring with an IoU of at least 0.95', () => {
    for (const [name, mask] of [
      ['disc', shape(256, 256, disc(128, 120, 70))],
      ['square', shape(256, 256, square(40, 60, 120))],
      ['ring', shape(256, 256, ring(128, 128, 90, 45))],
    ] as const) {
      const iou = roundTripIoU(mask, 1);
      assert.ok(iou >= 0.95, `${name}: IoU ${iou}`);
    }
  });

  it('draws back the exact pixels with no simplification', () => {
    const mask = shape(64, 64, ring(32, 32, 25, 10));
    assert.equal(roundTripIoU(mask, 0), 1);
  });

  it('simplifies a staircase to far fewer vertices, more so with a larger tolerance', () => {
    const mask = shape(300, 300, disc(150, 150, 120));
    const exact = maskToPolygons(mask, { tolerance: 0 })[0]!.exterior.length;
    const fine = maskToPolygons(mask, { tolerance: 1 })[0]!.exterior.length;
    const coarse = maskToPolygons(mask, { tolerance: 4 })[0]!.exterior.length;
    assert.ok(fine < exact / 4, `${exact} corners, ${fine} after simplifying`);
    assert.ok(coarse < fine, `${fine} at 1 px, ${coarse} at 4 px`);
    assert.ok(roundTripIoU(mask, 4) >= 0.95);
  });

  it('leaves out specks and pinholes smaller than minArea', () => {
    const mask = shape(80, 80, (x, y) => (square(10, 10, 50)(x, y) && !square(30, 30, 2)(x, y)) || square(70, 70, 3)(x, y));
    assert.equal(maskToPolygons(mask).length, 2);
    const polygons = maskToPolygons(mask, { minArea: 10 });
    assert.equal(polygons.length, 1);
    assert.deepEqual(polygons[0]!.interior, []);
  });

  it('answers no polygon for an empty mask', () => {
    assert.deepEqual(maskToPolygons(shape(10, 10, () => false)), []);
  });

  it('keeps the vertices of a ring farther than the tolerance from its simplified edges', () => {
    const zigzag: [number, number][] = [[0, 0], [5, 0.2], [10, 0], [10, 10], [5, 9.8], [0, 10]];
    assert.deepEqual(simplifyRing(zigzag, 0.5), [[0, 0], [10, 0], [10, 10], [0, 10]]);
    assert.equal(simplifyRing(zigzag, 0.1).length, 6);
  });
});
