// Perceptual hashes of image blobs, for finding near-duplicates (resized, recompressed, slightly
// cropped or brightened copies): a DCT pHash and a dHash, each 64 bits as 16 hex digits. They belong
// to the blob (the same bytes always hash alike) and are made with its grid thumbnail: null until then,
// and for an image that cannot be decoded. Text rather than a 64-bit integer: both databases store it
// alike and nothing orders by it; searches read them all and compare in memory (hamming-pairs.ts).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Nullable columns without defaults: both databases add them without rewriting the table.
  await db.schema.alterTable('blobs').addColumn('phash', 'text').execute();
  await db.schema.alterTable('blobs').addColumn('dhash', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('blobs').dropColumn('dhash').execute();
  await db.schema.alterTable('blobs').dropColumn('phash').execute();
}
