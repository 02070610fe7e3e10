// Object ids as stored beside an image's objects, and the reader's paths as JSON pointers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pointerOf, stepsOf } from '../../src/services/annotation-input.ts';
import { keptObjectIds, nextObjectIdOf, objectIdsInStep, objectIdsOf, storedObjectIds } from '../../src/services/object-ids.ts';
import { polygon } from '../helpers/factories.ts';

test('an image never edited has ids 1..n and next n + 1, stored as nulls', () => {
  assert.deepEqual(objectIdsOf(null, 3), [1, 2, 3]);
  assert.equal(nextObjectIdOf(null, 3), 4);
  assert.deepEqual(storedObjectIds([1, 2, 3], 4), { objectIds: null, nextObjectId: null });
});

test('once an object is removed or added after one was, the ids and the next id are stored', () => {
  // 3 removed: a new object must not get 3 again, so next stays 4 although only two objects remain.
  assert.deepEqual(storedObjectIds([1, 2], 4), { objectIds: '[1,2]', nextObjectId: 4 });
  assert.deepEqual(storedObjectIds([2, 1], 3), { objectIds: '[2,1]', nextObjectId: 3 });
  assert.deepEqual(objectIdsOf('[1,2]', 2), [1, 2]);
  assert.equal(nextObjectIdOf(4, 2), 4);
});

test('stored ids out of step with the objects are refused, not handed out to the wrong objects', () => {
  assert.throws(() => objectIdsOf('[1,2]', 3), /out of step/);
  assert.equal(objectIdsInStep('[1,2]', 3), null);
});

test('the objects a filter kept keep their ids; a change that makes new objects is refused', () => {
  const objects = [polygon('a', [[0, 0]]), polygon('b', [[0, 0]]), polygon('a', [[1, 1]])];
  assert.deepEqual(keptObjectIds(objects, objects.filter((o) => o.classTitle === 'a'), [4, 7, 9]), [4, 9]);
  assert.deepEqual(keptObjectIds(objects, [], [4, 7, 9]), []);
  assert.throws(() => keptObjectIds(objects, [{ ...objects[0]! }], [4, 7, 9]), /which ids/);
  assert.throws(() => keptObjectIds(objects, [objects[2]!, objects[0]!], [4, 7, 9]), /which ids/);
});

test('a reader path becomes a JSON pointer', () => {
  assert.equal(pointerOf(stepsOf('objects[3].points.exterior[0]')), '/objects/3/points/exterior/0');
  assert.equal(pointerOf(stepsOf('objects[1].points.interior[2][0]')), '/objects/1/points/interior/2/0');
  assert.equal(pointerOf(stepsOf('size.width')), '/size/width');
  assert.equal(pointerOf(stepsOf('')), '');
  assert.equal(pointerOf(['a/b', 'c~d']), '/a~1b/c~0d');
});
