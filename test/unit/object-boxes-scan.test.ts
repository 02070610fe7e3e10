// The boxes read straight from stored objects' text must be exactly those of the text parsed whole,
// for every text the scan takes; the rest it must decline, and boxesOf then parses it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AnnotationObject, serializeObjects } from '../../src/formats/canonical.ts';
import { scanBoxes } from '../../src/formats/object-boxes-scan.ts';
import { boxesOf, parsedBoxes } from '../../src/formats/object-summary.ts';
import { mulberry32 } from '../../src/seeded-random.ts';

/** Coordinates of every form JSON.stringify writes: integers, decimals of up to 17 digits, exponents, negatives. */
function coordinateOf(random: () => number): number {
  const kind = Math.floor(random() * 8);
  const sign = random() < 0.2 ? -1 : 1;
  if (kind === 0) return sign * Math.floor(random() * 5000);
  if (kind === 1) return sign * Math.round(random() * 500000) / 100;
  if (kind === 2) return sign * random() * 4000; // 16 or 17 digits: left to Number
  if (kind === 3) return sign * random() * 1e-7; // an exponent below 1e-6
  if (kind === 4) return sign * (1 + random()) * 1e21; // an exponent above 1e21
  if (kind === 5) return sign * Math.round(random() * 1e15) / 1e3; // up to 15 digits and three decimals
  if (kind === 6) return 0;
  return sign * Number((random() * 1000).toPrecision(1 + Math.floor(random() * 15)));
}

const TITLES = ['car', 'Машина', 'a "quoted" one', 'back\\slash', 'tab\there', '🚗', ''];

function objectsOf(random: () => number, plain: boolean): AnnotationObject[] {
  const count = 1 + Math.floor(random() * 6);
  return Array.from({ length: count }, () => {
    const points = Math.floor(random() * 14);
    const exterior = Array.from({ length: points }, () => [coordinateOf(random), coordinateOf(random)] as [number, number]);
    const interior = random() < 0.3 ? [[[1, 2], [3.5, 4], [5, -6]] as [number, number][]] : [];
    return {
      classTitle: plain ? TITLES[Math.floor(random() * 2)]! : TITLES[Math.floor(random() * TITLES.length)]!,
      description: plain || random() < 0.5 ? '' : 'a "described" object',
      tags: plain || random() < 0.7 ? [] : ['color'],
      bitmap: null,
      points: { exterior, interior },
    };
  });
}

test('the scan takes plain objects and finds exactly the boxes of the parsed text', () => {
  const random = mulberry32(20261129);
  for (let round = 0; round < 2000; round += 1) {
    const text = serializeObjects(objectsOf(random, true));
    const scanned = scanBoxes(text);
    assert.ok(scanned, `taken: ${text}`);
    const parsed = parsedBoxes(text);
    assert.deepEqual(scanned.titles, parsed.titles);
    assert.deepEqual(scanned.boxes, [...parsed.boxes], text);
  }
});

test('whatever it takes of any objects, the boxes are those of the parsed text; boxesOf answers the same either way', () => {
  const random = mulberry32(7);
  let declined = 0;
  for (let round = 0; round < 2000; round += 1) {
    // Half of them plain, half of any kind.
    const text = serializeObjects(objectsOf(random, random() < 0.5));
    const parsed = parsedBoxes(text);
    const scanned = scanBoxes(text);
    if (scanned) assert.deepEqual({ titles: scanned.titles, boxes: scanned.boxes }, { titles: parsed.titles, boxes: [...parsed.boxes] }, text);
    else declined += 1;
    assert.deepEqual(boxesOf(text), parsed, text);
  }
  assert.ok(declined > 500 && declined < 1500, `${declined} of 2000 declined: escapes and tags go to JSON.parse, the rest is scanned`);
});

test('escapes, tags, bitmaps and text that is not serializeObjects’ own are declined', () => {
  const polygon = (over: Partial<AnnotationObject>): string =>
    serializeObjects([{ classTitle: 'car', description: '', tags: [], bitmap: null, points: { exterior: [[1, 2], [3, 4]], interior: [] }, ...over }]);
  assert.ok(scanBoxes(polygon({})));
  assert.equal(scanBoxes(polygon({ classTitle: 'say "hi"' })), null);
  assert.equal(scanBoxes(polygon({ description: 'a\nb' })), null);
  assert.equal(scanBoxes(polygon({ tags: ['x'] })), null);
  assert.equal(scanBoxes(polygon({ bitmap: { origin: [1, 2], data: 'eJw=' } })), null);
  for (const text of ['[{"classTitle":"car"}]', polygon({}).replace('[[1,2]', '[[1,2,3]'), polygon({}).replace('[[1,2]', '[[,2]'), polygon({}).replace('[[1,2]', '[[ 1,2]'), polygon({}).replace('[[1,2]', '[[1,null]'), `${polygon({})} `, polygon({}).slice(0, -2)]) {
    assert.equal(scanBoxes(text), null, text);
  }
  // No points: a box of nothing at the origin, as parsed.
  const empty = polygon({ points: { exterior: [], interior: [] } });
  assert.deepEqual(scanBoxes(empty)!.boxes, [0, 0, 0, 0]);
  assert.deepEqual([...parsedBoxes(empty).boxes], [0, 0, 0, 0]);
});
