// Checkpoints during a long run of write transactions (a large import) on SQLite. SQLite's own
// checkpoint runs inside the commit that crosses its step, on the writer's thread: for a large import,
// about two seconds of fsyncs and copying in which the task (and every request of the process) waits.
// While bulk writes are held, a thread of its own checkpoints instead, and the writer's connection
// does not.
import type SQLite from 'better-sqlite3';
import type { Worker } from 'node:worker_threads';
import { CountedHold } from '../counted-hold.ts';
import { startModuleThread } from '../threads.ts';
import type { CheckpointThreadData } from './sqlite-checkpoint-thread.ts';

/** SQLite's own checkpoint step, in pages: what the writer's connection uses outside bulk writes. */
export const DEFAULT_CHECKPOINT_PAGES = 1000;

export type BulkCheckpoints = Omit<CheckpointThreadData, 'file'>;

export const BULK_CHECKPOINTS: BulkCheckpoints = {
  // 20,000 pages of 8 KiB: the log stays under about 160 MB on disk.
  restartPages: 20_000,
  pauseMs: 50,
};

/** The thread keeps a connection and little else. */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16 };

/**
 * Counts the holds of bulk writes on `connection` (the database in `file`): while any is held, the
 * checkpoint thread runs and the connection's own checkpoints are off, until the thread has ended
 * after the last hold. Should the thread fail, the connection checkpoints itself again, in steps of
 * the thread's restart length.
 */
export function bulkWriteHolds(connection: SQLite.Database, file: string, settings = BULK_CHECKPOINTS): () => () => void {
  let thread: Worker | null = null;

  const start = () => {
    connection.pragma('wal_autocheckpoint = 0');
    const data: CheckpointThreadData = { file, ...settings };
    const started = startModuleThread(new URL('./sqlite-checkpoint-thread.ts', import.meta.url), { workerData: data, resourceLimits: THREAD_LIMITS });
    started.on('error', () => {
      if (thread === started) connection.pragma(`wal_autocheckpoint = ${settings.restartPages}`);
    });
    started.on('exit', () => {
      if (thread === started) thread = null;
    });
    // It never keeps the process alive: an exit in the middle of a checkpoint loses nothing.
    started.unref();
    thread = started;
  };

  const checkpointItself = () => {
    if (!holds.held && connection.open) connection.pragma(`wal_autocheckpoint = ${DEFAULT_CHECKPOINT_PAGES}`);
  };

  const stop = () => {
    const stopping = thread;
    thread = null;
    if (!stopping) return checkpointItself();
    // The connection checkpoints itself again once the thread has copied what is left (it ends with
    // that), unless bulk writes started again meanwhile.
    stopping.once('exit', checkpointItself);
    stopping.postMessage('stop');
  };

  const holds = new CountedHold(start, stop);
  return () => holds.hold();
}
