// GET /v2/audit: the team's audit trail for its admins, newest first.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Context } from '../../context.ts';
import { listAudit } from '../../services/audit.service.ts';
import { requireAdmin } from '../plugins/auth.ts';
import { AuditItem, AuditListQuery } from '../schemas/v2-audit.ts';
import { ListOf, problemResponses } from '../schemas/v2.ts';
import { decodeCursor, encodeCursor, isIdKey, sendList } from './cursor.ts';
import { TEAM_ROUTE } from '../plugins/project-access.ts';

export const auditRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/audit',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['audit'],
          summary: 'The team’s write requests (who, with which key, what, when, and the answer’s status), newest first (admin scope)',
          description: 'Rows are kept AUDIT_RETENTION_DAYS days (90 by default). A write is listed a moment after its answer.',
          querystring: AuditListQuery,
          response: { 200: ListOf(AuditItem), ...problemResponses },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        const { limit = 100, cursor, count, ...filters } = request.query;
        const { nextId, ...page } = await listAudit(ctx.db.kysely, request.principal.teamId, { ...filters, limit, count, afterCursor: decodeCursor(cursor, isIdKey) });
        return sendList(request, reply, { ...page, nextCursor: nextId === null ? null : encodeCursor(nextId) });
      },
    );
  };
