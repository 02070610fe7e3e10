// Revisions of image annotations: who changed an image's annotation, when, and what it was before.
//
// A revision row names the state the annotation had before the change by the hash of a snapshot in
// `annotation_snapshots`; the state after it is the state before the next revision of the image, or
// the image's current annotation for the newest one. So a save stores one compressed copy at most (the
// state it replaced), never two, and equal states (the empty annotation, a state restored) are stored
// once. A new image (an import, a DTL output) has no state before: its revision is a row only, no copy.
// `user_id` names an account once a change is made by one; key and task say what made it otherwise.
import { type Kysely, sql } from 'kysely';
import { isPostgres, notNull, withIdColumn } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const schema = db.schema;
  await schema
    .createTable('annotation_snapshots')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('body', isPostgres(db) ? sql`bytea` : sql`blob`, notNull)
    .addColumn('size', 'integer', notNull)
    .execute();

  await withIdColumn(db, schema.createTable('annotation_revisions'))
    .addColumn('image_id', 'integer', (c) => c.notNull().references('images.id').onDelete('cascade'))
    .addColumn('team_id', 'integer', notNull)
    .addColumn('key_id', 'integer')
    .addColumn('user_id', 'integer')
    .addColumn('task_id', 'integer')
    .addColumn('created_at', 'text', notNull)
    .addColumn('before_hash', 'text')
    .addColumn('added', 'integer', notNull)
    .addColumn('removed', 'integer', notNull)
    .addColumn('changed', 'integer', notNull)
    .execute();
  await schema.createIndex('annotation_revisions_image_idx').on('annotation_revisions').columns(['image_id', 'id']).execute();
  await schema.createIndex('annotation_revisions_created_idx').on('annotation_revisions').column('created_at').execute();
  await schema.createIndex('annotation_revisions_before_idx').on('annotation_revisions').column('before_hash').execute();
  if (isPostgres(db)) for (const table of ['annotation_snapshots', 'annotation_revisions']) await notifyChangesOf(db, table);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('annotation_revisions').execute();
  await db.schema.dropTable('annotation_snapshots').execute();
}
