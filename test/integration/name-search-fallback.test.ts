// A PostgreSQL server that will not create pg_trgm for us (here: a role without CREATE on its
// database) still migrates, and the name search still finds what it should, without the trigram
// index (docs/deploy.md). Run as the test server's superuser, in a database and role of its own.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { type Context, createContext } from '../../src/context.ts';
import { listImageMetadata } from '../../src/repositories/image-metadata.repository.ts';
import { TEST_DATABASE_URL, postgresSkipReason, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';

const NAME = `annostore_notrgm_${process.pid}`;

async function asSuperuser(database: string | null, statements: string[]): Promise<void> {
  const url = new URL(TEST_DATABASE_URL);
  if (database) url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

describe('name search without pg_trgm', { skip: postgresSkipReason ?? false }, () => {
  let ctx: Context;
  before(async () => {
    await asSuperuser(null, [`create database ${NAME}`, `create role ${NAME} login`]);
    // Its tables in `public`, its own; CREATE on the database (needed to create an extension) not given.
    await asSuperuser(NAME, [`alter schema public owner to ${NAME}`]);
    const url = new URL(TEST_DATABASE_URL);
    url.username = NAME;
    url.pathname = `/${NAME}`;
    ctx = await createContext(loadConfig({}, { dataDir: tempDir('notrgm'), databaseUrl: url.toString(), databaseSchema: undefined }));
  });
  after(async () => {
    await ctx?.close();
    await asSuperuser(null, [`drop database if exists ${NAME} with (force)`, `drop role if exists ${NAME}`]);
  });

  test('migrates without the index, and searches all the same', async () => {
    const { rows: extensions } = await sql<{ extname: string }>`select extname from pg_extension where extname = 'pg_trgm'`.execute(ctx.db.kysely);
    assert.deepEqual(extensions, [], 'the role could not create pg_trgm');
    const { rows: indexes } = await sql<{ indexname: string }>`select indexname from pg_indexes where indexname = 'images_name_trgm_idx'`.execute(ctx.db.kysely);
    assert.deepEqual(indexes, []);
    const dataset = await newDataset(ctx, await newProject(ctx));
    for (const name of ['CAFÉ-mp4-1.png', 'café.png', 'cafe.png', '50%.png']) await newImage(ctx, dataset, { name });
    const found = async (text: string) => (await listImageMetadata(ctx.db.kysely, { datasetId: dataset, nameContains: text }, 'name', undefined, 10)).map((i) => i.name);
    assert.deepEqual(await found('café'), ['CAFÉ-mp4-1.png', 'café.png']);
    assert.deepEqual(await found('MP4-1'), ['CAFÉ-mp4-1.png']);
    assert.deepEqual(await found('%'), ['50%.png']);
  });
});
