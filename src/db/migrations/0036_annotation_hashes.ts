// Annotation contents by hash: each image names the snapshot of its annotation content (description,
// objects, their ids and tag values) in annotation_snapshots by `images.annotation_hash`, and a
// version's image names the content it froze by the same hash instead of holding a copy. So a version
// is an INSERT … SELECT of a few columns per image, and equal contents (the empty annotation, an image
// unchanged between two versions) are stored once.
//
// Existing images get their hashes, and existing versions' copies become snapshots, named by hash;
// undone, the versions get their copies back from the snapshots.
import type { Kysely } from 'kysely';
import { encodeContent } from '../../formats/annotation-snapshot.ts';
import { annotationContents, backfillAnnotationHashes, saveSnapshots } from '../../repositories/annotation-contents.repository.ts';
import type { Database } from '../types.ts';

const PAGE = 1000;
const COPIED = ['description', 'objects_json', 'object_ids', 'object_tag_values'] as const;

export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<Database>;
  const schema = db.schema;
  await schema.alterTable('images').addColumn('annotation_hash', 'text').execute();
  await backfillAnnotationHashes(db);
  await schema.createIndex('images_annotation_hash_idx').on('images').column('annotation_hash').execute();

  await schema.alterTable('version_images').addColumn('annotation_hash', 'text').execute();
  await convertVersionImages(db);
  for (const column of COPIED) await schema.alterTable('version_images').dropColumn(column).execute();
  await schema.createIndex('version_images_annotation_hash_idx').on('version_images').column('annotation_hash').execute();
}

interface CopiedRow {
  version_id: number;
  image_id: number;
  description: string;
  objects_json: string;
  object_ids: string | null;
  object_tag_values: string | null;
}

/** Each version image's copy, stored as a snapshot and named by its hash. */
async function convertVersionImages(db: Kysely<Database>): Promise<void> {
  // The copied columns are gone from the table's type: read them as this migration found them.
  const old = db as unknown as Kysely<{ version_images: CopiedRow & { annotation_hash: string | null } }>;
  for (;;) {
    const rows = await old
      .selectFrom('version_images')
      .select(['version_id', 'image_id', ...COPIED])
      .where('annotation_hash', 'is', null)
      .orderBy('version_id')
      .orderBy('image_id')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) return;
    const byHash = new Map<string, { version_id: number; image_id: number }[]>();
    const snapshots = rows.map((r) => {
      const s = encodeContent({ description: r.description, objectsJson: r.objects_json, objectIds: r.object_ids, objectTagValues: r.object_tag_values });
      byHash.set(s.hash, [...(byHash.get(s.hash) ?? []), r]);
      return s;
    });
    await saveSnapshots(db, snapshots);
    for (const [hash, keys] of byHash) {
      const versions = new Map<number, number[]>();
      for (const k of keys) versions.set(k.version_id, [...(versions.get(k.version_id) ?? []), k.image_id]);
      for (const [versionId, imageIds] of versions) {
        await old.updateTable('version_images').set({ annotation_hash: hash }).where('version_id', '=', versionId).where('image_id', 'in', imageIds).execute();
      }
    }
  }
}

export async function down(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<Database>;
  const old = db as unknown as Kysely<{ version_images: CopiedRow & { annotation_hash: string | null } }>;
  await db.schema.dropIndex('version_images_annotation_hash_idx').execute();
  await db.schema.alterTable('version_images').addColumn('description', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('version_images').addColumn('objects_json', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('version_images').addColumn('object_ids', 'text').execute();
  await db.schema.alterTable('version_images').addColumn('object_tag_values', 'text').execute();
  // The copies again, from the snapshots the rows name.
  for (let after: { version_id: number; image_id: number } | undefined; ; ) {
    let query = old.selectFrom('version_images').select(['version_id', 'image_id', 'annotation_hash']).orderBy('version_id').orderBy('image_id').limit(PAGE);
    if (after) {
      const { version_id: v, image_id: i } = after;
      query = query.where((eb) => eb.or([eb('version_id', '>', v), eb.and([eb('version_id', '=', v), eb('image_id', '>', i)])]));
    }
    const rows = await query.execute();
    const contents = await annotationContents(db, rows.flatMap((r) => (r.annotation_hash ? [r.annotation_hash] : [])));
    for (const r of rows) {
      const c = r.annotation_hash ? contents.get(r.annotation_hash) : undefined;
      if (!c) continue;
      await old
        .updateTable('version_images')
        .set({ description: c.description, objects_json: c.objectsJson, object_ids: c.objectIds, object_tag_values: c.objectTagValues })
        .where('version_id', '=', r.version_id)
        .where('image_id', '=', r.image_id)
        .execute();
    }
    if (rows.length < PAGE) break;
    after = rows.at(-1)!;
  }
  await db.schema.alterTable('version_images').dropColumn('annotation_hash').execute();
  await db.schema.dropIndex('images_annotation_hash_idx').execute();
  await db.schema.alterTable('images').dropColumn('annotation_hash').execute();
}
