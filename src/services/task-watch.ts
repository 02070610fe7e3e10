// Follows one task as it changes, for a live view (GET /v2/tasks/:id/events). The worker may be another
// process on the same database, so changes are found through the database's change stamp (Db.changeStamp:
// SQLite's data_version, PostgreSQL's notifications), read often because reading it costs next to
// nothing; the task itself is read when the stamp moved or cannot be told, and at the latest every
// MAX_QUIET_MS whatever it says.
import type { Db } from '../db/create-db.ts';
import { AppError } from '../errors.ts';
import { type TaskView, getTask, isEnded } from './tasks.service.ts';

/**
 * How often the change stamp is looked at: while the database is busy (an import writing) it moves
 * at nearly every look, so this also bounds how often each stream reads its task.
 */
const STAMP_EVERY_MS = 50;
/** The longest the task goes unread, whatever the stamp says. */
const MAX_QUIET_MS = 250;

export interface TaskUpdate {
  task: TaskView;
  /** The last update: the task has ended (or was removed, then `task` is its last state seen). */
  final: boolean;
}

const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** Waits until the stamp differs from `seen`, MAX_QUIET_MS have passed, or `signal` aborts. */
export async function nextChance(db: Db, seen: number | undefined, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + MAX_QUIET_MS;
  while (!signal.aborted && Date.now() < deadline) {
    await pause(STAMP_EVERY_MS, signal);
    const stamp = db.changeStamp();
    if (seen === undefined || stamp === undefined || stamp !== seen) return;
  }
}

/**
 * The team's task now, then again each time it changes, ending with its final state (one update only
 * for a task that has already ended). Throws a 404 when the task is not the team's; stops without a
 * word when `signal` aborts (the client went away).
 */
export async function* watchTask(db: Db, teamId: number, id: number, signal: AbortSignal): AsyncGenerator<TaskUpdate> {
  let stamp = db.changeStamp();
  let task = await getTask(db.kysely, teamId, id);
  let sent = JSON.stringify(task);
  yield { task, final: isEnded(task.status) };
  while (!isEnded(task.status)) {
    await nextChance(db, stamp, signal);
    if (signal.aborted) return;
    // Taken before the read: a change during the read moves it again and is read next time.
    stamp = db.changeStamp();
    try {
      task = await getTask(db.kysely, teamId, id);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
      // Removed meanwhile: its last state seen ends the stream.
      yield { task, final: true };
      return;
    }
    const text = JSON.stringify(task);
    if (text === sent) continue;
    sent = text;
    yield { task, final: isEnded(task.status) };
  }
}
