// The editor's geometry: points kept inside the image, rectangles in the stored form, vertices
// inserted and removed, and what lies under the pointer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  boundedMove,
  boxOf,
  clampPoint,
  insideRing,
  nearestEdge,
  nearestVertex,
  rectangleOf,
  rectangleWithCorner,
  touches,
  withVertexInserted,
  withVertexRemoved,
} from '../../web/editor/geometry.ts';

const SIZE = { width: 100, height: 50 };

test('a point outside the image is moved to its nearest edge; fractions keep 2 decimals', () => {
  assert.deepEqual(clampPoint([-5, 20], SIZE), [0, 20]);
  assert.deepEqual(clampPoint([150, 60], SIZE), [100, 50]);
  assert.deepEqual(clampPoint([10.123456, 7.891], SIZE), [10.12, 7.89]);
});

test('a rectangle drawn from any corner is stored as [[left, top], [right, bottom]], inside the image', () => {
  assert.deepEqual(rectangleOf([80, 40], [20, 10], SIZE), [[20, 10], [80, 40]]);
  assert.deepEqual(rectangleOf([-10, 60], [20, 10], SIZE), [[0, 10], [20, 50]]);
  // Dragging the top-left corner past the bottom-right one flips it, still stored left-top first.
  assert.deepEqual(rectangleWithCorner([[20, 10], [80, 40]], 0, [90, 45], SIZE), [[80, 40], [90, 45]]);
  assert.deepEqual(rectangleWithCorner([[20, 10], [80, 40]], 1, [70, 5], SIZE), [[20, 5], [70, 40]]);
});

test('a move is shortened so the whole shape stays inside the image', () => {
  const box = boxOf([[10, 10], [30, 20]]);
  assert.deepEqual(boundedMove(box, -50, 5, SIZE), [-10, 5]);
  assert.deepEqual(boundedMove(box, 100, 100, SIZE), [70, 30]);
});

test('vertices are inserted before an index and removed down to a minimum, never below', () => {
  const triangle: [number, number][] = [[0, 0], [10, 0], [0, 10]];
  assert.deepEqual(withVertexInserted(triangle, 1, [5, -1]), [[0, 0], [5, -1], [10, 0], [0, 10]]);
  assert.deepEqual(withVertexInserted(triangle, 3, [1, 1]), [...triangle, [1, 1]]);
  assert.equal(withVertexRemoved(triangle, 0, 3), null);
  assert.deepEqual(withVertexRemoved([...triangle, [1, 1]], 0, 3), [[10, 0], [0, 10], [1, 1]]);
  assert.equal(withVertexRemoved(triangle, 7, 2), null);
});

test('the nearest edge of a closed ring includes the edge back to the first point', () => {
  const square: [number, number][] = [[0, 0], [10, 0], [10, 10], [0, 10]];
  assert.deepEqual(nearestEdge(square, [5, 1], true, 2), { at: 1, point: [5, 0], distance: 1 });
  assert.equal(nearestEdge(square, [1, 5], true, 2)?.at, 4);
  assert.equal(nearestEdge(square, [1, 5], false, 2), null);
  assert.equal(nearestEdge(square, [5, 5], true, 2), null);
  assert.equal(nearestVertex(square, [9, 9.5], 2), 2);
  assert.equal(nearestVertex(square, [5, 5], 2), -1);
});

test('hit testing follows each shape: polygons without their holes, lines and points within a tolerance', () => {
  const exterior: [number, number][] = [[0, 0], [20, 0], [20, 20], [0, 20]];
  const hole: [number, number][] = [[5, 5], [15, 5], [15, 15], [5, 15]];
  assert.equal(insideRing(exterior, [10, 10]), true);
  assert.equal(touches('polygon', { exterior, interior: [hole] }, [10, 10], 1), false);
  assert.equal(touches('polygon', { exterior, interior: [hole] }, [2, 10], 1), true);
  assert.equal(touches('line', { exterior: [[0, 0], [10, 0]], interior: [] }, [5, 0.8], 1), true);
  assert.equal(touches('line', { exterior: [[0, 0], [10, 0]], interior: [] }, [5, 3], 1), false);
  assert.equal(touches('point', { exterior: [[4, 4]], interior: [] }, [5, 5], 2), true);
  assert.equal(touches('rectangle', { exterior: [[1, 1], [5, 5]], interior: [] }, [6, 3], 0), false);
});
