// Finished exports keep their archive for a while (EXPORT_RETENTION_DAYS); then the archive is
// removed and the task marked: it stays listed, with `expiredAt` in its meta, and its download is 410.
import type { Context } from '../context.ts';
import * as tasks from '../repositories/tasks.repository.ts';
import { archiveKey } from '../storage/archive-store.ts';

const BATCH = 200;

/** Removes the archives of exports finished before the retention period; answers how many. */
export async function expireExports(ctx: Context, now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - ctx.config.tasks.exportRetentionMs).toISOString();
  let expired = 0;
  for (;;) {
    const batch = await tasks.exportsToExpire(ctx.db.kysely, cutoff, BATCH);
    for (const task of batch) {
      // The archive first: a crash between the two leaves a task that is expired again next time.
      await ctx.archives.delete(archiveKey(task.teamId, task.id));
      await tasks.mergeEndedMeta(ctx.db.kysely, task.id, { expiredAt: now.toISOString(), archive: null });
      expired += 1;
    }
    if (batch.length < BATCH) return expired;
  }
}
