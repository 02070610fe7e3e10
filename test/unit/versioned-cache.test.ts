// The cache that keeps answers with the version of the database they were read at.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VersionedCache } from '../../src/db/versioned-cache.ts';

test('answers a value only at the version it was read at', () => {
  const cache = new VersionedCache<string>({ maxEntries: 10, maxBytes: 100 });
  assert.equal(cache.get('k', 'v1'), undefined);
  cache.set('k', 'v1', 'one');
  assert.equal(cache.get('k', 'v1'), 'one');
  assert.equal(cache.get('k', 'v2'), undefined);
  assert.equal(cache.get('k', undefined), undefined);
  assert.deepEqual([cache.peek('k')?.version, cache.peek('k')?.value], ['v1', 'one']);
  cache.set('k', 'v2', 'two');
  assert.equal(cache.get('k', 'v1'), undefined);
  assert.equal(cache.get('k', 'v2'), 'two');
});

test('holds at most its count and its bytes, the oldest going first', () => {
  const cache = new VersionedCache<string>({ maxEntries: 3, maxBytes: 10 });
  cache.set('a', 'v', 'a', 4);
  cache.set('b', 'v', 'b', 4);
  cache.set('c', 'v', 'c', 4); // 12 bytes: a goes
  assert.deepEqual(['a', 'b', 'c'].map((k) => cache.get(k, 'v')), [undefined, 'b', 'c']);
  cache.set('b', 'v', 'B', 6); // replacing b frees its 4 bytes first: 10 bytes, nothing else goes
  assert.deepEqual(['b', 'c'].map((k) => cache.get(k, 'v')), ['B', 'c']);
  cache.set('d', 'v', 'd', 0);
  cache.set('e', 'v', 'e', 0); // four entries: the oldest, c, goes
  assert.deepEqual(['b', 'c', 'd', 'e'].map((k) => cache.get(k, 'v')), ['B', undefined, 'd', 'e']);
});

test('does not keep a value heavier than all it may hold, and drops what the key held', () => {
  const cache = new VersionedCache<string>({ maxEntries: 3, maxBytes: 10 });
  cache.set('k', 'v1', 'small', 2);
  cache.set('k', 'v2', 'huge', 11);
  assert.equal(cache.peek('k'), undefined);
  cache.set('other', 'v', 'fits', 10);
  assert.equal(cache.get('other', 'v'), 'fits');
});
