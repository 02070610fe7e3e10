// The editor's document and its commands: each edit a new document, undo and redo over them, the
// format's rules kept (a polygon's 3 points, a rectangle's stored form, points inside the image).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Annotation } from '../../web/editor/annotation-types.ts';
import {
  EditRefused,
  type EditorDocument,
  addHole,
  addObject,
  fromAnnotation,
  insertVertex,
  moveObject,
  moveVertex,
  objectIndexOfPointer,
  removeHole,
  removeObject,
  removeVertex,
  setClass,
  setImageTagValue,
  setImageTags,
  setObjectTagValue,
  setObjectTags,
  toAnnotationBody,
  toggled,
} from '../../web/editor/document.ts';
import { committed, redone, startHistory, undone } from '../../web/editor/history.ts';
import type { Shape } from '../../web/editor/geometry.ts';

const SHAPES: Record<string, Shape> = { car: 'polygon', bus: 'polygon', person: 'rectangle', lane: 'line', pin: 'point' };
const shapeOf = (title: string): Shape | undefined => SHAPES[title];

const ANNOTATION: Annotation = {
  description: '',
  tags: [],
  name: 'a.png',
  size: { width: 200, height: 100 },
  objects: [
    { id: 4, classTitle: 'car', description: '', tags: [], bitmap: null, points: { exterior: [[10, 10], [50, 10], [50, 50]], interior: [] } },
    { id: 9, classTitle: 'lane', description: '', tags: [], bitmap: null, points: { exterior: [[0, 90], [100, 80]], interior: [] } },
  ],
};

const blank = { description: '', tags: [], bitmap: null };
const refused = (edit: () => unknown, message: RegExp) => assert.throws(edit, (e: unknown) => e instanceof EditRefused && message.test(e.message));

test('a document keeps the ids of the annotation and gives new objects keys, never ids', () => {
  const doc = fromAnnotation(ANNOTATION);
  assert.deepEqual(doc.objects.map((o) => [o.key, o.id]), [[1, 4], [2, 9]]);
  const added = addObject(doc, 'rectangle', { ...blank, classTitle: 'person', points: { exterior: [[120, 80], [100, 20]], interior: [] } });
  assert.equal(added.objects[2]!.key, 3);
  assert.equal(added.nextKey, 4);
  const { body, keys } = toAnnotationBody(added);
  assert.deepEqual(body.objects.map((o) => ('id' in o ? o.id : null)), [4, 9, null]);
  // The rectangle as the format stores it.
  assert.deepEqual(body.objects[2]!.points.exterior, [[100, 20], [120, 80]]);
  assert.deepEqual(keys, [1, 2, 3]);
  // An id the image no longer has (removed by someone else) is sent as a new object.
  assert.deepEqual(toAnnotationBody(added, new Set([9])).body.objects.map((o) => ('id' in o ? o.id : null)), [null, 9, null]);
  assert.equal(objectIndexOfPointer('/objects/12/points/exterior'), 12);
  assert.equal(objectIndexOfPointer('/tags/0'), -1);
});

test('new shapes are clamped into the image, and refused under their minimum of points', () => {
  const doc = fromAnnotation(ANNOTATION);
  const added = addObject(doc, 'polygon', { ...blank, classTitle: 'car', points: { exterior: [[-10, 5], [250, 5], [100, 150]], interior: [] } });
  assert.deepEqual(added.objects.at(-1)!.points.exterior, [[0, 5], [200, 5], [100, 100]]);
  refused(() => addObject(doc, 'polygon', { ...blank, classTitle: 'car', points: { exterior: [[1, 1], [2, 2]], interior: [] } }), /at least 3 points/);
  refused(() => addObject(doc, 'line', { ...blank, classTitle: 'lane', points: { exterior: [[1, 1]], interior: [] } }), /at least 2 points/);
  refused(() => addObject(doc, 'point', { ...blank, classTitle: 'pin', points: { exterior: [[1, 1], [2, 2]], interior: [] } }), /exactly 1 point/);
});

test('vertices move inside the image, are inserted on an edge, and removed down to 3 for a polygon', () => {
  let doc: EditorDocument = fromAnnotation(ANNOTATION);
  doc = moveVertex(doc, 1, 'exterior', 2, [260, -4]);
  assert.deepEqual(doc.objects[0]!.points.exterior, [[10, 10], [50, 10], [200, 0]]);
  doc = insertVertex(doc, 1, 'polygon', 'exterior', 1, [30, 8]);
  assert.deepEqual(doc.objects[0]!.points.exterior, [[10, 10], [30, 8], [50, 10], [200, 0]]);
  doc = removeVertex(doc, 1, 'polygon', 'exterior', 1);
  assert.equal(doc.objects[0]!.points.exterior.length, 3);
  refused(() => removeVertex(doc, 1, 'polygon', 'exterior', 0), /polygon needs at least 3 points/);
  refused(() => removeVertex(doc, 2, 'line', 'exterior', 0), /line needs at least 2 points/);
  refused(() => insertVertex(doc, 2, 'rectangle', 'exterior', 0, [1, 1]), /rectangle has no vertices/);
});

