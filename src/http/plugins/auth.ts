// Every /v1 request carries `x-api-key` (/v2 also takes `Authorization: Bearer <key>`). Missing,
// unknown or revoked: 401. A key of scope `read` may only read; the few routes that manage the team
// itself (its keys) ask for `admin` with requireAdmin.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../../db/create-db.ts';
import { AppError } from '../../errors.ts';
import { Authenticator, type Principal } from '../../services/keys.service.ts';

declare module 'fastify' {
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

export function registerAuth(app: FastifyInstance, db: Db, options: { bearer?: boolean } = {}): void {
  const authenticator = new Authenticator(db.kysely);
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('changeStamp', undefined);
  // A callback hook: a kept key is admitted without waiting for anything.
  app.addHook('onRequest', (request, _reply, done) => {
    request.changeStamp = db.changeStamp();
    const header = request.headers['x-api-key'];
    const key = (Array.isArray(header) ? header[0] : header) || (options.bearer ? bearerKey(request) : undefined);
    if (!key) {
      done(new AppError('UNAUTHORIZED', options.bearer ? 'missing x-api-key or Authorization: Bearer header' : 'missing x-api-key header'));
      return;
    }
    const principal = authenticator.authenticate(key, request.changeStamp);
    if (principal instanceof Promise) {
      principal.then((found) => admit(request, found, done), done).catch((error: unknown) => request.log.error({ err: error }, 'key check failed'));
    } else {
      admit(request, principal, done);
    }
  });
}

function admit(request: FastifyRequest, principal: Principal | null, done: (error?: Error) => void): void {
  if (!principal) {
    done(new AppError('UNAUTHORIZED', 'unknown or revoked API key'));
  } else if (principal.readOnly && !READ_METHODS.has(request.method)) {
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
