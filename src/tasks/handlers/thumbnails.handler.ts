// The thumbnails task: makes the grid thumbnails (and thumbhashes) its images lack, a page at a time,
// two images at once. What is already made is skipped, so a resumed task only finishes the rest.
//
// A task runner works on one task at a time, and this one can take a while (a second per ten images
// or so on one core): whenever an import or an export is queued behind it, it queues its own remainder
// as a new task (behind that one) and ends, so imports and exports wait a page of thumbnails at most.
import { mapLimited } from '../../concurrency.ts';
import * as thumbnails from '../../repositories/thumbnails.repository.ts';
import * as thumbnailTasks from '../../repositories/thumbnail-tasks.repository.ts';
import { GRID_THUMBNAIL_SIZE } from '../../services/thumbnails.service.ts';
import { type ThumbnailsInput, queueThumbnails } from '../../services/thumbnail-tasks.ts';
import type { TaskHandler, TaskRun } from '../handler.ts';

/** Images looked at per page (one query for those that lack something, one checkpoint). */
const PAGE = 16;
const AT_ONCE = 2;

interface Progress {
  made: number;
  failed: number;
  /** Import items (or listed hashes) done, for a resumed attempt to start after. */
  after?: number;
  /** The task that took over the rest of the work. */
  continuedBy?: number;
}

/** The next page of hashes to look at, and where the page after it starts. */
async function nextPage(run: TaskRun, input: ThumbnailsInput, after: number): Promise<{ hashes: string[]; last: number }> {
  if ('hashes' in input) {
    const hashes = input.hashes.slice(after + 1, after + 1 + PAGE);
    return { hashes, last: after + hashes.length };
  }
  const rows = await thumbnails.importedHashes(run.ctx.db.kysely, input.importTaskId, after, PAGE);
  return { hashes: rows.map((r) => r.hash), last: rows.at(-1)?.item ?? after };
}

/** The images of the whole task (a resumed attempt counts what it did before as done). */
async function totalOf(run: TaskRun, input: ThumbnailsInput): Promise<number> {
  return 'hashes' in input ? input.hashes.length : thumbnailTasks.countImportedImages(run.ctx.db.kysely, input.importTaskId, input.after ?? -1);
}

function parseInput(input: unknown): ThumbnailsInput {
  const value = input as Partial<{ importTaskId: unknown; after: unknown; hashes: unknown }>;
  if (Array.isArray(value.hashes)) return { hashes: value.hashes.filter((h): h is string => typeof h === 'string') };
  if (typeof value.importTaskId === 'number') return { importTaskId: value.importTaskId, ...(typeof value.after === 'number' ? { after: value.after } : {}) };
  return { hashes: [] };
}

export const thumbnailsHandler: TaskHandler = async (run) => {
  const input = parseInput(run.input);
  const previous = run.meta as Partial<Progress>;
  if (previous.continuedBy !== undefined) return;
  const progress: Progress = { made: previous.made ?? 0, failed: previous.failed ?? 0 };
  const start = 'importTaskId' in input ? (input.after ?? -1) : -1;
  let after = previous.after ?? start;
  const total = await totalOf(run, input);
  let done = 'hashes' in input ? after + 1 : ((previous as { progress?: { done?: number } }).progress?.done ?? 0);
  for (;;) {
    if (await thumbnailTasks.othersQueuedAfter(run.ctx.db.kysely, run.taskId)) {
      await handOver(run, input, after);
      return;
    }
    const page = await nextPage(run, input, after);
    if (page.hashes.length === 0) break;
    const lacking = await thumbnails.lackingThumbnail(run.ctx.db.kysely, [...new Set(page.hashes)], GRID_THUMBNAIL_SIZE);
    const outcomes = await mapLimited(lacking, AT_ONCE, (hash) =>
      run.ctx.thumbnails.make(hash, GRID_THUMBNAIL_SIZE).then(
        () => true,
        // An image that cannot be decoded, or whose bytes are gone: its thumbnail is asked for again
        // when someone wants it, and answers why.
        () => false,
      ),
    );
    progress.made += outcomes.filter(Boolean).length;
    progress.failed += outcomes.length - outcomes.filter(Boolean).length;
    after = page.last;
    done += page.hashes.length;
    await run.checkpoint({ done: Math.min(done, total), total }, { ...progress, after });
  }
};

/** Queues what is left as a new task, behind those waiting, and records it here. */
async function handOver(run: TaskRun, input: ThumbnailsInput, after: number): Promise<void> {
  const rest: ThumbnailsInput = 'hashes' in input ? { hashes: input.hashes.slice(after + 1) } : { importTaskId: input.importTaskId, after };
  const [id] = await run.ctx.db.kysely.transaction().execute(async (trx) => {
    await run.fenceLease(trx);
    return queueThumbnails(trx, { teamId: run.teamId, userId: run.userId }, rest);
  });
  await run.updateMeta({ continuedBy: id });
  run.ctx.tasksQueued.notify();
}
