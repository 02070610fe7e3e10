// Reclaims blob bytes that nothing uses any more: not an image, not a staged upload. A blob row is
// deleted and its bytes removed inside one transaction, so an upload of the same content that
// arrives meanwhile waits for the row lock and writes the bytes again after. The blob's thumbnails
// and embeddings go with it; the bytes of one are kept while another thumbnail, embedding or blob has the same.
import type { Context } from '../context.ts';
import * as blobs from '../repositories/blobs.repository.ts';
import * as thumbnails from '../repositories/thumbnails.repository.ts';

export interface SweepResult {
  expiredUploads: number;
  blobsRemoved: number;
}

/** Blobs younger than this are left alone: an import may be about to reference them. */
const GRACE_MS = 60 * 60 * 1000;
const BATCH = 500;

export async function sweepBlobs(ctx: Context, now: Date = new Date()): Promise<SweepResult> {
  const db = ctx.db.kysely;
  const expiredUploads = await blobs.deleteExpiredStagedFiles(db, now.toISOString());
  const cutoff = new Date(now.getTime() - GRACE_MS).toISOString();
  let blobsRemoved = 0;
  for (;;) {
    const candidates = await blobs.findUnreferencedBlobs(db, cutoff, BATCH);
    for (const hash of candidates) {
      const removed = await db.transaction().execute(async (trx) => {
        const thumbnailKeys = await blobs.deleteBlobIfUnreferenced(trx, hash);
        if (!thumbnailKeys) return false;
        await ctx.blobs.delete(hash);
        for (const key of thumbnailKeys) if (!(await thumbnails.keyInUse(trx, key))) await ctx.blobs.delete(key);
        return true;
      });
      if (removed) blobsRemoved += 1;
    }
    if (candidates.length < BATCH) break;
  }
  return { expiredUploads, blobsRemoved };
}
