// Checkpoints during a long run of write transactions (a large import) on SQLite. SQLite's own
// checkpoint runs inside the commit that crosses its step, on the writer's thread: for a large import,
// about two seconds of fsyncs and copying in which the task (and every request of the process) waits.
// While bulk writes are held, the writer's connection does not checkpoint: the log grows, and a thread
// of its own copies it into the database file only when it is long (BULK_CHECKPOINTS) and once the
// holds end. The writer's connection also keeps more pages (BULK_CACHE_KIB) and its statement journals
// in memory meanwhile.
import type SQLite from 'better-sqlite3';
import type { Worker } from 'node:worker_threads';
import { CountedHold } from '../counted-hold.ts';
import { startModuleThread } from '../threads.ts';
import type { CheckpointThreadData } from './sqlite-checkpoint-thread.ts';

/** SQLite's own checkpoint step, in pages: what the writer's connection uses outside bulk writes. */
export const DEFAULT_CHECKPOINT_PAGES = 1000;

export type BulkCheckpoints = Omit<CheckpointThreadData, 'file'>;

export const BULK_CHECKPOINTS: BulkCheckpoints = {
  // 1 GiB. A checkpoint copies every page the log holds and then syncs the database file, and the
  // writer slows meanwhile; a page that many batches change (the hash index takes each image at a
  // random place) is copied again by every checkpoint. Copying every 500 ms, an import of 100,000
  // images copied 57,000 pages, and its task took 8.1 s (a mean of eight rounds); with its log copied
  // after it, 6.2 to 6.9 s. So the log grows while bulk writes are held, up to this length (that
  // import's reached about 900 MB), and is copied once they end; the writer's journal_size_limit
  // (create-db.ts) gives the room back.
  restartBytes: 1024 * 1024 * 1024,
  // How often the thread looks at the log's length: a stat of its file.
  pauseMs: 500,
};

/**
 * The writer connection's page cache while bulk writes are held, in KiB (better-sqlite3's default is
 * 16,000). Each image an import writes is looked up in the blobs' primary key (its foreign key) and
 * added to the images' hash index, both at random places. For 100,000 images the pages read that way
 * came to about 2,100 of 8 KiB (two thirds of them the blobs' key), a little more than the default
 * holds: every batch read them again from the file, 75,000 reads per import. 32 MiB hold them; the
 * cache shrinks back when the last hold is released.
 */
export const BULK_CACHE_KIB = 32_768;

/** temp_store = MEMORY. */
const TEMP_STORE_MEMORY = 2;
/** How soon a refused setting is tried again. */
const RETRY_MS = 100;

/** The thread keeps a connection and little else. */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16 };

export interface BulkWriteHolds {
  /** Holds bulk writes until the answer is called. */
  hold(): () => void;
  /**
   * Asks every checkpoint thread to copy the rest of the log and end, and waits until they have, so
   * that no thread still has the database's files open when the connection closes.
   */
  close(): Promise<void>;
}

/**
 * Counts the holds of bulk writes on `connection` (the database in `file`): while any is held, the
 * checkpoint thread runs and the connection's own checkpoints are off, until the thread has ended
 * after the last hold, and the connection's cache is larger and its statement journals in memory.
 * Should the thread fail, the connection checkpoints itself again, in its usual steps: a step of the
 * thread's length would copy a gigabyte inside one commit.
 */
export function bulkWriteHolds(connection: SQLite.Database, file: string, settings = BULK_CHECKPOINTS): BulkWriteHolds {
  let thread: Worker | null = null;
  /** Every thread not yet ended: a stopped one still copies the rest of the log and closes its files. */
  const living = new Set<Worker>();
  /** Once closed, a hold starts no thread: nobody would wait for it. */
  let closed = false;

  /** The connection's cache size as it was before the first hold (the pragma's own form). */
  let cacheSize: number | null = null;
  /** The connection's temp_store before the first hold, while the hold's setting is in place. */
  let tempStore: number | null = null;

  // A batch of an import inserts its images 500 a statement inside its transaction. SQLite keeps the
  // pages such a statement changes in a statement journal, and spills it to a temporary file past
  // 64 KiB: for 100,000 images, 100,000 writes of a page. In memory it holds the pages one statement
  // changes, a few megabytes freed when it ends. Only while bulk writes are held: with temp_store in
  // memory every sort and temporary index is held whole (renaming a tag sorts the objects of every
  // image that uses it). The change applies from the connection's next transaction, and drops the
  // connection's temporary tables (we keep none). SQLite refuses it while the connection's temporary
  // database is in a transaction: a hold then goes without it, and at the end the setting is put back
  // once it can be.
  const setTempStore = (value: number): boolean => {
    try {
      connection.pragma(`temp_store = ${value}`);
      return true;
    } catch {
      return false;
    }
  };
  const keepJournalsInMemory = () => {
    if (tempStore !== null) return;
    const previous = connection.pragma('temp_store', { simple: true }) as number;
    if (setTempStore(TEMP_STORE_MEMORY)) tempStore = previous;
  };
  const restoreTempStore = () => {
    if (tempStore === null || holds.held) return;
    if (!connection.open || setTempStore(tempStore)) {
      tempStore = null;
      return;
    }
    setTimeout(restoreTempStore, RETRY_MS).unref();
  };

  const start = () => {
    if (closed || !connection.open) return;
    connection.pragma('wal_autocheckpoint = 0');
    cacheSize = connection.pragma('cache_size', { simple: true }) as number;
    connection.pragma(`cache_size = ${-BULK_CACHE_KIB}`);
    keepJournalsInMemory();
    const data: CheckpointThreadData = { file, ...settings };
    const started = startModuleThread(new URL('./sqlite-checkpoint-thread.ts', import.meta.url), { workerData: data, resourceLimits: THREAD_LIMITS });
    started.on('error', () => {
      if (thread === started) connection.pragma(`wal_autocheckpoint = ${DEFAULT_CHECKPOINT_PAGES}`);
    });
    started.on('exit', () => {
      if (thread === started) thread = null;
      living.delete(started);
    });
    // It never keeps the process alive: an exit in the middle of a checkpoint loses nothing.
    started.unref();
    thread = started;
    living.add(started);
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
    restoreTempStore();
    const stopping = thread;
    thread = null;
    if (!stopping) return checkpointItself();
    // The connection checkpoints itself again once the thread has copied what is left (it ends with
    // that), unless bulk writes started again meanwhile.
    stopping.once('exit', checkpointItself);
    stopping.postMessage('stop');
  };

  const holds = new CountedHold(start, stop);
  return {
    hold: () => holds.hold(),
    async close() {
      closed = true;
      const ending = [...living].map((running) => {
        const ended = new Promise<void>((resolve) => {
          running.once('exit', () => resolve());
        });
        // Waited for now: the process stays until it has ended.
        running.ref();
        running.postMessage('stop');
        return ended;
      });
      await Promise.all(ending);
    },
  };
}
