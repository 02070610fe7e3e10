// `annostore worker`: the background work without the API (the composition root of a worker process,
// as server.ts is of a serving one).
import pino from 'pino';
import type { Config } from './config.ts';
import { createContext } from './context.ts';
import { removeStaleUploads } from './storage/upload-temp.ts';
import { startBackgroundWork } from './tasks/background.ts';
import { serveWorkerMetrics } from './http/worker-metrics.ts';

export async function startWorkerProcess(config: Config) {
  const log = pino({ level: config.logLevel });
  const ctx = await createContext(config);
  await removeStaleUploads(config, log);
  // Before any work starts: a port that cannot be had stops the worker at once.
  const metrics = await serveWorkerMetrics(ctx).catch(async (error: unknown) => {
    await ctx.close();
    throw error;
  });
  const work = startBackgroundWork(ctx, log);
  log.info(metrics ? { metrics: `${metrics.url}/metrics` } : {}, 'worker started');
  return {
    log,
    /** Where the worker serves GET /metrics, if it does. */
    metricsUrl: metrics ? `${metrics.url}/metrics` : undefined,
    async stop() {
      await Promise.all([work.stop(), metrics?.close()]);
      await ctx.close();
    },
  };
}
