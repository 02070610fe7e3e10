// Image embeddings for the segment tool: what a Segment Anything-class image encoder makes of an image
// blob, one per (image hash, model), kept in the blob store under the SHA-256 of its bytes (fp16). The
// row is what says an embedding exists; its bytes are written before it.
import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('embeddings')
    .addColumn('hash', 'text', (c) => c.notNull().references('blobs.hash'))
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('embeddings_pk', ['hash', 'model'])
    .execute();
  // The blob sweep asks whether stored bytes are some embedding's before it removes them.
  await db.schema.createIndex('embeddings_key').on('embeddings').column('key').execute();
  if (isPostgres(db)) await notifyChangesOf(db, 'embeddings');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('embeddings').execute();
}
