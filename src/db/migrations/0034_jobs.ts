// Jobs and review: a job is a set of images of one project given to an assignee to annotate and to a
// reviewer to accept or reject, image by image (docs/jobs.md).
//
// - jobs: `stage` is annotate, review or done; `assignee_id` and `reviewer_id` are users of the team.
// - job_images: one row per image of a job, in `position` order. `image_id` is unique: an image is in
//   one job at most. `state` is new, in_progress, submitted, accepted or rejected; `rejections` counts
//   the image's rejections (accepted with none: accepted on first review); `time_spent_ms` adds up the
//   gaps between the assignee's opens and saves of the image (a gap past the idle cap counts nothing);
//   `last_active_at` is the latest of them.
// - review_issues: what a rejection says is wrong, pinned to a point (x, y) or to an object id of the
//   image; open until the assignee resolves it. review_comments: the thread of each issue, its first
//   comment the reviewer's.
// Each table notifies its changes on PostgreSQL, as every table of the schema does, so that what the
// app keeps over the database (role checks, lists) is dropped when another process changes them.
import type { Kysely } from 'kysely';
import { isPostgres, notNull, withIdColumn } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const schema = db.schema;
  await withIdColumn(db, schema.createTable('jobs'))
    .addColumn('team_id', 'integer', notNull)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('title', 'text', notNull)
    .addColumn('stage', 'text', notNull)
    .addColumn('assignee_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('reviewer_id', 'integer', (c) => c.references('users.id'))
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await schema.createIndex('jobs_project_idx').on('jobs').columns(['project_id', 'id']).execute();
  await schema.createIndex('jobs_assignee_idx').on('jobs').column('assignee_id').execute();
  await schema.createIndex('jobs_reviewer_idx').on('jobs').column('reviewer_id').execute();

  await schema
    .createTable('job_images')
    .addColumn('job_id', 'integer', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('image_id', 'integer', (c) => c.notNull().references('images.id').onDelete('cascade'))
    .addColumn('position', 'integer', notNull)
    .addColumn('state', 'text', notNull)
    .addColumn('rejections', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('time_spent_ms', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_active_at', 'text')
    .addColumn('submitted_at', 'text')
    .addColumn('reviewed_at', 'text')
    .addPrimaryKeyConstraint('job_images_pk', ['job_id', 'position'])
    .execute();
  await schema.createIndex('job_images_image_unique').on('job_images').column('image_id').unique().execute();

  await withIdColumn(db, schema.createTable('review_issues'))
    .addColumn('job_id', 'integer', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('image_id', 'integer', (c) => c.notNull().references('images.id').onDelete('cascade'))
    .addColumn('x', 'real')
    .addColumn('y', 'real')
    .addColumn('object_id', 'integer')
    .addColumn('status', 'text', notNull)
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', notNull)
    .addColumn('resolved_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('resolved_at', 'text')
    .execute();
  await schema.createIndex('review_issues_image_idx').on('review_issues').columns(['job_id', 'image_id', 'id']).execute();

  await withIdColumn(db, schema.createTable('review_comments'))
    .addColumn('issue_id', 'integer', (c) => c.notNull().references('review_issues.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('body', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .execute();
  await schema.createIndex('review_comments_issue_idx').on('review_comments').columns(['issue_id', 'id']).execute();
  if (isPostgres(db)) for (const table of ['jobs', 'job_images', 'review_issues', 'review_comments']) await notifyChangesOf(db, table);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['review_comments', 'review_issues', 'job_images', 'jobs']) await db.schema.dropTable(table).execute();
}
