// The blob table: one row per distinct content, shared by every image and staged upload with that hash.
import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from '../db/types.ts';

/**
 * Nothing uses the bytes of `hash` (a column or a value): no image, no image of a version, no staged
 * upload, and no thumbnail stored under the same key (a thumbnail whose bytes are those of an upload).
 */
const unreferenced = (hash: RawBuilder<unknown>) => sql<SqlBool>`
  not exists (select 1 from images where images.hash = ${hash})
  and not exists (select 1 from version_images where version_images.hash = ${hash})
  and not exists (select 1 from staged_files where staged_files.hash = ${hash})
  and not exists (select 1 from thumbnails where thumbnails.key = ${hash})`;

/** Hashes no image, staged upload or thumbnail uses, created before `olderThan`. */
export async function findUnreferencedBlobs(db: Kysely<Database>, olderThan: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('blobs')
    .select('hash')
    .where('created_at', '<', olderThan)
    .where(unreferenced(sql.ref('blobs.hash')))
    .limit(limit)
    .execute();
  return rows.map((r) => r.hash);
}

/**
 * Deletes the row of `hash`, and the rows of its thumbnails and embeddings, if nothing references it any more;
 * answers the storage keys of the thumbnails and embeddings removed, or false when the blob is still in use.
 */
export async function deleteBlobIfUnreferenced(db: Kysely<Database>, hash: string): Promise<string[] | false> {
  const thumbnails = await db
    .deleteFrom('thumbnails')
    .where('thumbnails.hash', '=', hash)
    .where(unreferenced(sql`${hash}`))
    .returning('key')
    .execute();
  const embeddings = await db.deleteFrom('embeddings').where('embeddings.hash', '=', hash).where(unreferenced(sql`${hash}`)).returning('key').execute();
  const result = await db
    .deleteFrom('blobs')
    .where('hash', '=', hash)
    .where(unreferenced(sql`${hash}`))
    .executeTakeFirst();
  return result.numDeletedRows > 0n ? [...thumbnails, ...embeddings].map((t) => t.key) : false;
}

export async function deleteExpiredStagedFiles(db: Kysely<Database>, now: string): Promise<number> {
  const result = await db.deleteFrom('staged_files').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
