// Thumbnails of image blobs (one row per image hash and size), and what is made with the grid one and
// kept on each blob: its thumbhash and perceptual hashes.
import { type Kysely, sql } from 'kysely';
import { isoNow } from '../clock.ts';
import type { Database } from '../db/types.ts';

export interface ThumbnailRecord {
  /** Where its bytes lie in the blob store: the SHA-256 (base64) of the WebP. */
  key: string;
  bytes: number;
  width: number;
  height: number;
}

export async function findThumbnail(db: Kysely<Database>, hash: string, size: number): Promise<ThumbnailRecord | undefined> {
  const row = await db
    .selectFrom('thumbnails')
    .select(['key', 'bytes', 'width', 'height'])
    .where('hash', '=', hash)
    .where('size', '=', size)
    .executeTakeFirst();
  return row && { key: row.key, bytes: Number(row.bytes), width: row.width, height: row.height };
}

/**
 * Records a thumbnail whose bytes are stored, unless one of the same hash and size was recorded first
 * (by another process); answers the one that stands.
 */
export async function recordThumbnail(db: Kysely<Database>, hash: string, size: number, thumbnail: ThumbnailRecord): Promise<ThumbnailRecord> {
  await db
    .insertInto('thumbnails')
    .values({ hash, size, key: thumbnail.key, bytes: thumbnail.bytes, width: thumbnail.width, height: thumbnail.height, created_at: isoNow() })
    .onConflict((oc) => oc.columns(['hash', 'size']).doNothing())
    .execute();
  return (await findThumbnail(db, hash, size))!;
}

/** Of `hashes`, those of a blob that has no thumbnail of `size`, or no thumbhash or perceptual hashes yet. */
export async function lackingThumbnail(db: Kysely<Database>, hashes: readonly string[], size: number): Promise<string[]> {
  if (hashes.length === 0) return [];
  const rows = await db
    .selectFrom('blobs')
    .leftJoin('thumbnails', (join) => join.onRef('thumbnails.hash', '=', 'blobs.hash').on('thumbnails.size', '=', size))
    .select('blobs.hash')
    .where('blobs.hash', 'in', [...hashes])
    .where((eb) => eb.or([eb('thumbnails.key', 'is', null), eb('blobs.thumbhash', 'is', null), eb('blobs.phash', 'is', null)]))
    .execute();
  return rows.map((r) => r.hash);
}

export async function setThumbhash(db: Kysely<Database>, hash: string, thumbhash: string): Promise<void> {
  await db.updateTable('blobs').set({ thumbhash }).where('hash', '=', hash).where('thumbhash', 'is', null).execute();
}

export async function setPerceptualHashes(db: Kysely<Database>, hash: string, hashes: { phash: string; dhash: string }): Promise<void> {
  await db.updateTable('blobs').set(hashes).where('hash', '=', hash).where('phash', 'is', null).execute();
}

/** The thumbhash (base64) of the image blob `hash`; null until its 256 px thumbnail is made. */
export async function thumbhashOf(db: Kysely<Database>, hash: string): Promise<string | null> {
  return (await gridExtrasOf(db, hash)).thumbhash;
}

/** What the image blob `hash` holds of what its 256 px thumbnail brings: null until that is made. */
export async function gridExtrasOf(db: Kysely<Database>, hash: string): Promise<{ thumbhash: string | null; phash: string | null }> {
  const row = await db.selectFrom('blobs').select(['thumbhash', 'phash']).where('hash', '=', hash).executeTakeFirst();
  return { thumbhash: row?.thumbhash ?? null, phash: row?.phash ?? null };
}

/**
 * The image hashes an import made, in the order of its plan, after item `after` (a keyset page);
 * each item comes with its hash, so a page ends on an item whatever its hash.
 */
export async function importedHashes(db: Kysely<Database>, importTaskId: number, after: number, limit: number): Promise<{ item: number; hash: string }[]> {
  return db
    .selectFrom('import_items')
    .innerJoin('images', 'images.id', 'import_items.image_id')
    .select(['import_items.item as item', 'images.hash as hash'])
    .where('import_items.task_id', '=', importTaskId)
    .where('import_items.item', '>', after)
    .orderBy('import_items.item')
    .limit(limit)
    .execute();
}

/** Removes the thumbnail rows of the blob `hash`; answers the keys of their bytes. */
export async function deleteThumbnailsOf(db: Kysely<Database>, hash: string): Promise<string[]> {
  const rows = await db.deleteFrom('thumbnails').where('hash', '=', hash).returning('key').execute();
  return rows.map((r) => r.key);
}

/**
 * Whether stored bytes under `key` are still wanted: some thumbnail's, or a blob's (an upload whose
 * bytes happen to be those of a thumbnail).
 */
export async function keyInUse(db: Kysely<Database>, key: string): Promise<boolean> {
  const { rows } = await sql<{ one: number }>`
    select 1 as one from thumbnails where key = ${key}
    union all
    select 1 as one from embeddings where key = ${key}
    union all
    select 1 as one from blobs where hash = ${key}
    limit 1`.execute(db);
  return rows.length > 0;
}
