// Task rules seen from the API: listing a team's tasks and asking one to stop.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { conflict, notFound } from '../errors.ts';
import * as tasks from '../repositories/tasks.repository.ts';
import { THUMBNAILS_TASK } from './thumbnail-tasks.ts';

/**
 * Task types the v1 contract does not know, left out of its lists and refused by its stop as missing:
 * a v1 client sees its imports and exports as before, not the background work that follows them.
 */
const NOT_IN_V1: readonly string[] = [THUMBNAILS_TASK];

export const listTasks = (db: Kysely<Database>, teamId: number, id?: number) => tasks.listTasks(db, teamId, id, NOT_IN_V1);

/**
 * Asks a queued or started task to stop. The answer is `terminating` either way, as the contract shows
 * it: a queued task is already `stopped` when this returns, a started one stops at its next checkpoint.
 */
export async function stopTask(db: Kysely<Database>, teamId: number, id: number): Promise<{ status: 'terminating' }> {
  if ((await tasks.listTasks(db, teamId, id, NOT_IN_V1)).length === 0) throw notFound('task', { taskId: id });
  if (await tasks.requestStop(db, teamId, id)) return { status: 'terminating' };
  const task = await tasks.getTask(db, teamId, id);
  if (!task) throw notFound('task', { taskId: id });
  throw conflict(`a task in status ${task.status} cannot be stopped`, { taskId: id, status: task.status });
}
