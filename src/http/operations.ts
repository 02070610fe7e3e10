// What operators see of the API: request ids and the request log, the Prometheus metrics, and the
// audit trail of writes. Registered before the routes, so that their hooks see every request.
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.ts';
import { registerAuditTrail } from './audit-trail.ts';
import { registerMetrics } from './metrics.ts';
import { type AnswerObserver, echoRequestId, logRequest, registerRequestLog } from './plugins/request-log.ts';

/**
 * Registers them all; answers what to call for a request answered outside the routes and their hooks
 * (Fastify's frameworkErrors: a URL the router cannot read), so that it is logged and counted too.
 */
export function registerOperations(app: FastifyInstance, ctx: Context): AnswerObserver {
  registerRequestLog(app);
  const measure = registerMetrics(app, ctx);
  registerAuditTrail(app, ctx);
  return (request, reply) => {
    echoRequestId(request, reply);
    reply.raw.once('finish', () => {
      logRequest(request, reply);
      measure?.(request, reply);
    });
  };
}
