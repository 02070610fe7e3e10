// Records every write request (POST, PUT, PATCH, DELETE) under /v1 and /v2 in the audit trail, once
// its answer is complete, failed ones included, and also when the client hung up before the answer
// was sent (the write still happened). Only requests with a known caller are recorded: a
// request refused for want of a valid key (401) or a session write from another site (403 before the
// caller is known) has no team whose admins could read it; those stay in the request log and the
// metrics. A write to no route writes nothing and is not recorded either.
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.ts';
import { AuditRecorder } from '../services/audit-recorder.ts';
import { onAnswered, principalOf, routeOf } from './plugins/request-log.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The audit trail's writer: `settled()` answers once what was recorded is written. */
    auditTrail: AuditRecorder;
  }
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const AUDITED_PREFIXES = ['/v1/', '/v2/'];
/** The longest path-parameter JSON kept (parameters are ids; the router caps each at 200 characters). */
const MAX_PARAMS_LENGTH = 1000;

function paramsOf(params: unknown): Record<string, unknown> | null {
  if (typeof params !== 'object' || params === null || Object.keys(params).length === 0) return null;
  return JSON.stringify(params).length > MAX_PARAMS_LENGTH ? { truncated: true } : (params as Record<string, unknown>);
}

export function registerAuditTrail(app: FastifyInstance, ctx: Context): void {
  const recorder = new AuditRecorder(ctx.db, app.log);
  app.decorate('auditTrail', recorder);
  onAnswered(app, (request, reply) => {
    const principal = principalOf(request);
    const route = routeOf(request);
    if (principal && route && WRITE_METHODS.has(request.method) && AUDITED_PREFIXES.some((prefix) => route.startsWith(prefix))) {
      recorder.record({
        at: new Date().toISOString(),
        teamId: principal.teamId,
        userId: principal.userId,
        keyId: principal.keyId,
        keyPrefix: principal.keyPrefix,
        method: request.method,
        route,
        params: paramsOf(request.params),
        status: reply.statusCode,
        requestId: request.id,
        durationMs: Math.round(reply.elapsedTime),
      });
    }
  });
  // What was recorded is written before the context (and its database) closes.
  app.addHook('onClose', async () => recorder.settled());
}
