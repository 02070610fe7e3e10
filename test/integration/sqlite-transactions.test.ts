// Two processes on one SQLite database (`annostore serve` and `annostore worker`, or a CLI call): a
// transaction that reads before it writes must wait for the other's write lock, not fail.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { type Config, loadConfig } from '../../src/config.ts';
import { type Db, createDb } from '../../src/db/create-db.ts';
import { tempDir } from '../helpers/dialects.ts';

/**
 * Another connection, in a thread of its own as another process would be: it takes the write lock,
 * says so, keeps it for `holdMs` and commits.
 */
const HOLDER = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
db.exec('begin immediate');
db.prepare("insert into notes (body) values ('other')").run();
parentPort.postMessage('holding');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
db.exec('commit');
db.close();
`;

describe('SQLite transactions beside another connection', () => {
  let config: Config;
  let db: Db;

  beforeEach(async () => {
    config = loadConfig({}, { dataDir: tempDir('sqlite-transactions') });
    db = await createDb(config);
    await sql`create table notes (id integer primary key, body text not null)`.execute(db.kysely);
  });

  afterEach(async () => {
    await db.close();
  });

  test('a transaction that reads, then writes, waits for the other connection to commit', async () => {
    const holder = new Worker(HOLDER, {
      eval: true,
      workerData: { driver: fileURLToPath(import.meta.resolve('better-sqlite3')), file: path.join(config.dataDir, 'annostore.sqlite'), holdMs: 200 },
    });
    const [message] = (await once(holder, 'message')) as [string];
    assert.equal(message, 'holding');
    // Begun plainly, it read, found the lock taken at its insert and failed with SQLITE_BUSY at once.
    await db.kysely.transaction().execute(async (trx) => {
      await sql`select count(*) from notes`.execute(trx);
      await sql`insert into notes (body) values ('ours')`.execute(trx);
    });
    await once(holder, 'exit');
    const { rows } = await sql<{ body: string }>`select body from notes order by id`.execute(db.kysely);
    assert.deepEqual(rows.map((r) => r.body), ['other', 'ours']);
  });
});
