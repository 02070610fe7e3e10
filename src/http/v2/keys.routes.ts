// GET /v2/me, and the team's API keys for admins: GET /v2/keys, GET /v2/keys/:id, POST /v2/keys,
// DELETE /v2/keys/:id.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { createTeamKey, describeCaller, getTeamKey, listTeamKeys, revokeTeamKey } from '../../services/team-keys.service.ts';
import { requireAdmin } from '../plugins/auth.ts';
import { KeyBody, Me, NewKey, TeamKey } from '../schemas/v2-keys.ts';
import { IdParams, IfMatchHeaders, ListOf, ListQuery, Problem, problemResponses } from '../schemas/v2.ts';
import { decodeCursor, encodeCursor, isIdKey, sendList } from './cursor.ts';
import { ifMatchOf, sendTagged } from './etag.ts';
import { forgoReplay } from './idempotency.ts';
import { TEAM_ROUTE } from '../plugins/project-access.ts';

export const keyRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;

    app.get(
      '/me',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['keys'],
          summary: 'Who the API key belongs to: its team, its user, and the key’s own prefix and scope',
          response: { 200: Me, ...problemResponses },
        },
      },
      async (request) => describeCaller(db, request.principal),
    );

    app.get(
      '/keys',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['keys'],
          summary: 'The team’s API keys, revoked ones too (admin scope); never the keys themselves',
          querystring: Type.Object(ListQuery),
          response: { 200: ListOf(TeamKey), ...problemResponses },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        const { limit = 100, cursor, count } = request.query;
        const { nextId, ...page } = await listTeamKeys(db, request.principal.teamId, { limit, count, afterId: decodeCursor(cursor, isIdKey) });
        return sendList(request, reply, { ...page, nextCursor: nextId === null ? null : encodeCursor(nextId) });
      },
    );

    app.get(
      '/keys/:id',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['keys'],
          summary: 'One of the team’s API keys as the list shows it, with its ETag (admin scope)',
          params: IdParams,
          response: { 200: TeamKey, 304: Type.Null({ description: 'not modified: If-None-Match names the current ETag' }), ...problemResponses },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        return sendTagged(request, reply, await getTeamKey(db, request.principal.teamId, request.params.id));
      },
    );

    app.post(
      '/keys',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['keys'],
          summary: 'A new API key for a user of the team (admin scope); the answer is the only time the key is shown',
          description: 'The answer is never kept for an Idempotency-Key replay: a retry makes another key.',
          body: KeyBody,
          response: { 201: NewKey, ...problemResponses },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        const created = await createTeamKey(db, request.principal, request.body);
        // The key is a secret: it is not kept for a replay (a retry makes another key; revoke the lost one).
        await forgoReplay(ctx.db, request);
        return reply.code(201).header('cache-control', 'no-store').send(created);
      },
    );

    app.delete(
      '/keys/:id',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['keys'],
          summary: 'Revoke one of the team’s API keys (admin scope); the next request with it is refused',
          params: IdParams,
          headers: IfMatchHeaders,
          response: { 204: Type.Null(), ...problemResponses, 412: Problem },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        await revokeTeamKey(db, request.principal.teamId, request.params.id, ifMatchOf(request));
        return reply.code(204).send(null);
      },
    );
  };
