// Versions: frozen snapshots of a project that training code reads while the project moves on.
//
// A version holds no image bytes: `version_images` names each image's blob by hash (the blob sweep
// keeps a blob a version names) and copies its annotation as it was (objects, their ids and tag
// values, description) with the image tags in `version_image_tags`. Classes get a stable index in
// `version_classes`: 0 is the background of masks, then 1..N, and a later version of the project
// keeps the index of every class it shares with the one before. Rows of a version are never changed;
// deleting the version deletes them. Image, dataset, class and tag ids are kept as they were, not as
// foreign keys: the project may delete them afterwards, and the version must not notice.
import type { Kysely } from 'kysely';
import { isPostgres, notNull, withIdColumn } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const schema = db.schema;
  await withIdColumn(db, schema.createTable('versions'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', notNull)
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('split', 'text', notNull)
    .addColumn('image_count', 'integer', notNull)
    .addColumn('object_count', 'integer', notNull)
    .addColumn('created_by', 'integer')
    .addColumn('created_at', 'text', notNull)
    .addUniqueConstraint('versions_project_name_unique', ['project_id', 'name'])
    .execute();

  await schema
    .createTable('version_classes')
    .addColumn('version_id', 'integer', (c) => c.notNull().references('versions.id').onDelete('cascade'))
    .addColumn('idx', 'integer', notNull)
    .addColumn('class_id', 'integer', notNull)
    .addColumn('title', 'text', notNull)
    .addColumn('shape', 'text', notNull)
    .addColumn('color', 'text', notNull)
    .addPrimaryKeyConstraint('version_classes_pk', ['version_id', 'idx'])
    .execute();

  await schema
    .createTable('version_tags')
    .addColumn('version_id', 'integer', (c) => c.notNull().references('versions.id').onDelete('cascade'))
    .addColumn('tag_id', 'integer', notNull)
    .addColumn('title', 'text', notNull)
    .addColumn('scope', 'text', notNull)
    .addColumn('value_type', 'text', notNull)
    .addPrimaryKeyConstraint('version_tags_pk', ['version_id', 'tag_id'])
    .execute();

  await schema
    .createTable('version_images')
    .addColumn('version_id', 'integer', (c) => c.notNull().references('versions.id').onDelete('cascade'))
    .addColumn('image_id', 'integer', notNull)
    .addColumn('dataset_id', 'integer', notNull)
    .addColumn('dataset_title', 'text', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('hash', 'text', notNull)
    .addColumn('width', 'integer', notNull)
    .addColumn('height', 'integer', notNull)
    .addColumn('description', 'text', notNull)
    .addColumn('objects_json', 'text', notNull)
    .addColumn('object_ids', 'text')
    .addColumn('object_tag_values', 'text')
    .addColumn('subset', 'text', (c) => c.notNull().defaultTo(''))
    .addPrimaryKeyConstraint('version_images_pk', ['version_id', 'image_id'])
    .execute();
  await schema.createIndex('version_images_hash_idx').on('version_images').column('hash').execute();
  await schema.createIndex('version_images_subset_idx').on('version_images').columns(['version_id', 'subset', 'image_id']).execute();

  await schema
    .createTable('version_image_tags')
    .addColumn('version_id', 'integer', (c) => c.notNull().references('versions.id').onDelete('cascade'))
    .addColumn('image_id', 'integer', notNull)
    .addColumn('tag_id', 'integer', notNull)
    .addColumn('value', 'text')
    .addPrimaryKeyConstraint('version_image_tags_pk', ['version_id', 'image_id', 'tag_id'])
    .execute();
  if (isPostgres(db)) for (const table of VERSION_TABLES) await notifyChangesOf(db, table);
}

const VERSION_TABLES = ['versions', 'version_classes', 'version_tags', 'version_images', 'version_image_tags'];

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [...VERSION_TABLES].reverse()) await db.schema.dropTable(table).execute();
}
