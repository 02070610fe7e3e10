// Runs in a thread while bulk writes are held (see sqlite-checkpoints.ts): copies SQLite's write-ahead
// log into the database file from a connection of its own, so the writing thread goes on meanwhile.
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

export interface CheckpointThreadData {
  /** The database file. */
  file: string;
  /** The log's length, in pages, from which the next writer is made to start the log anew. */
  restartPages: number;
  /** The pause between two checkpoints. */
  pauseMs: number;
}

interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

const { file, restartPages, pauseMs } = workerData as CheckpointThreadData;
const connection = new SQLite(file);
// A restart waits for the writer's transaction in progress (a few milliseconds), then holds the write
// lock while it copies what is left and waits for readers to leave the log. Our writers take that lock
// before they read (create-db.ts), so no writer waits for it while it waits for the writer; a reader
// that stays (a long stream) makes it give up after this long, having copied all it could.
connection.pragma('busy_timeout = 200');
const checkpoint = (mode: 'PASSIVE' | 'RESTART') => (connection.pragma(`wal_checkpoint(${mode})`) as CheckpointResult[])[0]!;

let running = true;
parentPort!.on('message', () => {
  running = false;
});

while (running) {
  // Passive: copies what the log holds now without stopping the writer, which may append meanwhile.
  // The log only starts anew once all of it is copied: a second passive copies what was appended
  // during the first, and the restart what is left (little) while it holds the writers back.
  if (checkpoint('PASSIVE').log >= restartPages) {
    checkpoint('PASSIVE');
    checkpoint('RESTART');
  }
  await sleep(pauseMs);
}
// The last of the bulk writes, copied here rather than in the writer's next commit.
checkpoint('PASSIVE');
connection.close();
parentPort!.close();
