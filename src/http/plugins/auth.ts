// Every /v1 request carries `x-api-key`. Missing, unknown or revoked: 401. A read-only key may only read.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.ts';
import { AppError } from '../../errors.ts';
import { authenticate, type Principal } from '../../services/keys.service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function registerAuth(app: FastifyInstance, db: Kysely<Database>): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request) => {
    const header = request.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key) throw new AppError('UNAUTHORIZED', 'missing x-api-key header');
    const principal = await authenticate(db, key);
    if (!principal) throw new AppError('UNAUTHORIZED', 'unknown or revoked API key');
    if (principal.readOnly && !READ_METHODS.has(request.method)) {
      throw new AppError('FORBIDDEN', 'this API key is read-only');
    }
    request.principal = principal;
  });
}
