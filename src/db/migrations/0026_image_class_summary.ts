// What the statistics page and the combined filters read instead of every image's objects: one row
// per image and class of its objects (image_classes: how many, the extremes of their boxes, and small
// fixed histograms of box area, aspect and centre; see src/formats/object-summary.ts), and each
// image's object count on the image row. Both are written in the transaction of every write of an
// image's objects (src/repositories/image-summary.repository.ts). One row per object was tried and
// cost the import more than half its speed; an image holds few classes, so this is a row or three.
import type { Kysely } from 'kysely';
import { AREA_COLUMNS, ASPECT_COLUMNS, GRID_COLUMNS } from '../../formats/object-summary.ts';
import { backfillImageSummaries } from '../../repositories/image-summary.repository.ts';
import { isPostgres } from '../dialect.ts';
import type { Database } from '../types.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const schema = db.schema;
  await schema.alterTable('images').addColumn('object_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  let table = schema
    .createTable('image_classes')
    .addColumn('image_id', 'integer', (c) => c.notNull().references('images.id').onDelete('cascade'))
    .addColumn('class_id', 'integer', (c) => c.notNull().references('classes.id').onDelete('cascade'))
    // Copied from the image so one index answers a whole project's statistics.
    .addColumn('project_id', 'integer', (c) => c.notNull())
    .addColumn('objects', 'integer', (c) => c.notNull())
    .addColumn('min_area', 'bigint', (c) => c.notNull())
    .addColumn('max_area', 'bigint', (c) => c.notNull())
    .addColumn('min_side', 'integer', (c) => c.notNull())
    .addColumn('max_side', 'integer', (c) => c.notNull());
  for (const column of [...AREA_COLUMNS, ...ASPECT_COLUMNS, ...GRID_COLUMNS]) table = table.addColumn(column, 'integer', (c) => c.notNull().defaultTo(0));
  await table.addPrimaryKeyConstraint('image_classes_pk', ['image_id', 'class_id']).execute();
  await schema.createIndex('image_classes_class_idx').on('image_classes').columns(['class_id', 'image_id']).execute();
  await schema.createIndex('image_classes_project_idx').on('image_classes').columns(['project_id', 'class_id']).execute();
  // The lists by object count, and the object count filter on a list by id.
  await schema.createIndex('images_project_objects_idx').on('images').columns(['project_id', 'object_count', 'id']).execute();
  await schema.createIndex('images_dataset_objects_idx').on('images').columns(['dataset_id', 'object_count', 'id']).execute();
  await backfillImageSummaries(db as unknown as Kysely<Database>);
  if (isPostgres(db)) await notifyChangesOf(db, 'image_classes');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('images_dataset_objects_idx').execute();
  await db.schema.dropIndex('images_project_objects_idx').execute();
  await db.schema.dropTable('image_classes').execute();
  await db.schema.alterTable('images').dropColumn('object_count').execute();
}
