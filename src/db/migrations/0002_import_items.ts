// Which items of an import task are committed, written in the same transaction as their image, so a
// resumed task skips exactly those and creates no duplicate.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('import_items')
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('item', 'integer', (c) => c.notNull())
    .addColumn('image_id', 'integer')
    .addPrimaryKeyConstraint('import_items_pk', ['task_id', 'item'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('import_items').execute();
}
