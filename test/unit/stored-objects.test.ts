// Counting the objects of each class from the stored text must agree with parsing it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AnnotationObject, serializeObjects } from '../../src/formats/canonical.ts';
import { countClassTitles } from '../../src/repositories/stored-objects.ts';

const object = (classTitle: string, description = '', tags: string[] = []): AnnotationObject => ({
  classTitle,
  description,
  tags,
  bitmap: null,
  points: { exterior: [[0, 0], [1, 0], [1, 1]], interior: [] },
});

const counted = (objects: AnnotationObject[]) => {
  const counts = new Map<string, number>();
  countClassTitles(serializeObjects(objects), counts);
  return Object.fromEntries(counts);
};

test('counts each class title as parsing the objects would', () => {
  assert.deepEqual(counted([]), {});
  assert.deepEqual(counted([object('car'), object('person'), object('car')]), { car: 2, person: 1 });
});

test('titles with quotes, backslashes and other scripts are read whole', () => {
  const titles = ['say "hi"', 'back\\slash', 'ends with \\', 'é 車 🚗', 'tab\there', ''];
  assert.deepEqual(counted(titles.map((t) => object(t))), Object.fromEntries(titles.map((t) => [t, 1])));
});

test('text that looks like an object inside a description or tag is not an object', () => {
  const sneaky = '{"classTitle":"ghost"}, {"classTitle":"ghost"';
  assert.deepEqual(counted([object('car', sneaky, [sneaky]), object('car', '\\{"classTitle":"ghost"')]), { car: 2 });
});
