// The gallery's address and its filters: the combined filters by their API names, tagValue among
// them, read from the URL and written back the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { filterFromUrl, filterParams } from '../../web/filters.ts';

test('the combined filters and tagValue round-trip through the URL', () => {
  const query = 'classAny=1,2&classNone=3&tagNone=5&tagValue=5:red,7:blue&minObjects=2&maxObjects=3&boxMaxSide=32&datasetIds=4,6&sort=-objects';
  const filter = filterFromUrl(new URLSearchParams(query), 9);
  assert.deepEqual(filter.tagValue, ['5:red', '7:blue']);
  assert.deepEqual([filter.classAny, filter.classNone, filter.tagNone, filter.datasetIds], [[1, 2], [3], [5], [4, 6]]);
  assert.deepEqual([filter.minObjects, filter.maxObjects, filter.boxMaxSide, filter.sort], [2, 3, 32, '-objects']);
  assert.deepEqual(Object.fromEntries(filterParams(filter)), Object.fromEntries(new URLSearchParams(query)));
  // A value without its tag id is not a tagValue.
  assert.equal(filterFromUrl(new URLSearchParams('tagValue=red,:x'), 9).tagValue, undefined);
});
