// Counts of the tasks of every team together, for the metrics: read when /metrics is scraped, so
// every replica reports what the database holds.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';

export interface TaskCount {
  type: string;
  status: string;
  count: number;
}

/** How many tasks there are of each type in each status. */
export async function countByTypeAndStatus(db: Kysely<Database>): Promise<TaskCount[]> {
  const rows = await db
    .selectFrom('tasks')
    .select(['type', 'status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .groupBy(['type', 'status'])
    .execute();
  return rows.map((r) => ({ type: r.type, status: r.status, count: Number(r.n) }));
}

/** When the longest-waiting queued task was created, or undefined with none queued. */
export async function oldestQueuedAt(db: Kysely<Database>): Promise<string | undefined> {
  const row = await db
    .selectFrom('tasks')
    .select((eb) => eb.fn.min<string | null>('created_at').as('at'))
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return row?.at ?? undefined;
}
