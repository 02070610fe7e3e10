// A test that holds a PostgreSQL row and lets a request run into it waits until the request is waiting
// for that row, instead of sleeping a guess: a loaded machine may take longer to get the request there,
// and a request that came late would not test the wait at all.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/db/types.ts';
import type pg from 'pg';

/** How many sessions wait for a lock that the session running this holds. */
const WAITING_FOR_THIS_SESSION = 'select count(*) as n from pg_stat_activity where pg_backend_pid() = any(pg_blocking_pids(pid))';

async function waitForWaiter(count: () => Promise<number>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await count()) === 0) {
    if (Date.now() > deadline) throw new Error('no session came to wait for the lock');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until another session waits for a lock held by `holder`'s transaction. */
export const waitForLockWaitOn = (holder: Kysely<Database>): Promise<void> =>
  waitForWaiter(async () => Number((await sql<{ n: string }>`${sql.raw(WAITING_FOR_THIS_SESSION)}`.execute(holder)).rows[0]?.n));

/** Waits until another session waits for a lock held by `client`. */
export const waitForLockWaitOnClient = (client: pg.Client): Promise<void> =>
  waitForWaiter(async () => Number((await client.query<{ n: string }>(WAITING_FOR_THIS_SESSION)).rows[0]?.n));
