// Cursors and entity tags, the pieces every v2 list and change builds on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { decodeCursor, encodeCursor, isIdKey, isNameIdKey, pageOf } from '../../src/http/v2/cursor.ts';
import { checkIfMatch, entityTag, ifMatchAdmits } from '../../src/services/preconditions.ts';

test('a cursor gives back the key it was made of, and refuses what no list made', () => {
  assert.equal(decodeCursor(encodeCursor(42), isIdKey), 42);
  assert.deepEqual(decodeCursor(encodeCursor(['b.png', 7]), isNameIdKey), ['b.png', 7]);
  assert.equal(decodeCursor(undefined, isIdKey), undefined);
  for (const junk of ['!!!', encodeCursor('42'), encodeCursor(-1), encodeCursor(['a']), Buffer.from('{').toString('base64url')]) {
    assert.throws(
      () => decodeCursor(junk, isIdKey),
      (error: unknown) => error instanceof AppError && error.code === 'VALIDATION' && error.details.pointer === '/cursor',
    );
  }
});

test('a page of limit + 1 rows has a next cursor after its last item; a shorter one has none', () => {
  const rows = [{ id: 1 }, { id: 2 }, { id: 3 }];
  const page = pageOf(rows, 2, (row) => row.id);
  assert.deepEqual(page.items, [{ id: 1 }, { id: 2 }]);
  assert.equal(decodeCursor(page.nextCursor!, isIdKey), 2);
  assert.deepEqual(pageOf(rows, 3, (row) => row.id), { items: rows, nextCursor: null });
});

test('an entity tag follows the representation; If-Match admits it, a list with it, or *', () => {
  const tag = entityTag({ id: 1, title: 'a' });
  assert.match(tag, /^"[A-Za-z0-9_-]{27}"$/);
  assert.equal(entityTag({ id: 1, title: 'a' }), tag);
  assert.notEqual(entityTag({ id: 1, title: 'b' }), tag);
  assert.ok(ifMatchAdmits(tag, tag));
  assert.ok(ifMatchAdmits(`"other", ${tag}`, tag));
  assert.ok(ifMatchAdmits('*', tag));
  assert.ok(!ifMatchAdmits(`W/${tag}`, tag), 'If-Match compares strongly');
  assert.ok(!ifMatchAdmits('"other"', tag));
  assert.doesNotThrow(() => checkIfMatch({ id: 1, title: 'a' }, undefined));
  assert.doesNotThrow(() => checkIfMatch({ id: 1, title: 'a' }, tag));
  assert.throws(
    () => checkIfMatch({ id: 1, title: 'b' }, tag),
    (error: unknown) => error instanceof AppError && error.status === 412 && error.details.etag === entityTag({ id: 1, title: 'b' }),
  );
});
