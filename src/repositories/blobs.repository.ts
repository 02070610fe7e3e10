// The blob table: one row per distinct content, shared by every image and staged upload with that hash.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/types.ts';

/** Hashes no image and no staged upload uses, created before `olderThan`. */
export async function findUnreferencedBlobs(db: Kysely<Database>, olderThan: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('blobs')
    .select('hash')
    .where('created_at', '<', olderThan)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('images').select(sql`1`.as('one')).whereRef('images.hash', '=', 'blobs.hash'))),
    )
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('staged_files').select(sql`1`.as('one')).whereRef('staged_files.hash', '=', 'blobs.hash'))),
    )
    .limit(limit)
    .execute();
  return rows.map((r) => r.hash);
}

/** Deletes the row of `hash` if nothing references it any more; answers whether it did. */
export async function deleteBlobIfUnreferenced(db: Kysely<Database>, hash: string): Promise<boolean> {
  const result = await db
    .deleteFrom('blobs')
    .where('hash', '=', hash)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('images').select(sql`1`.as('one')).where('images.hash', '=', hash))),
    )
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('staged_files').select(sql`1`.as('one')).where('staged_files.hash', '=', hash))),
    )
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function deleteExpiredStagedFiles(db: Kysely<Database>, now: string): Promise<number> {
  const result = await db.deleteFrom('staged_files').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
