// Follows all of a team's tasks at once, for a page that shows several (GET /v2/tasks/events): one
// stream in place of one per task, since a browser holds at most 6 connections to a host. Changes are
// found as task-watch.ts finds them (the database's change stamp); each read takes the tasks still
// running, those newer than the newest seen, and those last seen running (so their end is seen).
import type { Db } from '../db/create-db.ts';
import * as tasks from '../repositories/tasks.repository.ts';
import { nextChance } from './task-watch.ts';
import { type TaskView, toTaskView } from './task-view.ts';

/**
 * Tasks read at most each time: a team with more running or queued than this has its oldest followed,
 * and the others once those end.
 */
export const MAX_WATCHED_TASKS = 500;
/**
 * How far before a resumed stream's Last-Event-ID the tasks that ended are sent again: a task's end
 * may be stamped by another process's clock, and committed a moment after it was stamped.
 */
export const RESUME_MARGIN_MS = 10_000;

export type TeamTaskEvent =
  /** First: the tasks not ended yet, and on a resumed stream those that ended since it left off. */
  | { kind: 'snapshot'; at: string; tasks: TaskView[] }
  /** A task new or changed since it was last sent. */
  | { kind: 'task'; at: string; task: TaskView }
  /** A task last seen running is gone (removed once it ended, between two reads). */
  | { kind: 'removed'; at: string; id: number };

export interface TeamWatchOptions {
  /** Where a resumed stream left off (the `at` of its last event): tasks that ended since are in the snapshot. */
  since?: string;
  /** Task types whose events are left out. */
  exceptTypes?: readonly string[];
  /** A plain member's user id: only the tasks they may see (tasks.repository.ts readableBy). */
  readerId?: number;
  signal: AbortSignal;
}

const RUNNING = (task: TaskView) => !tasks.ENDED_STATUSES.includes(task.status);

/** The team's tasks as a snapshot, then each change, until `signal` aborts. */
export async function* watchTeamTasks(db: Db, teamId: number, options: TeamWatchOptions): AsyncGenerator<TeamTaskEvent> {
  const { signal, exceptTypes = [], readerId } = options;
  let stamp = db.changeStamp();
  let at = new Date().toISOString();
  // Read before the snapshot: a task made in between is newer than this and sent as a change.
  let afterId = await tasks.lastTaskId(db.kysely, teamId);
  const endedSince = options.since === undefined ? undefined : new Date(Date.parse(options.since) - RESUME_MARGIN_MS).toISOString();
  const first = await tasks.listWatchedTasks(db.kysely, teamId, { afterId, ids: [], exceptTypes, readerId, limit: MAX_WATCHED_TASKS, ...(endedSince ? { endedSince } : {}) });
  const snapshot = first.map(toTaskView).filter((t) => t.id <= afterId && (RUNNING(t) || endedSince !== undefined));
  /** What was last sent of each task still followed, as JSON text. */
  const sent = new Map(snapshot.map((t) => [t.id, JSON.stringify(t)]));
  let running = snapshot.filter(RUNNING).map((t) => t.id);
  yield { kind: 'snapshot', at, tasks: snapshot };
  while (!signal.aborted) {
    await nextChance(db, stamp, signal);
    if (signal.aborted) return;
    // Taken before the read: a change during the read moves it again and is read next time.
    stamp = db.changeStamp();
    at = new Date().toISOString();
    const rows = (await tasks.listWatchedTasks(db.kysely, teamId, { afterId, ids: running, exceptTypes, readerId, limit: MAX_WATCHED_TASKS })).map(toTaskView);
    const read = new Set(rows.map((t) => t.id));
    // A read cut at the limit may leave out a task that is still there.
    for (const id of rows.length < MAX_WATCHED_TASKS ? running : []) {
      if (read.has(id)) continue;
      sent.delete(id);
      yield { kind: 'removed', at, id };
    }
    for (const task of rows) {
      const text = JSON.stringify(task);
      if (sent.get(task.id) === text) continue;
      sent.set(task.id, text);
      yield { kind: 'task', at, task };
    }
    for (const task of rows) if (task.id > afterId) afterId = task.id;
    running = rows.filter(RUNNING).map((t) => t.id);
    // Ended tasks are sent once: only those still running are compared again.
    const still = new Set(running);
    for (const id of sent.keys()) if (!still.has(id)) sent.delete(id);
  }
}
