// Queues the `thumbnails` task that makes the grid thumbnails (and thumbhashes) of new images in the
// background, so an import or an upload ends as fast as it did without them.
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/types.ts';
import * as tasks from '../repositories/tasks.repository.ts';
import * as thumbnailTasks from '../repositories/thumbnail-tasks.repository.ts';

export const THUMBNAILS_TASK = 'thumbnails';

/**
 * What a thumbnails task works through: the images an import made (by its plan's items, from just
 * after `after`), or a list of image hashes (an upload: at most MAX_LISTED_HASHES of them).
 */
export type ThumbnailsInput = { importTaskId: number; after?: number } | { hashes: string[] };

export const MAX_LISTED_HASHES = 10_000;

/** Queues a thumbnails task in the transaction `trx`; the caller tells the runner once it commits. */
export async function queueThumbnails(trx: Kysely<Database>, owner: { teamId: number; userId: number | null }, input: ThumbnailsInput): Promise<number> {
  if ('hashes' in input && input.hashes.length > MAX_LISTED_HASHES) throw new Error(`a thumbnails task takes at most ${MAX_LISTED_HASHES} hashes`);
  return tasks.createTask(trx, { teamId: owner.teamId, userId: owner.userId, type: THUMBNAILS_TASK, size: 0, meta: { made: 0, failed: 0 }, input });
}

/**
 * Queues the thumbnails of the images an import made, once: an import resumed after its worker died
 * finds the task its earlier attempt queued. `fence` keeps the import's lease for the transaction.
 */
export async function queueImportThumbnails(
  ctx: Context,
  importTask: { taskId: number; teamId: number; userId: number | null },
  fence: (trx: Kysely<Database>) => Promise<void>,
): Promise<void> {
  const queued = await ctx.db.kysely.transaction().execute(async (trx) => {
    await fence(trx);
    if (await thumbnailTasks.hasImportThumbnailsTask(trx, importTask.taskId)) return false;
    await queueThumbnails(trx, importTask, { importTaskId: importTask.taskId });
    return true;
  });
  if (queued) ctx.tasksQueued.notify();
}

/** Queues the thumbnails of uploaded image hashes (deduplicated), in their own transaction. */
export async function queueUploadThumbnails(ctx: Context, owner: { teamId: number; userId: number | null }, hashes: readonly string[]): Promise<void> {
  const distinct = [...new Set(hashes)];
  if (distinct.length === 0) return;
  await ctx.db.kysely.transaction().execute(async (trx) => {
    for (let i = 0; i < distinct.length; i += MAX_LISTED_HASHES) await queueThumbnails(trx, owner, { hashes: distinct.slice(i, i + MAX_LISTED_HASHES) });
  });
  ctx.tasksQueued.notify();
}
