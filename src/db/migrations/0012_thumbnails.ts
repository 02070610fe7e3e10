// Thumbnails of image blobs: WebP files in the blob store, one per (image hash, size), each stored
// under the SHA-256 of its own bytes. The row is what says a thumbnail exists; its bytes are written
// before it. Every image blob also gets a place for its thumbhash (a placeholder of a few dozen bytes,
// base64), made with its 256 px thumbnail: null until then.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('thumbnails')
    .addColumn('hash', 'text', (c) => c.notNull().references('blobs.hash'))
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('thumbnails_pk', ['hash', 'size'])
    .execute();
  // The blob sweep asks whether stored bytes are some thumbnail's before it removes them.
  await db.schema.createIndex('thumbnails_key').on('thumbnails').column('key').execute();
  await db.schema.alterTable('blobs').addColumn('thumbhash', 'text').execute();
  if (isPostgres(db)) await notifyChangesOf(db, 'thumbnails');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('thumbnails').execute();
  await sql`alter table blobs drop column thumbhash`.execute(db);
}
