// Work that runs beside the API in a worker role: the blob sweep, the removal of expired export
// archives, and the task runner.
import type { FastifyBaseLogger } from 'fastify';
import type { Context } from '../context.ts';
import { sweepBlobs } from '../services/blob-sweep.service.ts';
import { expireExports } from '../services/export-retention.service.ts';
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
    running = Promise.all([blobs, exports]);
  };
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  timer.unref();
  const handlers = taskHandlers(ctx);
  const runner: TaskRunner | null = Object.keys(handlers).length > 0 ? startTaskRunner(ctx, log, { handlers, leaseMs: ctx.config.tasks.leaseMs, pollMs: ctx.config.tasks.pollMs }) : null;
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all([runner?.stop(), running]);
    },
  };
}
