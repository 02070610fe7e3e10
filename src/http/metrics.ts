// GET /metrics: the Prometheus text exposition of this process's registry, for a scraper that sends
// `Authorization: Bearer <METRICS_TOKEN>`. Without METRICS_TOKEN there is no such route (404) and no
// request is measured. The route label is the route's pattern (`/v2/images/:id`), never the URL, so
// the number of series stays bounded; requests no route matched share one label.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics } from 'prom-client';
import type { Context } from '../context.ts';
import { AppError } from '../errors.ts';
import { registerTaskGauges } from '../metrics/task-gauges.ts';
import { type AnswerObserver, onAnswered, routeOf } from './plugins/request-log.ts';

/** The route label of a request no route matched (a 404, a URL the router could not read). */
export const UNMATCHED_ROUTE = 'unmatched';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Whether the request carries the token; compared in constant time (of equal-length digests). */
function presentsToken(request: FastifyRequest, expected: Buffer): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), expected);
}

/** Registries already given the scrape-time metrics: an app built twice on one context adds them once. */
const prepared = new WeakSet<object>();

/** Registers GET /metrics and the request measures when METRICS_TOKEN is set; answers the measure of one answered request. */
export function registerMetrics(app: FastifyInstance, ctx: Context): AnswerObserver | null {
  const token = ctx.config.operations.metricsToken;
  if (!token) return null;
  const { registry, httpRequests, httpDuration } = ctx.metrics;
  if (!prepared.has(registry)) {
    prepared.add(registry);
    // Memory, CPU, event loop lag and garbage collection of this process, read when scraped.
    collectDefaultMetrics({ register: registry });
    registerTaskGauges(registry, ctx.db.kysely);
  }

  const observe = (request: FastifyRequest, reply: FastifyReply) => {
    const labels = { method: request.method, route: routeOf(request) ?? UNMATCHED_ROUTE, status: String(reply.statusCode) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, reply.elapsedTime / 1000);
  };
  onAnswered(app, observe);

  const expected = digest(token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!presentsToken(request, expected)) {
      void reply.header('www-authenticate', 'Bearer');
      throw new AppError('UNAUTHORIZED', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
    const text = await registry.metrics();
    return reply.header('cache-control', 'no-store').type(registry.contentType).send(text);
  });
  return observe;
}
