// Task rules seen from the API: listing a team's tasks, reading one, asking one to stop, removing one.
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/types.ts';
import { conflict, notFound } from '../errors.ts';
import * as tasks from '../repositories/tasks.repository.ts';
import type { TaskStatus } from '../repositories/tasks.repository.ts';
import { archiveKey } from '../storage/archive-store.ts';
import { EXPORT_TASK } from '../tasks/export-inputs.ts';
import { checkIfMatch } from './preconditions.ts';
import { requestStop as requestStopRecorded } from './task-transitions.ts';
import { type TaskView, toTaskView } from './task-view.ts';
import { THUMBNAILS_TASK } from './thumbnail-tasks.ts';

export { type TaskView, toTaskView };

/**
 * Task types the v1 contract does not know, left out of its lists and refused by its stop as missing:
 * a v1 client sees its imports and exports as before, not the background work that follows them.
 */
const NOT_IN_V1: readonly string[] = [THUMBNAILS_TASK];

/** v1's task list (one task with `id`); `readerId`, a plain member's user id, narrows it to the tasks they may see. */
export const listTasks = (db: Kysely<Database>, teamId: number, id?: number, readerId?: number) => tasks.listTasks(db, teamId, id, NOT_IN_V1, readerId);

/**
 * Asks a queued or started task to stop: a queued one is `stopped` when this returns, a started one
 * stops at its next checkpoint. A task of a `hidden` type is missing to the caller (404).
 */
async function requestStop(db: Kysely<Database>, teamId: number, id: number, hidden: readonly string[]): Promise<void> {
  if ((await tasks.listTasks(db, teamId, id, hidden)).length === 0) throw notFound('task', { taskId: id });
  if (await requestStopRecorded(db, teamId, id)) return;
  const task = await tasks.getTask(db, teamId, id);
  if (!task) throw notFound('task', { taskId: id });
  throw conflict(`a task in status ${task.status} cannot be stopped`, { taskId: id, status: task.status });
}

/**
 * v1's stop: the answer is `terminating` either way, as the contract shows it, and the task types v1
 * does not know are missing.
 */
export async function stopTask(db: Kysely<Database>, teamId: number, id: number): Promise<{ status: 'terminating' }> {
  await requestStop(db, teamId, id, NOT_IN_V1);
  return { status: 'terminating' };
}

export const isEnded = (status: TaskStatus): boolean => tasks.ENDED_STATUSES.includes(status);

/**
 * Task types that are housekeeping: background work that follows what a user did (an import's or an
 * upload's thumbnails), many of them, left out of a list that asks for `housekeeping: false`.
 */
export const HOUSEKEEPING_TYPES: readonly string[] = [THUMBNAILS_TASK];

export interface TaskPageRequest {
  type?: string;
  status?: TaskStatus;
  projectId?: number;
  /** false leaves out HOUSEKEEPING_TYPES (unless `type` names one). */
  housekeeping?: boolean;
  /** The id of the last task of the page before. */
  afterId?: number;
  limit: number;
  count?: boolean;
  /** A plain member's user id: only the tasks they may see; none for an owner or admin. */
  readerId?: number;
}

/** A page of the team's tasks, newest first; `nextId` continues after it, null on the last page. */
export async function listTaskPage(db: Kysely<Database>, teamId: number, request: TaskPageRequest): Promise<{ items: TaskView[]; nextId: number | null; total?: number }> {
  const hidden = request.housekeeping === false && request.type === undefined ? HOUSEKEEPING_TYPES : [];
  const filter = { type: request.type, status: request.status, projectId: request.projectId, exceptTypes: hidden, readerId: request.readerId };
  // One more than asked tells whether a next page exists without a count.
  const rows = await tasks.listTaskPage(db, teamId, { ...filter, beforeId: request.afterId, limit: request.limit + 1 });
  const items = rows.slice(0, request.limit).map(toTaskView);
  const nextId = rows.length > request.limit ? items.at(-1)!.id : null;
  const total = request.count ? await tasks.countTasks(db, teamId, filter) : undefined;
  return { items, nextId, ...(total === undefined ? {} : { total }) };
}

/** The team's task, or a 404 (missing, or another team's). */
export async function getTask(db: Kysely<Database>, teamId: number, id: number): Promise<TaskView> {
  const task = await tasks.findTaskEntry(db, teamId, id);
  if (!task) throw notFound('task', { taskId: id });
  return toTaskView(task);
}

/**
 * Removes a task that has ended (finished, error, stopped), and an export's archive with it. A task
 * still queued or running is a 409: stop it first. With `ifMatch`, only while the task is still the
 * version that tag names (an ended task no longer changes but for an export's archive expiring). The
 * check and the removal are one transaction holding the row, so a task removed or changed meanwhile
 * is a 404 or a 412, never a silent success.
 */
export async function deleteTask(ctx: Context, teamId: number, id: number, ifMatch?: string): Promise<void> {
  await ctx.db.kysely.transaction().execute(async (trx) => {
    const entry = await tasks.findTaskEntry(trx, teamId, id, { lock: true });
    if (!entry) throw notFound('task', { taskId: id });
    const task = toTaskView(entry);
    checkIfMatch(task, ifMatch);
    if (!isEnded(task.status)) throw conflict(`a task in status ${task.status} cannot be deleted; stop it first`, { taskId: id, status: task.status });
    if (!(await tasks.deleteEndedTask(trx, teamId, id))) throw notFound('task', { taskId: id });
    // The archive goes once the row is sure to go, before the transaction ends: should its removal
    // fail, the task stays; a task row without its archive would be harmless, an archive without a
    // row would never be removed.
    if (task.type === EXPORT_TASK) await ctx.archives.delete(archiveKey(teamId, id));
  });
}

/** Asks the team's task of any type to stop (v2 lists them all) and answers it as it is now. */
export async function requestTaskStop(db: Kysely<Database>, teamId: number, id: number): Promise<TaskView> {
  await requestStop(db, teamId, id, []);
  return getTask(db, teamId, id);
}
