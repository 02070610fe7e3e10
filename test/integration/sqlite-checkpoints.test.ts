// Checkpoints from a thread while bulk writes are held on SQLite: the log keeps being copied into the
// database file and started anew while the writer goes on, without the writer's connection doing it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { createDb } from '../../src/db/create-db.ts';
import { BULK_CACHE_KIB, type BulkCheckpoints, type BulkWriteHolds, DEFAULT_CHECKPOINT_PAGES, bulkWriteHolds } from '../../src/db/sqlite-checkpoints.ts';
import { sqliteFile } from '../../src/db/sqlite-file.ts';
import { copyAndRestart } from '../../src/db/sqlite-log-restart.ts';
import { tempDir } from '../helpers/dialects.ts';

/** The restart length of most tests: 100 pages of 4 KiB. */
const RESTART_PAGES = 100;
const RESTART_BYTES = RESTART_PAGES * 4096;

/** Waits for `check`; the limit is for a machine so busy that the checkpoint thread takes seconds to start or end. */
async function until(check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`not so after ${timeoutMs} ms`);
    await sleep(20);
  }
}

describe('SQLite checkpoints during bulk writes', () => {
  let dir: string;
  let file: string;
  let connection: SQLite.Database;
  /** The holds a test made, whose threads end before the folder goes. */
  let made: BulkWriteHolds[] = [];

  /** The holding function of new holds on `connection`. */
  const holdsOn = (database: string, settings: BulkCheckpoints): (() => () => void) => {
    const holds = bulkWriteHolds(connection, database, settings);
    made.push(holds);
    return holds.hold;
  };

  beforeEach(() => {
    dir = tempDir('checkpoints');
    file = path.join(dir, 'db.sqlite');
    connection = new SQLite(file);
    connection.pragma('journal_mode = WAL');
    connection.pragma('synchronous = NORMAL');
    connection.pragma(`wal_autocheckpoint = ${DEFAULT_CHECKPOINT_PAGES}`);
    connection.exec('create table rows (id integer primary key, body text not null)');
  });

  afterEach(async () => {
    await Promise.all(made.map((holds) => holds.close()));
    made = [];
    connection.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const autocheckpoint = () => connection.pragma('wal_autocheckpoint', { simple: true }) as number;
  const cacheSize = () => connection.pragma('cache_size', { simple: true }) as number;

  test('the log is copied and restarted by the thread, and the connection checkpoints itself again after', async () => {
    const hold = holdsOn(file, { restartBytes: RESTART_BYTES, pauseMs: 5 });
    const release = hold();
    assert.equal(autocheckpoint(), 0, 'the writer does not checkpoint while bulk writes are held');
    const insert = connection.prepare('insert into rows (body) values (?)');
    const body = 'x'.repeat(12_000); // about three pages of 4 KiB
    const started = Date.now();
    let written = 0;
    // The thread truncates the log's file when it starts the log anew, and nothing else shortens it.
    let restarts = 0;
    const walBytes = () => fs.statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    let logBytes = walBytes();
    // Transactions of about 12 pages, for a second at least, until 20 times the restart length and
    // until the log has been started anew three times: on a busy machine the thread may take seconds
    // to start, and the writer goes on until it has.
    while (Date.now() - started < 1000 || written < 20 * RESTART_PAGES || restarts < 3) {
      if (Date.now() - started > 60_000) assert.fail(`the log was started anew ${restarts} times in a minute of ${written} pages written: it was not restarted`);
      connection.transaction(() => {
        for (let i = 0; i < 4; i += 1) insert.run(body);
      })();
      written += 12;
      const bytes = walBytes();
      if (bytes < logBytes) restarts += 1;
      logBytes = bytes;
      await sleep(1);
    }
    release();
    // Once the thread has copied the rest and ended, the connection checkpoints itself again.
    await until(() => autocheckpoint() === DEFAULT_CHECKPOINT_PAGES);
    assert.equal(connection.prepare('select count(*) from rows').pluck().get(), (written / 12) * 4);
  });

  test('a log shorter than the restart length is left to grow while bulk writes are held, and copied after', async () => {
    const size = (name: string) => fs.statSync(name, { throwIfNoEntry: false })?.size ?? 0;
    const before = size(file);
    const hold = holdsOn(file, { restartBytes: 64 * 1024 * 1024, pauseMs: 5 });
    const release = hold();
    try {
      const insert = connection.prepare('insert into rows (body) values (?)');
      // Transactions of about 12 pages of 4 KiB, for a second and more: time for the thread to start
      // and look at the log many times.
      const started = Date.now();
      let written = 0;
      while (Date.now() - started < 1000) {
        connection.transaction(() => {
          for (let k = 0; k < 4; k += 1) insert.run('y'.repeat(12_000));
        })();
        written += 12;
        await sleep(20);
      }
      assert.equal(size(file), before, 'nothing was copied into the database file');
      assert.ok(size(`${file}-wal`) > written * 4096, 'the log holds it all');
      release();
      await until(() => autocheckpoint() === DEFAULT_CHECKPOINT_PAGES);
      assert.ok(size(file) >= before + written * 4096, `the database file holds the rows once the thread ended (${size(file)} bytes)`);
    } finally {
      release();
    }
  });

  test("a log the holds let grow long is cut back to the database's limit once it starts anew", async () => {
    const db = await createDb(loadConfig({}, { dataDir: dir }), { bulkCheckpoints: { restartBytes: 1024 * 1024 * 1024, pauseMs: 5 } });
    const log = path.join(dir, 'annostore.sqlite-wal');
    const checkpointsItself = async () => (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db.kysely)).rows[0]!.wal_autocheckpoint > 0;
    try {
      await sql`create table notes (id integer primary key, body text not null)`.execute(db.kysely);
      const release = db.holdBulkWrites();
      const body = 'z'.repeat(1 << 20);
      try {
        // 80 MB, past the database's limit of 64 MiB for the log's file.
        for (let i = 0; i < 8; i += 1) {
          await db.kysely.transaction().execute(async (trx) => {
            for (let k = 0; k < 10; k += 1) await sql`insert into notes (body) values (${body})`.execute(trx);
          });
        }
        const grown = fs.statSync(log).size;
        assert.ok(grown > 80e6, `the log grew to ${grown} bytes`);
      } finally {
        release();
      }
      // Once the thread has copied it all and ended, a transaction starts the log anew, and SQLite
      // cuts its file back.
      const deadline = Date.now() + 60_000;
      while (!(await checkpointsItself()) || fs.statSync(log).size > 64 * 1024 * 1024) {
        if (Date.now() > deadline) assert.fail(`the log's file still has ${fs.statSync(log).size} bytes`);
        await sql`insert into notes (body) values ('after')`.execute(db.kysely);
        await sleep(20);
      }
      const { rows } = await sql<{ n: number }>`select count(*) as n from notes where body = ${body}`.execute(db.kysely);
      assert.equal(rows[0]!.n, 80);
    } finally {
      await db.close();
    }
  });

  test('the writer keeps more pages in memory while any hold lasts, and gives them back after the last', async () => {
    connection.pragma('cache_size = -3000');
    const hold = holdsOn(file, { restartBytes: RESTART_BYTES, pauseMs: 5 });
    const first = hold();
    const second = hold();
    assert.equal(cacheSize(), -BULK_CACHE_KIB);
    first();
    assert.equal(cacheSize(), -BULK_CACHE_KIB, 'one hold is still in place');
    second();
    assert.equal(cacheSize(), -3000);
    await until(() => autocheckpoint() === DEFAULT_CHECKPOINT_PAGES);
  });

  test('statement journals are kept in memory while bulk writes are held, and only then', async () => {
    const tempStore = () => connection.pragma('temp_store', { simple: true }) as number;
    const hold = holdsOn(file, { restartBytes: RESTART_BYTES, pauseMs: 5 });
    const release = hold();
    assert.equal(tempStore(), 2);
    release();
    assert.equal(tempStore(), 0);
    // SQLite refuses the change while the connection's temporary database is in a transaction.
    connection.exec('create temp table scratch (x)');
    connection.exec('begin immediate');
    connection.exec('insert into scratch values (1)');
    const refused = hold();
    assert.equal(tempStore(), 0, 'not changed inside that transaction');
    connection.prepare('insert into rows (body) values (?)').run('x');
    connection.exec('commit');
    refused();
    assert.equal(tempStore(), 0);
    // Released inside such a transaction: put back once it has ended.
    const again = hold();
    assert.equal(tempStore(), 2);
    // (The change closed the temporary database: its tables are gone.)
    connection.exec('create temp table scratch (x)');
    connection.exec('begin immediate');
    connection.exec('insert into scratch values (2)');
    again();
    assert.equal(tempStore(), 2);
    connection.exec('commit');
    await until(() => tempStore() === 0);
    assert.equal(connection.prepare('select count(*) from rows').pluck().get(), 1);
    await until(() => autocheckpoint() === DEFAULT_CHECKPOINT_PAGES);
  });

  test("the database's transactions that read before they write are not refused while the log is restarted", async () => {
    const db = await createDb(loadConfig({}, { dataDir: dir }), { bulkCheckpoints: { restartBytes: 1, pauseMs: 1 } });
    try {
      await sql`create table notes (id integer primary key, body text not null)`.execute(db.kysely);
      const release = db.holdBulkWrites();
      try {
        // Each transaction reads, lets the checkpoint thread run, then writes. Begun plainly, one that
        // found a restart holding the write lock at its first write failed at once.
        for (let i = 0; i < 200; i += 1) {
          await db.kysely.transaction().execute(async (trx) => {
            await sql`select count(*) from notes`.execute(trx);
            await sleep(1);
            await sql`insert into notes (body) values (${'x'.repeat(20_000)})`.execute(trx);
          });
        }
      } finally {
        release();
      }
      const { rows } = await sql<{ n: number }>`select count(*) as n from notes`.execute(db.kysely);
      assert.equal(rows[0]!.n, 200);
    } finally {
      await db.close();
    }
  });

  test('closing the database ends its checkpoint thread first: the log is copied and removed, and nothing holds the folder', async () => {
    const db = await createDb(loadConfig({}, { dataDir: dir }), { bulkCheckpoints: { restartBytes: RESTART_BYTES, pauseMs: 5 } });
    const database = sqliteFile(dir);
    await sql`create table notes (id integer primary key, body text not null)`.execute(db.kysely);
    // Closed while an import still holds bulk writes, and so while the thread runs: it has started the
    // log anew at least once (its file got shorter) before the close.
    db.holdBulkWrites();
    const walBytes = () => fs.statSync(`${database}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    let written = 0;
    let logBytes = walBytes();
    for (let restarted = false; !restarted; written += 1) {
      await sql`insert into notes (body) values (${'x'.repeat(20_000)})`.execute(db.kysely);
      const bytes = walBytes();
      restarted = bytes < logBytes;
      logBytes = bytes;
      if (written > 20_000) assert.fail('the thread never started the log anew');
      await sleep(1);
    }
    await db.close();
    assert.equal(fs.existsSync(`${database}-wal`), false, 'the last connection closed has copied the log and removed it');
    const reopened = new SQLite(database);
    assert.equal(reopened.prepare('select count(*) from notes').pluck().get(), written);
    reopened.close();
  });

  test('the log is started anew only once little of it is left to copy: a truncation holds every writer back while it copies', () => {
    const walBytes = () => fs.statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    connection.pragma('wal_autocheckpoint = 0');
    const insert = connection.prepare('insert into rows (body) values (?)');
    const write = (pages: number) => connection.transaction(() => {
      for (let i = 0; i < pages / 3; i += 1) insert.run('x'.repeat(12_000));
    })();
    const copier = new SQLite(file);
    // A reader that stays in a snapshot taken before 2,000 pages were written: none of them can be
    // copied, so the log is left as it is, and no writer is held back meanwhile.
    const reader = new SQLite(file);
    try {
      reader.exec('begin');
      reader.prepare('select count(*) from rows').get();
      write(2000);
      const long = walBytes();
      assert.equal(copyAndRestart(copier), false);
      assert.equal(walBytes(), long, 'the log was not started anew');
      // Once the reader has left, all is copied without holding the writer back, then the log restarts.
      reader.exec('commit');
      assert.equal(copyAndRestart(copier), true);
      assert.equal(walBytes(), 0);
      assert.equal(connection.prepare('select count(*) from rows').pluck().get(), Math.ceil(2000 / 3));
    } finally {
      reader.close();
      copier.close();
    }
  });

  test('a thread that cannot run leaves the checkpoints to the connection, in its usual steps', async () => {
    const before = cacheSize();
    const hold = holdsOn(path.join(dir, 'missing', 'db.sqlite'), { restartBytes: RESTART_BYTES, pauseMs: 5 });
    const release = hold();
    await until(() => autocheckpoint() === DEFAULT_CHECKPOINT_PAGES);
    release();
    await until(() => autocheckpoint() === DEFAULT_CHECKPOINT_PAGES);
    assert.equal(cacheSize(), before, 'the cache is given back too');
  });
});
