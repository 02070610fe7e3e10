// Work that runs beside the API in a worker role: the blob sweep, the removal of expired export
// archives and of audit rows past their retention, the task runner and the webhook deliveries.
import type { FastifyBaseLogger } from 'fastify';
import type { Context } from '../context.ts';
import { sweepBlobs } from '../services/blob-sweep.service.ts';
import { expireAuditEvents } from '../services/audit.service.ts';
import { expireRevisions } from '../services/annotation-revisions.service.ts';
import { expireExports } from '../services/export-retention.service.ts';
import { startDeliveryWorker } from '../webhooks/delivery-worker.ts';
import { taskHandlers } from './registry.ts';
import { type TaskRunner, startTaskRunner } from './runner.ts';

export interface BackgroundWork {
  stop(): Promise<void>;
}

const SWEEP_EVERY_MS = 10 * 60 * 1000;

export function startBackgroundWork(ctx: Context, log: FastifyBaseLogger): BackgroundWork {
  let running: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    const blobs = sweepBlobs(ctx).then(
      (result) => {
        if (result.blobsRemoved || result.expiredUploads) log.info(result, 'blob sweep');
      },
      (error: unknown) => log.error({ err: error }, 'blob sweep failed'),
    );
    const exports = expireExports(ctx).then(
      (expired) => {
        if (expired) log.info({ expired }, 'export archives past their retention removed');
      },
      (error: unknown) => log.error({ err: error }, 'export retention failed'),
    );
    const audit = expireAuditEvents(ctx).then(
      (removed) => {
        if (removed) log.info({ removed }, 'audit rows past their retention removed');
      },
      (error: unknown) => log.error({ err: error }, 'audit retention failed'),
    );
    const revisions = expireRevisions(ctx).then(
      (removed) => {
        if (removed) log.info({ removed }, 'annotation revisions past their retention removed');
      },
      (error: unknown) => log.error({ err: error }, 'revision retention failed'),
    );
    running = Promise.all([blobs, exports, audit, revisions]);
  };
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  timer.unref();
  const handlers = taskHandlers(ctx);
  const runner: TaskRunner | null = Object.keys(handlers).length > 0 ? startTaskRunner(ctx, log, { handlers, leaseMs: ctx.config.tasks.leaseMs, pollMs: ctx.config.tasks.pollMs }) : null;
  const webhooks = startDeliveryWorker(ctx, log);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all([runner?.stop(), webhooks.stop(), running]);
    },
  };
}
