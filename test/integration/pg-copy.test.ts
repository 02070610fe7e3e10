// What PostgreSQL pages rest on: rows read as raw bytes through a binary COPY, and the snapshot as a
// version of the database that stays put while nothing is written and moves with any commit. On the
// real server, in a schema of its own.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Config } from '../../src/config.ts';
import { type Db, createDb } from '../../src/db/create-db.ts';
import { BinaryCopyReader } from '../../src/db/pg-copy.ts';
import { currentSnapshot, inSnapshot } from '../../src/db/pg-snapshot.ts';
import { dialects } from '../helpers/dialects.ts';

const postgres = dialects.find((d) => d.name === 'postgres')!;

describe('PostgreSQL binary COPY and snapshots', { skip: postgres.skip }, () => {
  let config: Config;
  let db: Db;
  let other: Db;

  before(async () => {
    config = postgres.emptyConfig();
    db = await createDb(config);
    other = await createDb(config);
    await sql`create table t (id integer primary key, body text)`.execute(db.kysely);
  });
  after(async () => {
    await other?.close();
    await db?.close();
    if (config) await postgres.cleanup(config);
  });

  /** The rows of `query` through a binary COPY: an integer and a text field each. */
  const copyRows = async (query: ReturnType<typeof sql>) => {
    const reader = new BinaryCopyReader(await db.copyOut!(sql`copy (${query}) to stdout (format binary)`.compile(db.kysely)));
    const rows: [number, string | null][] = [];
    while (reader.nextTuple() !== null) rows.push([reader.intField(), reader.textField()]);
    return rows;
  };

  test('reads each field as its bytes and NULL as null, across any number of chunks', async () => {
    const big = 'é☃🚗 "quoted" \\ \n'.repeat(20_000); // several hundred KB: many socket reads
    const bodies = ['', 'plain', big, null];
    for (const [i, body] of bodies.entries()) await sql`insert into t values (${i + 1}, ${body})`.execute(other.kysely);
    assert.deepEqual(await copyRows(sql`select id, body from t order by id`), bodies.map((body, i) => [i + 1, body]));
  });

  test('an empty result is no rows', async () => {
    assert.deepEqual(await copyRows(sql`select id, body from t where false`), []);
  });

  test('a failing statement rejects with the database error and leaves the pool usable', async () => {
    await assert.rejects(copyRows(sql`select id, body from missing_table`), /missing_table/);
    await assert.rejects(db.copyOut!(sql`copy (select ${1}) to stdout (format binary)`.compile(db.kysely)), /no parameters/);
    assert.deepEqual(await copyRows(sql`select count(*)::int, 'still here' from t`), [[4, 'still here']]);
  });

  test('the snapshot stays put through reads and moves with a commit from another connection', async () => {
    // Other databases on the same server may commit at any time; a quiet moment comes soon.
    let quiet = false;
    for (let attempt = 0; attempt < 20 && !quiet; attempt += 1) {
      const before = await currentSnapshot(db.kysely);
      await sql`select count(*) from t`.execute(db.kysely);
      await sql`select count(*) from t`.execute(other.kysely);
      quiet = (await currentSnapshot(db.kysely)) === before;
    }
    assert.ok(quiet, 'reads alone changed the snapshot');

    const before = await currentSnapshot(db.kysely);
    await sql`update t set body = 'changed' where id = 2`.execute(other.kysely);
    assert.notEqual(await currentSnapshot(db.kysely), before);
  });

  test('a statement can tell whether it runs in a given snapshot', async () => {
    const inIt = async (snapshot: string) => (await sql<{ same: boolean }>`select ${inSnapshot(snapshot)} as same`.execute(db.kysely)).rows[0]!.same;
    let snapshot = await currentSnapshot(db.kysely);
    // Retried like above in case another database commits in between.
    for (let attempt = 0; attempt < 20 && !(await inIt(snapshot)); attempt += 1) snapshot = await currentSnapshot(db.kysely);
    assert.equal(await inIt(snapshot), true);
    await sql`update t set body = 'again' where id = 2`.execute(other.kysely);
    assert.equal(await inIt(snapshot), false);
    assert.throws(() => inSnapshot("1:2:'; drop table t; --"), /not a PostgreSQL snapshot/);
  });
});
