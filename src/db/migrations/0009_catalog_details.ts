// What API v2 lets a client say about a project and a tag that v1 never stored: a project's
// description, and the kind of value a tag takes. Both have a default, so v1 writes (which name
// neither) keep working and rows written before read as "no description" and "no value".
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('description', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('project_tags').addColumn('value_type', 'text', (c) => c.notNull().defaultTo('none')).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('project_tags').dropColumn('value_type').execute();
  await db.schema.alterTable('projects').dropColumn('description').execute();
}
