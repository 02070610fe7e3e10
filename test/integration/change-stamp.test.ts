// What lets answers be kept: SQLite's change stamp (this connection's writes, other connections'
// commits, open transactions) and the cache that keeps values at one stamp. On a real database file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { SqliteChangeStamp } from '../../src/db/sqlite-changes.ts';
import { StampedCache } from '../../src/db/stamped-cache.ts';
import { tempDir } from '../helpers/dialects.ts';

describe('SqliteChangeStamp', () => {
  let dir: string;
  let mine: SQLite.Database;
  let theirs: SQLite.Database;
  let stamp: SqliteChangeStamp;

  before(() => {
    dir = tempDir('stamp');
    const file = path.join(dir, 'db.sqlite');
    mine = new SQLite(file);
    mine.pragma('journal_mode = WAL');
    mine.exec('create table t (x integer)');
    theirs = new SQLite(file);
    stamp = new SqliteChangeStamp(mine);
  });
  after(() => {
    mine?.close();
    theirs?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('stays the same while nothing changes, reads included', async () => {
    const first = stamp.current();
    mine.prepare('select count(*) from t').get();
    theirs.prepare('select count(*) from t').get();
    await sleep(3);
    assert.equal(stamp.current(), first);
  });

  test('goes up at once when this connection changes rows', () => {
    const first = stamp.current()!;
    mine.prepare('insert into t values (1)').run();
    assert.ok(stamp.current()! > first);
  });

  test('goes up once another connection commits, within a millisecond', async () => {
    const first = stamp.current()!;
    theirs.prepare('insert into t values (2)').run();
    await sleep(2);
    assert.ok(stamp.current()! > first);
  });

  test('is undefined while a transaction of this connection is open, and moves after it', () => {
    const first = stamp.current()!;
    mine.exec('begin');
    mine.prepare('insert into t values (3)').run();
    assert.equal(stamp.current(), undefined);
    mine.exec('rollback');
    // A rolled-back write may still count as a change: keeping less is harmless, keeping stale is not.
    assert.ok(stamp.current()! >= first);
    const afterRollback = stamp.current()!;
    mine.exec('begin');
    mine.prepare('insert into t values (4)').run();
    mine.exec('commit');
    assert.ok(stamp.current()! > afterRollback);
  });
});

describe('StampedCache', () => {
  test('answers a value only at the stamp it was read at', () => {
    const cache = new StampedCache<string>(10);
    assert.equal(cache.get(1, 'k'), undefined);
    cache.set(1, 'k', 'one');
    assert.equal(cache.get(1, 'k'), 'one');
    assert.equal(cache.get(undefined, 'k'), undefined);
    assert.equal(cache.get(2, 'k'), undefined);
    cache.set(2, 'k', 'two');
    // A request that began before the change finds nothing and leaves the newer value be.
    assert.equal(cache.get(1, 'k'), undefined);
    assert.equal(cache.get(2, 'k'), 'two');
  });

  test('does not keep a value read across a change', () => {
    const cache = new StampedCache<string>(10);
    assert.equal(cache.get(1, 'k'), undefined);
    assert.equal(cache.get(2, 'other'), undefined); // another request saw the change meanwhile
    cache.set(1, 'k', 'stale');
    assert.equal(cache.get(2, 'k'), undefined);
    cache.set(undefined, 'k', 'unknowable');
    assert.equal(cache.get(2, 'k'), undefined);
  });

  test('holds at most its size, the oldest going first', () => {
    const cache = new StampedCache<number>(2);
    cache.get(1, 'a');
    cache.set(1, 'a', 1);
    cache.set(1, 'b', 2);
    cache.set(1, 'b', 3); // a new value for a kept key evicts nothing
    assert.equal(cache.get(1, 'a'), 1);
    cache.set(1, 'c', 4);
    assert.equal(cache.get(1, 'a'), undefined);
    assert.deepEqual([cache.get(1, 'b'), cache.get(1, 'c')], [3, 4]);
  });
});
