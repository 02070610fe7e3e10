// The possible values of a `oneof_string` tag, as Supervisely's meta.json lists them (`values`):
// project_tags.possible_values is their JSON array, null for a tag of another value type (and for a
// oneof_string tag made before this column, which then takes any text until it is given a list).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('project_tags').addColumn('possible_values', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('project_tags').dropColumn('possible_values').execute();
}
