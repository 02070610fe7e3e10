// Predictions: a model's objects for an image, each with a score, kept beside the annotation and
// never mixed into it. One row holds one model's predictions for one image (a PUT replaces them
// whole); `max_score` lets the gallery find images with a prediction above a threshold without
// reading the objects. The image's project is copied so a project's predictions are one index away.
import type { Kysely } from 'kysely';
import { isPostgres, notNull } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('image_predictions')
    .addColumn('image_id', 'integer', (c) => c.notNull().references('images.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('model', 'text', notNull)
    .addColumn('objects_json', 'text', notNull)
    .addColumn('object_count', 'integer', notNull)
    .addColumn('max_score', 'double precision', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addPrimaryKeyConstraint('image_predictions_pk', ['image_id', 'model'])
    .execute();
  await db.schema.createIndex('image_predictions_project_idx').on('image_predictions').columns(['project_id', 'model', 'max_score']).execute();
  if (isPostgres(db)) await notifyChangesOf(db, 'image_predictions');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('image_predictions').execute();
}
