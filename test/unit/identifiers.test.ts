// The checks every client-given hash and import path passes.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { isSafeRelativePath, isValidHash } from '../../src/services/identifiers.ts';

test('a hash is the canonical base64 of 32 bytes', () => {
  for (let i = 0; i < 200; i += 1) assert.equal(isValidHash(createHash('sha256').update(String(i)).digest('base64')), true);
  const good = createHash('sha256').update('x').digest('base64');
  const lastIndex = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.indexOf(good[42]!);
  const sloppy = good.slice(0, 42) + 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[lastIndex + 1] + '=';
  assert.equal(Buffer.from(sloppy, 'base64').equals(Buffer.from(good, 'base64')), true, 'decodes to the same bytes');
  assert.equal(isValidHash(sloppy), false, 'but is not the canonical spelling');
  for (const bad of ['', 'abc', good.slice(0, 43), `${good}=`, good.replace('=', 'A'), good.replaceAll('+', '-').replaceAll('/', '_'), ` ${good.slice(1)}`, 42, null]) {
    assert.equal(isValidHash(bad), false, String(bad));
  }
});

test('import paths are relative, normalised and plain', () => {
  for (const ok of ['meta.json', 'ds/img/a.png', 'a weird name.with.dots.jpg', 'ds/ann/a.png.json']) assert.equal(isSafeRelativePath(ok), true, ok);
  for (const bad of ['', '/etc/passwd', '../x', 'a/../b', 'a/./b', './a', 'a//b', 'a/', 'a\\b', 'a\u0000b', 'a\nb', 'x'.repeat(1025)]) {
    assert.equal(isSafeRelativePath(bad), false, JSON.stringify(bad));
  }
});
