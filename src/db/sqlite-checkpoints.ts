// Checkpoints during a long run of write transactions (a large import) on SQLite. SQLite's own
// checkpoint runs inside the commit that crosses its step, on the writer's thread: for a large import,
// about two seconds of fsyncs and copying in which the task (and every request of the process) waits.
// While bulk writes are held, a thread of its own checkpoints instead, and the writer's connection
// does not; the writer's connection also keeps more pages in memory (BULK_CACHE_KIB).
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
  // A page that several batches change (the hash index takes each image at a random place) is copied
  // once per checkpoint: an import of 100,000 images copied 77,000 pages with a pause of 50 ms, 57,000
  // with a pause of 1 s. The log grows by about 75 MB between two checkpoints 500 ms apart.
  pauseMs: 500,
};

/**
 * The writer connection's page cache while bulk writes are held, in KiB (SQLite's default is 2,000).
 * Each image an import writes is looked up in the blobs' primary key (its foreign key) and added to
 * the images' hash index, both at random places: for 100,000 images those two indexes take about
 * 2,200 pages of 8 KiB, and with the default cache every batch read them again from the file (75,000
 * reads per import). 32 MiB hold them for a store of about 150,000 blobs; the cache shrinks back when
 * the last hold is released.
 */
export const BULK_CACHE_KIB = 32_768;

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

  /** The connection's cache size as it was before the first hold (the pragma's own form). */
  let cacheSize: number | null = null;

  const start = () => {
    connection.pragma('wal_autocheckpoint = 0');
    cacheSize = connection.pragma('cache_size', { simple: true }) as number;
    connection.pragma(`cache_size = ${-BULK_CACHE_KIB}`);
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

  const shrinkCache = () => {
    if (cacheSize !== null && connection.open) connection.pragma(`cache_size = ${cacheSize}`);
    cacheSize = null;
  };

  const stop = () => {
    shrinkCache();
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
