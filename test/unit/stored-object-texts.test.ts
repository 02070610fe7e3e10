// Writing unchanged objects as the text they were stored as: the same bytes serializeObjects writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AnnotationObject, serializeObjects } from '../../src/formats/canonical.ts';
import { WrittenAnnotations, objectsJsonReusing, sameObject } from '../../src/services/stored-object-texts.ts';
import { polygon } from '../helpers/factories.ts';

const a = polygon('car', [[1, 1], [2.5, 1], [2, 3]], ['occluded']);
const b: AnnotationObject = { classTitle: 'mask', description: 'm', tags: [], bitmap: { origin: [3, 4], data: 'eJw=' }, points: { exterior: [], interior: [] } };
const c = polygon('car', [[5, 5], [6, 5], [6, 6]]);

test('stored pieces and new ones make what serializeObjects would write', () => {
  const stored = serializeObjects([a, b, c]);
  const changed = { ...c, description: 'new' };
  const objects = [c, changed, a, b];
  // c kept (stored 2), c changed (stored 2, not the same), a kept (stored 0), b new.
  const from = [2, 2, 0, -1];
  const text = objectsJsonReusing(stored, objects, from, (i) => sameObject(objects[i]!, [a, b, c][from[i]!]!));
  assert.equal(text, serializeObjects(objects));
  assert.equal(objectsJsonReusing(stored, [], [], () => true), '[]');
});

test('objects read the same exactly when every member does', () => {
  assert.equal(sameObject(a, JSON.parse(JSON.stringify(a)) as AnnotationObject), true);
  assert.equal(sameObject(b, JSON.parse(JSON.stringify(b)) as AnnotationObject), true);
  assert.equal(sameObject(a, { ...a, tags: [] }), false);
  assert.equal(sameObject(a, { ...a, points: { exterior: [[1, 1], [2.5, 1], [2, 4]], interior: [] } }), false);
  assert.equal(sameObject(a, { ...a, points: { exterior: a.points.exterior, interior: [[[0, 0], [1, 0], [1, 1]]] } }), false);
  assert.equal(sameObject(b, { ...b, bitmap: { origin: [3, 5], data: 'eJw=' } }), false);
  assert.equal(sameObject(b, { ...b, bitmap: null }), false);
});

test('a kept annotation is used only while the stored text is the one it was written as', () => {
  const written = new WrittenAnnotations();
  const text = serializeObjects([a]);
  written.remember(1, text, [a]);
  assert.deepEqual(written.objectsOf(1, text), [a]);
  assert.equal(written.objectsOf(1, serializeObjects([c])), undefined);
  assert.equal(written.objectsOf(2, text), undefined);
  // The least recently written go first once more are kept than there is room for.
  for (let id = 2; id <= 20; id += 1) written.remember(id, text, [a]);
  assert.equal(written.objectsOf(1, text), undefined);
  assert.deepEqual(written.objectsOf(20, text), [a]);
});
