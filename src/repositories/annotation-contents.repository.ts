// Each image's annotation content stored once by hash (src/formats/annotation-snapshot.ts):
// `images.annotation_hash` names the snapshot of the image's current objects, their ids and tag
// values and its description, and every write of those columns writes it in the same transaction. A
// version then names each image's annotation by that hash instead of copying it.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { type AnnotationContent, type EncodedSnapshot, decodeContent, encodeContent } from '../formats/annotation-snapshot.ts';

/** Rows a statement: three parameters each, under both dialects' limits. */
const ROWS_PER_STATEMENT = 500;
/** Images read at once while hashes are written for those that have none. */
const BACKFILL_PAGE = 1000;

/**
 * The snapshots, each once, in hash order: two writers storing the same new snapshots wait for each
 * other in one order, and never each for the other.
 */
export const inHashOrder = (snapshots: readonly EncodedSnapshot[]): EncodedSnapshot[] =>
  [...new Map(snapshots.map((s) => [s.hash, s])).values()].sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));

/** Stores the snapshots that are not stored yet. */
export async function saveSnapshots(db: Kysely<Database>, snapshots: readonly EncodedSnapshot[]): Promise<void> {
  const unique = inHashOrder(snapshots);
  for (let i = 0; i < unique.length; i += ROWS_PER_STATEMENT) {
    await db
      .insertInto('annotation_snapshots')
      .values(unique.slice(i, i + ROWS_PER_STATEMENT).map((s) => ({ hash: s.hash, body: s.body, size: s.size })))
      .onConflict((oc) => oc.column('hash').doNothing())
      .execute();
  }
}

/** Stores the content's snapshot and answers its hash, for the caller to write on the image row. */
export async function savedContentHash(db: Kysely<Database>, content: AnnotationContent): Promise<string> {
  const snapshot = encodeContent(content);
  await saveSnapshots(db, [snapshot]);
  return snapshot.hash;
}

/** Writes `annotation_hash` again from the images' stored columns: call after any other write of them, in its transaction. */
export async function refreshAnnotationHashes(db: Kysely<Database>, imageIds: readonly number[]): Promise<void> {
  for (let i = 0; i < imageIds.length; i += BACKFILL_PAGE) {
    const rows = await db
      .selectFrom('images')
      .select(['id', 'description', 'objects_json', 'object_ids', 'object_tag_values'])
      .where('id', 'in', imageIds.slice(i, i + BACKFILL_PAGE))
      .execute();
    await writeHashes(db, rows);
  }
}

async function writeHashes(db: Kysely<Database>, rows: readonly { id: number; description: string; objects_json: string; object_ids: string | null; object_tag_values: string | null }[]): Promise<void> {
  const encoded = rows.map((r) => encodeContent({ description: r.description, objectsJson: r.objects_json, objectIds: r.object_ids, objectTagValues: r.object_tag_values }));
  await saveSnapshots(db, encoded);
  for (const [k, r] of rows.entries()) await db.updateTable('images').set({ annotation_hash: encoded[k]!.hash }).where('id', '=', r.id).execute();
}

/**
 * Writes the hash of every image that has none: images written before hashes were kept, or by a
 * writer that leaves it to this. Answers how many. Each page leaves the set it reads from, so the
 * reads go by the hash's index and never scan the images.
 */
export async function backfillAnnotationHashes(db: Kysely<Database>): Promise<number> {
  let done = 0;
  for (;;) {
    const rows = await db
      .selectFrom('images')
      .select(['id', 'description', 'objects_json', 'object_ids', 'object_tag_values'])
      .where('annotation_hash', 'is', null)
      .limit(BACKFILL_PAGE)
      .execute();
    await writeHashes(db, rows);
    done += rows.length;
    if (rows.length < BACKFILL_PAGE) return done;
  }
}

/** The contents of these hashes (each decoded once). */
export async function annotationContents(db: Kysely<Database>, hashes: readonly string[]): Promise<Map<string, AnnotationContent>> {
  const unique = [...new Set(hashes)];
  const out = new Map<string, AnnotationContent>();
  for (let i = 0; i < unique.length; i += 1000) {
    const rows = await db.selectFrom('annotation_snapshots').select(['hash', 'body']).where('hash', 'in', unique.slice(i, i + 1000)).execute();
    for (const r of rows) out.set(r.hash, decodeContent(r.body));
  }
  for (const hash of unique) if (!out.has(hash)) throw new Error(`annotation snapshot ${hash} is missing`);
  return out;
}
