// Stable ids for the objects of an image's annotation, kept beside images.objects_json and not in it:
// v1 sends that text as it is, and must keep sending exactly what it sent before.
//
// `object_ids` is a JSON array of integers parallel to the stored objects; null means the ids are
// 1..n (an image no one has edited through v2, which is every image an import writes: imports stay
// as fast as before, the two columns staying null). `next_object_id` is the id the next new object
// gets; null means n + 1. Both are written together, by the annotation edits only.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Nullable columns without a default: both databases add them without rewriting the table.
  await db.schema.alterTable('images').addColumn('object_ids', 'text').execute();
  await db.schema.alterTable('images').addColumn('next_object_id', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('images').dropColumn('next_object_id').execute();
  await db.schema.alterTable('images').dropColumn('object_ids').execute();
}
