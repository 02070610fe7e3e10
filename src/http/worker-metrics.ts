// GET /metrics of an `annostore worker`: the worker answers no API, but the import and export
// counters of the tasks it runs live in it. Served on WORKER_METRICS_PORT when METRICS_TOKEN is set,
// by the same route as a replica's (src/http/metrics.ts), and nothing else.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Context } from '../context.ts';
import { registerMetrics } from './metrics.ts';
import { registerErrorHandling } from './plugins/error-handler.ts';
import { requestLogOptions } from './plugins/request-log.ts';

export interface WorkerMetrics {
  url: string;
  close(): Promise<void>;
}

/** Starts the worker's /metrics listener, or answers null when it is not configured. */
export async function serveWorkerMetrics(ctx: Context): Promise<WorkerMetrics | null> {
  const { metricsToken, workerMetricsPort } = ctx.config.operations;
  if (!metricsToken || workerMetricsPort === undefined) return null;
  const app: FastifyInstance = Fastify({ logger: false, ...requestLogOptions() });
  registerErrorHandling(app);
  registerMetrics(app, ctx);
  const url = await app.listen({ host: ctx.config.host, port: workerMetricsPort });
  return { url, close: () => app.close() };
}
