// Blob facts as an annotation thread asks them of SQLite, beside the connection that writes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { loadConfig } from '../../src/config.ts';
import { createContext } from '../../src/context.ts';
import { SqliteBlobFacts } from '../../src/db/sqlite-blob-facts.ts';
import { tempDir } from '../helpers/dialects.ts';

test('the facts of stored blobs, by hash; a hash not stored is left out', async () => {
  const dir = tempDir('blob-facts');
  const ctx = await createContext(loadConfig({}, { dataDir: dir, databaseUrl: undefined, databaseSchema: undefined, storageUrl: undefined }));
  const facts = new SqliteBlobFacts(dir);
  try {
    const now = new Date().toISOString();
    await ctx.db.kysely
      .insertInto('blobs')
      .values([
        { hash: 'big', size: 2 ** 40, media_type: 'image/png', width: 640, height: 480, created_at: now },
        { hash: 'text', size: 12, media_type: 'application/json', width: null, height: null, created_at: now },
      ])
      .execute();
    assert.deepEqual(
      facts.lookUp(['text', 'missing', 'big', 'text']),
      new Map([
        ['text', { size: 12, width: null, height: null }],
        ['big', { size: 2 ** 40, width: 640, height: 480 }],
      ]),
    );
    assert.deepEqual(facts.lookUp([]), new Map());
  } finally {
    facts.close();
    await ctx.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a data folder without its database, or a database without its tables, is refused', () => {
  const dir = tempDir('blob-facts-empty');
  try {
    assert.throws(() => new SqliteBlobFacts(dir), /unable to open|does not exist/);
    assert.equal(fs.existsSync(path.join(dir, 'annostore.sqlite')), false);
    new SQLite(path.join(dir, 'annostore.sqlite')).close();
    assert.throws(() => new SqliteBlobFacts(dir), /no such table: blobs/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
