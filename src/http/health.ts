// GET /healthz: 200 once the database and the blob store answer, 503 otherwise. No key needed.
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.ts';

export function registerHealth(app: FastifyInstance, ctx: Context): void {
  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await Promise.all([ctx.db.ping(), ctx.blobs.ping()]);
      return { status: 'ok' };
    } catch (error) {
      app.log.warn({ err: error }, 'health check failed');
      return reply.code(503).send({ error: 'INTERNAL', details: { message: 'database or storage unavailable' } });
    }
  });
}
