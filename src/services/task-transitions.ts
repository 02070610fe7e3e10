// The writes that move a task from one status to another, each with its webhook event in the same
// transaction (task.started, task.finished, task.error, task.stopped, carrying the task as v2 shows
// it): the event is sent exactly when the change commits. The runner and the stop routes use these in
// place of the repository's single statements.
import type { Kysely } from 'kysely';
import type { Database, TaskRow } from '../db/types.ts';
import * as projects from '../repositories/projects.repository.ts';
import * as tasks from '../repositories/tasks.repository.ts';
import { taskViewOfRow } from './task-view.ts';
import { type WebhookEvent, recordEvent } from './webhook-events.ts';

const EVENT_OF_STATUS: Partial<Record<string, WebhookEvent>> = {
  started: 'task.started',
  finished: 'task.finished',
  error: 'task.error',
  stopped: 'task.stopped',
};

function inTransaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

async function recordStatus(trx: Kysely<Database>, row: TaskRow | undefined): Promise<void> {
  const type = row && EVENT_OF_STATUS[row.status];
  if (!row || !type) return;
  const project = row.project_id === null ? undefined : await projects.findProject(trx, row.team_id, row.project_id);
  await recordEvent(trx, row.team_id, type, taskViewOfRow(row, project?.title ?? null));
}

/**
 * tasks.claimTask, with events: task.started when a worker first takes the task up (a worker taking
 * over after a crash or a hand-back starts no new event), task.stopped or task.error when the claim
 * ends a task whose worker was lost.
 */
export async function claimTask(db: Kysely<Database>, options: { owner: string; leaseMs: number }): Promise<TaskRow | undefined> {
  for (;;) {
    const row = await inTransaction(db, async (trx) => {
      const next = await tasks.claimNext(trx, options);
      if (next && (next.status !== 'started' || next.attempts === 1)) await recordStatus(trx, next);
      return next;
    });
    if (!row) return undefined;
    if (row.lease_owner === options.owner && row.status === 'started') return row;
  }
}

/** tasks.finishTask, with the event of the status it ends in. */
export async function finishTask(db: Kysely<Database>, options: Parameters<typeof tasks.finishTask>[1]): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    if (!(await tasks.finishTask(trx, options))) return false;
    await recordStatus(trx, await tasks.findTaskRow(trx, options.id));
    return true;
  });
}

/** tasks.releaseTask, with task.stopped when the task was being stopped (else it is queued again: no event). */
export async function releaseTask(db: Kysely<Database>, options: Parameters<typeof tasks.releaseTask>[1]): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    if (!(await tasks.releaseTask(trx, options))) return false;
    const row = await tasks.findTaskRow(trx, options.id);
    if (row?.status === 'stopped') await recordStatus(trx, row);
    return true;
  });
}

/** tasks.requestStop, with task.stopped when a queued task stops at once. */
export async function requestStop(db: Kysely<Database>, teamId: number, id: number): Promise<'stopped' | 'terminating' | undefined> {
  return inTransaction(db, async (trx) => {
    const status = await tasks.requestStop(trx, teamId, id);
    if (status === 'stopped') await recordStatus(trx, await tasks.findTaskRow(trx, id));
    return status;
  });
}
