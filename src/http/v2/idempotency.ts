// Idempotency-Key on v2 creates (every POST). A client that lost the answer to a create retries with
// the same key and gets the first answer again instead of a second resource. The first request claims
// the key in the database (so this holds across replicas), its successful answer is kept for a day,
// and a retry replays it with `Idempotent-Replayed: true`. The same key on another request (method,
// path or body) is a 422; a retry while the first is still being answered is a 409. A first request
// that fails lets the key go, so the retry runs anew. A claim whose request never finished (the
// process died) is taken over after a few minutes.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/create-db.ts';
import { AppError, conflict, validation } from '../../errors.ts';
import * as kept from '../../repositories/idempotency.repository.ts';
import { IdempotencyHeaders } from '../schemas/v2.ts';

/** How long an answer is kept for retries. */
const KEEP_MS = 24 * 60 * 60 * 1000;
/** How long an unanswered claim holds the key before a retry may take it over. */
const ABANDONED_CLAIM_MS = 5 * 60 * 1000;
/** Expired answers are removed at most this often per process. */
const SWEEP_EVERY_MS = 60 * 1000;
/** The answer headers a replay repeats. */
const REPLAYED_HEADERS = ['content-type', 'etag', 'location'] as const;
/** Answers larger than this are not kept (a retry then gets a 409 after the first succeeded). */
const MAX_KEPT_BODY_CHARS = 1024 * 1024;
const KEY_FORM = /^[\x21-\x7e]{1,255}$/;

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: kept.RequestKey | null;
  }
}

/** What makes two requests the same: method, path with query, and body. */
function fingerprintOf(request: FastifyRequest): string {
  const hash = createHash('sha256').update(`${request.method} ${request.url}\n`);
  // A multipart body is streamed by the handler, after this, and never held whole: its type (with
  // the boundary) and length stand for it. Other files of the same length under the same key are
  // not told apart; docs/api-v2.md says so.
  if (request.body !== undefined) hash.update(JSON.stringify(request.body));
  else hash.update(`${request.headers['content-type'] ?? ''} ${request.headers['content-length'] ?? ''}`);
  return hash.digest('base64url');
}

function replay(reply: FastifyReply, answer: kept.KeptAnswer): FastifyReply {
  void reply.headers(answer.headers).header('idempotent-replayed', 'true');
  return reply.code(answer.status!).send(answer.body);
}

/** Whether the hooks below honour Idempotency-Key on a route: every POST made with a key or session. */
export const honoursIdempotencyKey = (method: string | string[], config: { public?: boolean } | undefined): boolean =>
  [method].flat().includes('POST') && config?.public !== true;

export function registerIdempotency(app: FastifyInstance, db: Db): void {
  let lastSweep = 0;
  app.decorateRequest('idempotencyClaim', null);

  // The OpenAPI document declares the header on exactly the routes the hooks honour it on: a route
  // cannot forget it, nor declare it where it is not kept.
  app.addHook('onRoute', (route) => {
    if (!honoursIdempotencyKey(route.method, route.config as { public?: boolean } | undefined)) return;
    const schema = (route.schema ??= {});
    const headers = (schema.headers ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> };
    schema.headers = { ...headers, properties: { ...headers.properties, ...IdempotencyHeaders.properties } };
  });

  app.addHook('preHandler', async (request, reply) => {
    const header = request.headers['idempotency-key'];
    // Signing in (no principal yet) is never replayed: its answer sets a secret cookie.
    if (!honoursIdempotencyKey(request.method, request.routeOptions.config) || header === undefined || !request.principal) return;
    const idempotencyKey = Array.isArray(header) ? header[0]! : header;
    if (!KEY_FORM.test(idempotencyKey)) {
      throw validation('Idempotency-Key must be 1 to 255 printable ASCII characters', { in: 'headers', pointer: '/idempotency-key' });
    }
    const now = new Date();
    if (now.getTime() - lastSweep > SWEEP_EVERY_MS) {
      lastSweep = now.getTime();
      await kept.sweepExpired(db.kysely, now);
    }
    const key = { keyId: request.principal.keyId, idempotencyKey };
    const fingerprint = fingerprintOf(request);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (await kept.claim(db.kysely, key, fingerprint, now, KEEP_MS)) {
        request.idempotencyClaim = key;
        return;
      }
      const first = await kept.find(db.kysely, key);
      if (!first) continue; // let go between the two statements: claim again
      const abandoned = first.status === null && now.getTime() - Date.parse(first.createdAt) > ABANDONED_CLAIM_MS;
      if (Date.parse(first.expiresAt) <= now.getTime() || abandoned) {
        await kept.release(db.kysely, key);
        continue;
      }
      if (first.fingerprint !== fingerprint) {
        throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for another request', { in: 'headers', pointer: '/idempotency-key' });
      }
      if (first.status === null) throw conflict('a request with this Idempotency-Key is still being answered; retry later');
      return replay(reply, first);
    }
    throw conflict('a request with this Idempotency-Key is still being answered; retry later');
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const key = request.idempotencyClaim;
    if (!key) return payload;
    request.idempotencyClaim = null;
    const status = reply.statusCode;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    if (status >= 200 && status < 300 && body !== undefined && body.length <= MAX_KEPT_BODY_CHARS) {
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      await kept.keep(db.kysely, key, { status, headers, body });
    } else if (status < 200 || status >= 300) {
      await kept.release(db.kysely, key);
    }
    return payload;
  });

  // A request that ends without an answer (the client left) lets its key go.
  app.addHook('onRequestAbort', async (request) => {
    const key = request.idempotencyClaim;
    if (!key) return;
    request.idempotencyClaim = null;
    await kept.release(db.kysely, key);
  });
}

/**
 * For an answer that must never be stored, such as one carrying a new API key: lets the request's
 * Idempotency-Key go before the answer is sent, so nothing of it is kept and a retry runs anew.
 */
export async function forgoReplay(db: Db, request: FastifyRequest): Promise<void> {
  const key = request.idempotencyClaim;
  if (!key) return;
  request.idempotencyClaim = null;
  await kept.release(db.kysely, key);
}
