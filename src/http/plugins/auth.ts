// Every /v1 request carries `x-api-key` (/v2 also takes `Authorization: Bearer <key>`, or the web
// interface's session cookie). Missing, unknown or revoked: 401. A write made with the cookie must
// name this server in its Origin header (403 otherwise), so another site's page cannot make it; a
// route marked `config: { public: true }` (signing in) is open to all. A key of scope `read` may only read; the few routes that manage the team
// itself (its keys) ask for `admin` with requireAdmin.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../../db/create-db.ts';
import { AppError } from '../../errors.ts';
import { Authenticator, type Principal } from '../../services/keys.service.ts';
import { SessionAuthenticator } from '../../services/sessions.service.ts';
import { isSameOrigin, sessionTokenOf } from '../session-cookie.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No key or session is asked for. */
    public?: boolean;
    /** A write that a read-only key may make too (signing out changes nothing of the team's). */
    readOnlyAllowed?: boolean;
  }
  interface FastifyRequest {
    principal: Principal;
    /**
     * Db.changeStamp() as the request began, read once for all the answers it may take from a
     * StampedCache (the caller's key, a listing).
     */
    changeStamp: number | undefined;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The key of `Authorization: Bearer <key>`, if that is the header's form. */
function bearerKey(request: FastifyRequest): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

export function registerAuth(app: FastifyInstance, db: Db, options: { bearer?: boolean; sessions?: boolean } = {}): void {
  const authenticator = new Authenticator(db.kysely);
  const sessions = options.sessions ? new SessionAuthenticator(db.kysely) : null;
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('changeStamp', undefined);
  // A callback hook: a kept key is admitted without waiting for anything.
  app.addHook('onRequest', (request, _reply, done) => {
    request.changeStamp = db.changeStamp();
    if (request.routeOptions.config.public) {
      done();
      return;
    }
    const header = request.headers['x-api-key'];
    const key = (Array.isArray(header) ? header[0] : header) || (options.bearer ? bearerKey(request) : undefined);
    const token = key || !sessions ? undefined : sessionTokenOf(request);
    if (!key && !token) {
      done(new AppError('UNAUTHORIZED', options.bearer ? 'missing x-api-key or Authorization: Bearer header' : 'missing x-api-key header'));
      return;
    }
    if (token && !READ_METHODS.has(request.method) && !isSameOrigin(request)) {
      done(new AppError('FORBIDDEN', 'a change made with the session cookie must come from this server’s own pages (Origin)'));
      return;
    }
    const principal = key ? authenticator.authenticate(key, request.changeStamp) : sessions!.authenticate(token!, request.changeStamp);
    const refusal = key ? 'unknown or revoked API key' : 'the session has ended (or never was): sign in again';
    if (principal instanceof Promise) {
      principal.then((found) => admit(request, found, done, refusal), done).catch((error: unknown) => request.log.error({ err: error }, 'key check failed'));
    } else {
      admit(request, principal, done, refusal);
    }
  });
}

function admit(request: FastifyRequest, principal: Principal | null, done: (error?: Error) => void, refusal: string): void {
  if (!principal) {
    done(new AppError('UNAUTHORIZED', refusal));
  } else if (principal.readOnly && !READ_METHODS.has(request.method) && !request.routeOptions.config.readOnlyAllowed) {
    // Known though refused: the request log and the audit trail name the key that tried.
    request.principal = principal;
    done(new AppError('FORBIDDEN', 'this API key is read-only'));
  } else {
    request.principal = principal;
    done();
  }
}

/** Refuses the request unless its key has the admin scope. */
export function requireAdmin(request: FastifyRequest): void {
  if (request.principal.scope !== 'admin') {
    throw new AppError('FORBIDDEN', 'this needs an API key with the admin scope', { scope: request.principal.scope });
  }
}
