// Runs in a thread while bulk writes are held (see sqlite-checkpoints.ts): copies SQLite's write-ahead
// log into the database file from a connection of its own once the log has grown long, so the writing
// thread goes on meanwhile, and copies the rest when the holds end.
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { copyAndRestart } from './sqlite-log-restart.ts';

export interface CheckpointThreadData {
  /** The database file. */
  file: string;
  /** The log file's length, in bytes, from which the log is copied and started anew. */
  restartBytes: number;
  /** The pause between two looks at the log's length. */
  pauseMs: number;
}

const { file, restartBytes, pauseMs } = workerData as CheckpointThreadData;
const connection = new SQLite(file);
// A truncation (a restart that also empties the file) waits for the writer's transaction in progress
// (a few milliseconds), then holds the write lock while it copies what is left and waits for readers to
// leave the log. Our writers take that lock before they read (create-db.ts), so no writer waits for it
// while it waits for the writer; a reader that stays (a long stream) makes it give up after this long,
// having copied all it could.
connection.pragma('busy_timeout = 200');

const log = `${file}-wal`;
/**
 * The log file's length, which costs no lock and copies nothing to read. The thread truncates the file
 * whenever it starts the log anew, and the writer's journal_size_limit cuts it back when the writer
 * does, so it is the log's length give or take that limit.
 */
const logBytes = () => fs.statSync(log, { throwIfNoEntry: false })?.size ?? 0;

let running = true;
parentPort!.on('message', () => {
  running = false;
});

while (running) {
  if (logBytes() >= restartBytes) copyAndRestart(connection);
  await sleep(pauseMs);
}
// The last of the bulk writes, copied here rather than in the writer's next commit.
connection.pragma('wal_checkpoint(PASSIVE)');
connection.close();
parentPort!.close();