test('an object moves whole, stopping at the image’s edge', () => {
  const doc = fromAnnotation(ANNOTATION);
  const moved = moveObject(doc, 1, -30, 5);
  assert.deepEqual(moved.objects[0]!.points.exterior, [[0, 15], [40, 15], [40, 55]]);
  assert.equal(moved.objects[1], doc.objects[1]);
  assert.equal(moveObject(doc, 2, -5, 0), doc, 'a line on the left edge cannot move left at all');
  assert.deepEqual(moveObject(doc, 2, 0, 50).objects[1]!.points.exterior, [[0, 100], [100, 90]]);
  // A bitmap moves by its origin, in whole pixels, its corner kept inside the image.
  const withMask = addObject(doc, 'bitmap', { ...blank, classTitle: 'puddle', bitmap: { origin: [5, 5], data: 'eJx' }, points: { exterior: [], interior: [] } });
  assert.deepEqual(moveObject(withMask, 3, 10.4, -20).objects[2]!.bitmap!.origin, [15, 0]);
  assert.equal(moveObject(withMask, 3, -5, -5).objects[2]!.bitmap!.origin.join(), '0,0');
});

test('holes are cut into polygons only, need 3 points, and can be removed', () => {
  let doc = fromAnnotation(ANNOTATION);
  doc = addHole(doc, 1, 'polygon', [[30, 15], [45, 15], [45, 30]]);
  assert.equal(doc.objects[0]!.points.interior.length, 1);
  refused(() => addHole(doc, 1, 'polygon', [[30, 15], [45, 15]]), /hole needs at least 3/);
  refused(() => addHole(doc, 2, 'line', [[1, 1], [2, 2], [3, 1]]), /only a polygon/);
  refused(() => removeVertex(doc, 1, 'polygon', 0, 0), /hole needs at least 3/);
  doc = removeHole(doc, 1, 0);
  assert.deepEqual(doc.objects[0]!.points.interior, []);
});

test('a class changes to another of the same shape only; tags toggle in the project’s order', () => {
  const doc = fromAnnotation(ANNOTATION);
  assert.equal(setClass(doc, 1, 'bus', shapeOf).objects[0]!.classTitle, 'bus');
  refused(() => setClass(doc, 1, 'lane', shapeOf), /polygon cannot become a line/);
  refused(() => setClass(doc, 1, 'tree', shapeOf), /no class/);
  assert.deepEqual(toggled(['b'], 'a', ['a', 'b', 'c']), ['a', 'b']);
  assert.deepEqual(toggled(['a', 'b'], 'a', ['a', 'b', 'c']), ['b']);
  assert.deepEqual(setObjectTags(doc, 2, ['wet']).objects[1]!.tags, ['wet']);
});

test('undo and redo walk every change since the start; a new change drops what could be redone', () => {
  const start = fromAnnotation(ANNOTATION);
  let history = startHistory(start);
  const a = removeObject(start, 2);
  history = committed(history, a);
  const b = moveObject(a, 1, 5, 5);
  history = committed(history, b);
  assert.equal(committed(history, b), history, 'an edit that changes nothing is not a step');
  history = undone(undone(history));
  assert.equal(history.present, start);
  assert.equal(undone(history), history);
  history = redone(history);
  assert.equal(history.present, a);
  history = committed(history, setClass(a, 1, 'bus', shapeOf));
  assert.deepEqual(history.future, []);
  assert.equal(redone(history), history);
  assert.equal(history.past.length, 2);
});

test('tag values: set on a tag the object or image carries, gone with the tag, sent whole in the body', () => {
  const doc = fromAnnotation({ ...ANNOTATION, tags: ['weather'], tagValues: { weather: 'rain' }, objects: [{ ...ANNOTATION.objects[0]!, tags: ['pose'], tagValues: { pose: 'Unspecified' } }] });
  assert.deepEqual(doc.objects[0]!.tagValues, { pose: 'Unspecified' });
  assert.throws(() => setObjectTagValue(doc, 1, 'speed', 3), EditRefused);
  const tagged = setObjectTagValue(setObjectTags(doc, 1, ['pose', 'speed']), 1, 'speed', 3);
  assert.deepEqual(toAnnotationBody(tagged).body.objects[0]!.tagValues, { pose: 'Unspecified', speed: 3 });
  // Cleared: the body says so by leaving it out.
  assert.deepEqual(toAnnotationBody(setObjectTagValue(tagged, 1, 'pose', null)).body.objects[0]!.tagValues, { speed: 3 });
  // A tag taken off takes its value with it.
  assert.deepEqual(setObjectTags(tagged, 1, ['speed']).objects[0]!.tagValues, { speed: 3 });
  assert.equal(setObjectTagValue(tagged, 1, 'speed', 3), tagged);
  assert.deepEqual(toAnnotationBody(setImageTagValue(doc, 'weather', 'sun')).body.tagValues, { weather: 'sun' });
  assert.deepEqual(toAnnotationBody(setImageTags(doc, [])).body.tagValues, {});
});
