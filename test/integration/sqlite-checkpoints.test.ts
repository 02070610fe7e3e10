// Checkpoints from a thread while bulk writes are held on SQLite: the log keeps being copied into the
// database file and started anew while the writer goes on, without the writer's connection doing it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { DEFAULT_CHECKPOINT_PAGES, bulkWriteHolds } from '../../src/db/sqlite-checkpoints.ts';
import { tempDir } from '../helpers/dialects.ts';

const RESTART_PAGES = 100;

describe('SQLite checkpoints during bulk writes', () => {
  let dir: string;
  let file: string;
  let connection: SQLite.Database;

  beforeEach(() => {
    dir = tempDir('checkpoints');
    file = path.join(dir, 'db.sqlite');
    connection = new SQLite(file);
    connection.pragma('journal_mode = WAL');
    connection.pragma('synchronous = NORMAL');
    connection.pragma(`wal_autocheckpoint = ${DEFAULT_CHECKPOINT_PAGES}`);
    connection.exec('create table rows (id integer primary key, body text not null)');
  });

  afterEach(() => {
    connection.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const autocheckpoint = () => connection.pragma('wal_autocheckpoint', { simple: true }) as number;
  /** Frames in the log since it last started anew (a passive checkpoint answers it, copying them). */
  const framesInLog = () => (connection.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;

  test('the log is copied and restarted by the thread, and the connection checkpoints itself again after', async () => {
    const hold = bulkWriteHolds(connection, file, { restartPages: RESTART_PAGES, pauseMs: 5 });
    const release = hold();
    assert.equal(autocheckpoint(), 0, 'the writer does not checkpoint while bulk writes are held');
    const insert = connection.prepare('insert into rows (body) values (?)');
    const body = 'x'.repeat(12_000); // about three pages of 4 KiB
    const started = Date.now();
    let written = 0;
    // Transactions of about 12 pages, for a second at least and until 20 times the restart length.
    while (Date.now() - started < 1000 || written < 20 * RESTART_PAGES) {
      connection.transaction(() => {
        for (let i = 0; i < 4; i += 1) insert.run(body);
      })();
      written += 12;
      await sleep(1);
    }
    release();
    assert.equal(autocheckpoint(), DEFAULT_CHECKPOINT_PAGES);
    assert.ok(framesInLog() < 5 * RESTART_PAGES, `the log holds ${framesInLog()} frames of about ${written} written: it was not restarted`);
    assert.equal(connection.prepare('select count(*) from rows').pluck().get(), (written / 12) * 4);
  });

  test('a thread that cannot run leaves the checkpoints to the connection, in steps of the restart length', async () => {
    const hold = bulkWriteHolds(connection, path.join(dir, 'missing', 'db.sqlite'), { restartPages: RESTART_PAGES, pauseMs: 5 });
    const release = hold();
    const deadline = Date.now() + 10_000;
    while (autocheckpoint() !== RESTART_PAGES && Date.now() < deadline) await sleep(20);
    assert.equal(autocheckpoint(), RESTART_PAGES);
    release();
    assert.equal(autocheckpoint(), DEFAULT_CHECKPOINT_PAGES);
  });
});
