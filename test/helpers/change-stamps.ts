// Waiting on a database's change stamp (Db.changeStamp): other processes' changes, and PostgreSQL's
// notifications of this process's own, arrive a moment after the write.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../src/db/create-db.ts';

/**
 * The stamp once it has not moved for `quietMs`, so that changes on their way have landed; whatever it
 * is after `withinMs` otherwise.
 */
export async function settledStamp(db: Db, quietMs: number, withinMs = 2000): Promise<number | undefined> {
  const until = Date.now() + withinMs;
  let stamp = db.changeStamp();
  for (;;) {
    await sleep(quietMs);
    const now = db.changeStamp();
    if (now === stamp || Date.now() >= until) return now;
    stamp = now;
  }
}

/** The stamp once it differs from `from`, or whatever it is after `withinMs`. */
export async function stampAfter(db: Db, from: number | undefined, withinMs = 2000): Promise<number | undefined> {
  const until = Date.now() + withinMs;
  while (db.changeStamp() === from && Date.now() < until) await sleep(2);
  return db.changeStamp();
}
