// API v2 lists a project's images by name, a page at a time after the last name and id of the page
// before. This index gives that order and that start at once; a dataset's list by name has the same
// from the unique (dataset_id, name) index, and both lists by id from (…, id) indexes of 0001.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('images_project_name_idx').on('images').columns(['project_id', 'name', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('images_project_name_idx').execute();
}
