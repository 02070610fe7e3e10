// Quality of annotators' work (docs/jobs.md "Quality"): ground-truth images and the honeypots made of
// them in jobs.
//
// - datasets.hidden: 1 for a dataset that holds the honeypot copies of one job. Its images share the
//   blobs of their sources; galleries, dataset lists, statistics, exports and versions leave hidden
//   datasets out, so a honeypot is seen only through its job.
// - ground_truth: an image of a project marked as ground truth, its objects frozen by value when
//   marked (`objects_json`, with the image's size): later edits of the image change no reference.
// - honeypots: a copy of a ground-truth image in a job's hidden dataset (`image_id`), with the truth
//   it is compared with (copied by value when the job was made, so unmarking the source changes no
//   result). `result_json` is the last comparison with the assignee's objects (null until submitted):
//   per class the matched pairs with their IoU, the misses and the extras. `job_id` is set null when
//   the job goes, so a deleted job's results stay in the report.
import type { Kysely } from 'kysely';
import { isPostgres, notNull } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const schema = db.schema;
  await schema.alterTable('datasets').addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await schema
    .createTable('ground_truth')
    .addColumn('image_id', 'integer', (c) => c.primaryKey().references('images.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('width', 'integer', notNull)
    .addColumn('height', 'integer', notNull)
    .addColumn('objects_json', 'text', notNull)
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', notNull)
    .execute();
  await schema.createIndex('ground_truth_project_idx').on('ground_truth').columns(['project_id', 'image_id']).execute();

  await schema
    .createTable('honeypots')
    .addColumn('image_id', 'integer', (c) => c.primaryKey().references('images.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('job_id', 'integer', (c) => c.references('jobs.id').onDelete('set null'))
    .addColumn('source_image_id', 'integer', notNull)
    .addColumn('truth_json', 'text', notNull)
    .addColumn('assignee_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('result_json', 'text')
    .addColumn('evaluated_at', 'text')
    .execute();
  await schema.createIndex('honeypots_project_idx').on('honeypots').columns(['project_id', 'image_id']).execute();
  await schema.createIndex('honeypots_job_idx').on('honeypots').column('job_id').execute();
  if (isPostgres(db)) for (const table of ['ground_truth', 'honeypots']) await notifyChangesOf(db, table);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['honeypots', 'ground_truth']) await db.schema.dropTable(table).execute();
  // The hidden datasets' images go with them: undone, nothing would keep them out of sight.
  await db.deleteFrom('datasets' as never).where('hidden' as never, '=', 1 as never).execute();
  await db.schema.alterTable('datasets').dropColumn('hidden').execute();
}
