// The values of object tags, kept beside images.objects_json and not in it: v1 sends that text as it
// is, with object tags as titles only (the contract), and must keep sending exactly what it sent.
//
// `object_tag_values` is a JSON object keyed by object id (see `object_ids`): for each object with a
// tag that has a value, `{"<tag title>": value}` of those tags. Null when no object tag of the image
// has a value, which is every image but those imported from a format whose object tags carry values
// (Pascal VOC's `difficult`, a Supervisely object tag of value_type any_number…): imports of the
// others stay as fast as before. See src/formats/object-tag-values.ts.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A nullable column without a default: both databases add it without rewriting the table.
  await db.schema.alterTable('images').addColumn('object_tag_values', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('images').dropColumn('object_tag_values').execute();
}
