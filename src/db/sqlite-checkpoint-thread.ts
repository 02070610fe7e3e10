// Runs in a thread while bulk writes are held (see sqlite-checkpoints.ts): copies SQLite's write-ahead
// log into the database file from a connection of its own once the log has grown long, so the writing
// thread goes on meanwhile, and copies the rest when the holds end.
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

export interface CheckpointThreadData {
  /** The database file. */
  file: string;
  /** The log's length, in pages, from which it is copied and the next writer starts it anew. */
  restartPages: number;
  /** The pause between two looks at the log's length. */
  pauseMs: number;
}

interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

const { file, restartPages, pauseMs } = workerData as CheckpointThreadData;
/** The bytes of a log file's header, and of each frame's besides its page (SQLite's file format). */
const WAL_HEADER = 32;
const WAL_FRAME_HEADER = 24;
const connection = new SQLite(file);
// A truncation (a restart that also empties the file) waits for the writer's transaction in progress
// (a few milliseconds), then holds the write lock while it copies what is left and waits for readers to
// leave the log. Our writers take that lock before they read (create-db.ts), so no writer waits for it
// while it waits for the writer; a reader that stays (a long stream) makes it give up after this long,
// having copied all it could.
connection.pragma('busy_timeout = 200');
const checkpoint = (mode: 'PASSIVE' | 'TRUNCATE') => (connection.pragma(`wal_checkpoint(${mode})`) as CheckpointResult[])[0]!;

const log = `${file}-wal`;
const frameBytes = (connection.pragma('page_size', { simple: true }) as number) + WAL_FRAME_HEADER;
/**
 * The log's length in pages, read from its file's size, which costs no lock and copies nothing. The
 * thread truncates the file whenever it starts the log anew, so the size is the log's length; a file
 * longer than its log (left so by a checkpoint before the holds) only brings the first copy forward.
 */
const framesInLog = () => Math.floor(Math.max(0, (fs.statSync(log, { throwIfNoEntry: false })?.size ?? 0) - WAL_HEADER) / frameBytes);

let running = true;
parentPort!.on('message', () => {
  running = false;
});

while (running) {
  // Passive: copies what the log holds now without stopping the writer, which may append meanwhile.
  // The log only starts anew once all of it is copied: a second passive copies what was appended
  // during the first, and the truncation what is left (little) while it holds the writers back.
  if (framesInLog() >= restartPages) {
    checkpoint('PASSIVE');
    checkpoint('PASSIVE');
    checkpoint('TRUNCATE');
  }
  await sleep(pauseMs);
}
// The last of the bulk writes, copied here rather than in the writer's next commit.
checkpoint('PASSIVE');
connection.close();
parentPort!.close();
