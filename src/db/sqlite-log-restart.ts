// How the checkpoint thread (sqlite-checkpoint-thread.ts) copies a long log into the database file and
// starts it anew, from a connection of its own, while the writer's connection goes on.
import type SQLite from 'better-sqlite3';

/**
 * The most a truncation may have left to copy, in frames of the log (a frame holds a page: 8 MiB at
 * 8 KiB). A truncation copies what is left holding every writer back, then syncs the database file;
 * passive copies, which do not, go first until no more than this is left. In a large import the
 * writer appends thousands of frames during one passive copy of a long log (8,000 during a copy of
 * 135,000 frames that took 0.85 s), so a fixed two passes could leave a truncation that much.
 */
const TRUNCATE_WITHIN_FRAMES = 1024;
/** Passive copies in a row before the thread leaves the log to its next look (the writer outran them). */
const PASSES = 8;

/**
 * Copies the log without holding the writer back until little is left, then starts it anew; answers
 * whether it got that far (a reader that stays, or a writer faster than the copies, keeps it from it).
 */
export function copyAndRestart(connection: SQLite.Database): boolean {
  for (let pass = 0; pass < PASSES; pass += 1) {
    // Passive: copies what the log holds now without stopping the writer, which may append meanwhile.
    const [{ busy, log, checkpointed }] = connection.pragma('wal_checkpoint(PASSIVE)') as [{ busy: number; log: number; checkpointed: number }];
    // Another checkpoint under way (-1 frames): nothing is known of what is left.
    if (busy !== 0 || log < 0) return false;
    if (log - checkpointed <= TRUNCATE_WITHIN_FRAMES) {
      connection.pragma('wal_checkpoint(TRUNCATE)');
      return true;
    }
  }
  return false;
}
