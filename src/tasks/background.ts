// Work that runs beside the API in a worker role: the blob sweep (and, with the task runner, tasks).
import type { FastifyBaseLogger } from 'fastify';
import type { Context } from '../context.ts';
import { sweepBlobs } from '../services/blob-sweep.service.ts';

export interface BackgroundWork {
  stop(): Promise<void>;
}

const SWEEP_EVERY_MS = 10 * 60 * 1000;

export function startBackgroundWork(ctx: Context, log: FastifyBaseLogger): BackgroundWork {
  let running: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    running = sweepBlobs(ctx).then(
      (result) => {
        if (result.blobsRemoved || result.expiredUploads) log.info(result, 'blob sweep');
      },
      (error: unknown) => log.error({ err: error }, 'blob sweep failed'),
    );
  };
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
