// Gauges of the task queue, read from the database when scraped (a collect() callback) rather than
// counted in a process: a task is queued by one replica and run by another, and every replica should
// report the same truth.
import { Gauge, type Registry } from 'prom-client';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { TASK_STATUSES } from '../tasks/statuses.ts';
import { type TaskCount, countByTypeAndStatus, oldestQueuedAt } from '../repositories/task-counts.repository.ts';
import { TASK_TYPES } from '../tasks/registry.ts';

interface Snapshot {
  counts: TaskCount[];
  oldestQueuedAt: string | undefined;
}

export function registerTaskGauges(registry: Registry, db: Kysely<Database>): void {
  // prom-client collects every metric of a scrape at once: the gauges share the reading in flight,
  // and the next scrape reads anew.
  let reading: Promise<Snapshot> | undefined;
  const snapshot = (): Promise<Snapshot> => {
    reading ??= Promise.all([countByTypeAndStatus(db), oldestQueuedAt(db)])
      .then(([counts, oldest]) => ({ counts, oldestQueuedAt: oldest }))
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };

  new Gauge({
    name: 'annostore_tasks',
    help: 'Tasks in the database, by type and status (every type and status is reported, 0 included)',
    labelNames: ['type', 'status'] as const,
    registers: [registry],
    async collect() {
      const { counts } = await snapshot();
      this.reset();
      // Every known pair is set, so a series drops to 0 rather than vanishing.
      for (const type of TASK_TYPES) for (const status of TASK_STATUSES) this.set({ type, status }, 0);
      for (const { type, status, count } of counts) this.set({ type, status }, count);
    },
  });

  new Gauge({
    name: 'annostore_task_queue_depth',
    help: 'Tasks waiting for a worker (status queued), by type',
    labelNames: ['type'] as const,
    registers: [registry],
    async collect() {
      const { counts } = await snapshot();
      this.reset();
      for (const type of TASK_TYPES) this.set({ type }, 0);
      for (const { type, status, count } of counts) if (status === 'queued') this.set({ type }, count);
    },
  });

  new Gauge({
    name: 'annostore_task_queue_oldest_age_seconds',
    help: 'How long the longest-waiting queued task has waited since it was created; 0 with none queued',
    registers: [registry],
    async collect() {
      const { oldestQueuedAt: at } = await snapshot();
      this.set(at === undefined ? 0 : Math.max(0, (Date.now() - Date.parse(at)) / 1000));
    },
  });
}
