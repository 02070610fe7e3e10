// Queues the `thumbnails` task that makes the grid thumbnails (and thumbhashes) of new images in the
// background, so an import or an upload ends as fast as it did without them. An upload queues one for
// the images new to the store (upload.service.ts), an import one for the images it made.
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/types.ts';
import * as tasks from '../repositories/tasks.repository.ts';
import * as thumbnailTasks from '../repositories/thumbnail-tasks.repository.ts';

export const THUMBNAILS_TASK = 'thumbnails';

/**
 * What a thumbnails task works through: the images an import made (by its plan's items, from just
 * after `after`), or a list of image hashes (an upload's new images: at most MAX_LISTED_HASHES).
 */
export type ThumbnailsInput = { importTaskId: number; after?: number } | { hashes: string[] };

export const MAX_LISTED_HASHES = 10_000;

/**
 * Queues thumbnails tasks in the transaction `trx` (a list of hashes longer than MAX_LISTED_HASHES
 * is cut into several) and answers their ids; the caller tells the runner once it commits.
 */
export async function queueThumbnails(trx: Kysely<Database>, owner: { teamId: number; userId: number | null }, input: ThumbnailsInput): Promise<number[]> {
  const inputs: ThumbnailsInput[] = [];
  if ('hashes' in input) for (let i = 0; i < input.hashes.length; i += MAX_LISTED_HASHES) inputs.push({ hashes: input.hashes.slice(i, i + MAX_LISTED_HASHES) });
  else inputs.push(input);
  // An import's thumbnails belong to its project; an upload's images are in none yet.
  const projectId = 'importTaskId' in input ? await tasks.projectOfTask(trx, input.importTaskId) : null;
  const ids: number[] = [];
  for (const one of inputs) {
    ids.push(await tasks.createTask(trx, { teamId: owner.teamId, userId: owner.userId, type: THUMBNAILS_TASK, size: 0, meta: { made: 0, failed: 0 }, input: one, projectId }));
  }
  return ids;
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
