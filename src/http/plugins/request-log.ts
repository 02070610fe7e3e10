// Request ids and the request log: one JSON line per request, written when its answer is complete,
// in place of Fastify's two (`incoming request`, `request completed`). The line names the key by its
// public prefix only; no header (Authorization, x-api-key, Cookie) and no query string is written.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import type { Principal } from '../../services/keys.service.ts';

export const REQUEST_ID_HEADER = 'x-request-id';

/** Told of a request once its answer is complete (or decided, when the client left before it was sent). */
export type AnswerObserver = (request: FastifyRequest, reply: FastifyReply) => void;

/** Whether the client hung up before the answer was sent (the handler still ran to its end). */
export const clientLeft = (reply: FastifyReply): boolean => reply.raw.destroyed && !reply.raw.writableFinished;

/**
 * Calls `observer` once per request: when its answer is complete (onResponse), or, when the client
 * hangs up first, once the server has decided the answer (onSend after the hang-up, or the hang-up
 * after onSend). Fastify skips onResponse for a closed connection while the handler still runs and
 * commits, so a write must not depend on it to be logged, counted and audited.
 */
export function onAnswered(app: FastifyInstance, observer: AnswerObserver): void {
  const seen = new WeakSet<FastifyRequest>();
  const once = (request: FastifyRequest, reply: FastifyReply) => {
    if (seen.has(request)) return;
    seen.add(request);
    observer(request, reply);
  };
  app.addHook('onSend', (request, reply, payload, done) => {
    if (clientLeft(reply)) once(request, reply);
    // 'close' follows 'finish' too; only a close without a finished answer is a hang-up.
    else reply.raw.once('close', () => clientLeft(reply) && once(request, reply));
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    once(request, reply);
    done();
  });
}

/** A caller's request id is taken when it is 1 to 128 printable ASCII characters (no space). */
const ACCEPTED_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** The longest path a log line carries; a longer one is cut (a URL may be 16 KiB). */
const LOGGED_PATH_LENGTH = 1024;

/** The caller's `x-request-id` when it is acceptable, else a new UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const header = request.headers[REQUEST_ID_HEADER];
  const given = Array.isArray(header) ? header[0] : header;
  return given !== undefined && ACCEPTED_REQUEST_ID.test(given) ? given : randomUUID();
}

/** Fastify options of one app: our request ids, and no request lines of Fastify's own. */
export const requestLogOptions = () =>
  ({
    genReqId: requestIdOf,
    // The header is read (and checked) by genReqId: Fastify's own reading would take any value.
    requestIdHeader: false,
    logController: new LogController({ disableRequestLogging: true }),
  }) satisfies Partial<FastifyServerOptions>;

/** The principal of an authenticated request; routes outside /v1 and /v2 have none. */
export const principalOf = (request: FastifyRequest): Principal | null => (request as { principal?: Principal | null }).principal ?? null;

/** The route pattern that answered (`/v2/images/:id`), or null when no route matched. */
export const routeOf = (request: FastifyRequest): string | null => request.routeOptions.url ?? null;

/** Sets the x-request-id header of the answer (called as each request begins, and by answers given before any hook). */
export function echoRequestId(request: FastifyRequest, reply: FastifyReply): void {
  void reply.header(REQUEST_ID_HEADER, request.id);
}

/** Writes the request's line; called once its answer is complete. */
export function logRequest(request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?', 1)[0]!;
  request.log.info(
    {
      method: request.method,
      route: routeOf(request),
      path: path.length > LOGGED_PATH_LENGTH ? `${path.slice(0, LOGGED_PATH_LENGTH)}…` : path,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      keyPrefix: principalOf(request)?.keyPrefix,
      // The status is the one the server decided; the client never read it.
      clientLeft: clientLeft(reply) || undefined,
    },
    'request',
  );
}

export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    echoRequestId(request, reply);
    done();
  });
  onAnswered(app, logRequest);
}
