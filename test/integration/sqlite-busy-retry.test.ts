// A statement outside a transaction, BEGIN IMMEDIATE included, that SQLite refuses as busy is tried
// again after a pause (src/db/sqlite-busy-retry.ts), and the process goes on meanwhile.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { type Db, createDb } from '../../src/db/create-db.ts';
import { REFUSED_AT_ONCE_MS } from '../../src/db/sqlite-busy-retry.ts';
import { sqliteFile } from '../../src/db/sqlite-file.ts';
import { tempDir } from '../helpers/dialects.ts';

describe('SQLite statements refused as busy', () => {
  let dir: string;
  let db: Db;
  /** Another connection to the same file, as another process or the checkpoint thread has. */
  let other: SQLite.Database;

  beforeEach(async () => {
    dir = tempDir('busy-retry');
    db = await createDb(loadConfig({}, { dataDir: dir }));
    await sql`create table notes (id integer primary key, body text not null unique)`.execute(db.kysely);
    // SQLite answers busy at once, as it does in the moments the log is restarted.
    await sql`pragma busy_timeout = 0`.execute(db.kysely);
    other = new SQLite(sqliteFile(dir));
  });

  afterEach(async () => {
    other.close();
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Holds the write lock from the other connection for `ms`. */
  const holdWriteLock = (ms: number) => {
    other.exec('begin immediate');
    setTimeout(() => other.exec('commit'), ms);
  };

  test('a transaction begins once the lock is free, and the process answers meanwhile', async () => {
    holdWriteLock(300);
    const started = Date.now();
    let ticks = 0;
    const ticking = setInterval(() => (ticks += 1), 10);
    try {
      await db.kysely.transaction().execute(async (trx) => {
        await sql`insert into notes (body) values ('in a transaction')`.execute(trx);
      });
    } finally {
      clearInterval(ticking);
    }
    assert.ok(Date.now() - started >= 250, 'it waited for the other connection');
    assert.ok(ticks >= 5, `timers ran while it waited (${ticks})`);
    const { rows } = await sql<{ body: string }>`select body from notes`.execute(db.kysely);
    assert.deepEqual(rows, [{ body: 'in a transaction' }]);
  });

  test('a write outside a transaction is run again once the lock is free', async () => {
    holdWriteLock(200);
    await sql`insert into notes (body) values ('alone')`.execute(db.kysely);
    const { rows } = await sql<{ n: number }>`select count(*) as n from notes where body = 'alone'`.execute(db.kysely);
    assert.equal(rows[0]!.n, 1);
  });

  test('inside a transaction a busy statement fails at once: the transaction is the caller’s to end', async () => {
    const started = Date.now();
    await db.kysely.connection().execute(async (connection) => {
      // Begun plainly, it reads first: its write then finds the other connection's lock.
      await sql`begin`.execute(connection);
      try {
        await sql`select count(*) from notes`.execute(connection);
        other.exec('begin immediate');
        await assert.rejects(sql`insert into notes (body) values ('inside')`.execute(connection), /database is locked/);
      } finally {
        other.exec('rollback');
        await sql`rollback`.execute(connection);
      }
    });
    assert.ok(Date.now() - started < 1000, `refused at once (${Date.now() - started} ms)`);
  });

  test('a try that SQLite made wait out its busy timeout is not tried again: the lock is another process’s, held long', async () => {
    await sql`pragma busy_timeout = ${sql.lit(REFUSED_AT_ONCE_MS + 200)}`.execute(db.kysely);
    other.exec('begin immediate');
    const started = Date.now();
    try {
      await assert.rejects(sql`insert into notes (body) values ('late')`.execute(db.kysely), /database is locked/);
    } finally {
      other.exec('rollback');
    }
    const waited = Date.now() - started;
    assert.ok(waited >= REFUSED_AT_ONCE_MS && waited < 2 * REFUSED_AT_ONCE_MS + 400, `one wait of SQLite's own (${waited} ms)`);
  });

  test('any other failure is answered at once; a write that waited goes in after the other connection rolls back', async () => {
    await sql`insert into notes (body) values ('once')`.execute(db.kysely);
    const started = Date.now();
    await assert.rejects(sql`insert into notes (body) values ('once')`.execute(db.kysely), /UNIQUE constraint failed/);
    assert.ok(Date.now() - started < 1000);
    // While the other connection keeps the lock, nothing is written; what was there stays.
    other.exec('begin immediate');
    other.exec("insert into notes (body) values ('other')");
    const writing = sql`insert into notes (body) values ('waits')`.execute(db.kysely);
    await sleep(100);
    other.exec('rollback');
    await writing;
    const { rows } = await sql<{ body: string }>`select body from notes order by id`.execute(db.kysely);
    assert.deepEqual(rows.map((r) => r.body), ['once', 'waits']);
  });
});
