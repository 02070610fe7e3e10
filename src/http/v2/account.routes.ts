// The caller's own account: GET /v2/account, PUT /v2/account/password, and the caller's own API keys
// (GET/POST /v2/account/keys, DELETE /v2/account/keys/:id), which any user may manage within their
// role (a member's keys read or write; an owner's or admin's may have the admin scope).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import type { SessionPrincipal } from '../../services/sessions.service.ts';
import { changeOwnPassword } from '../../services/sign-in.service.ts';
import { createOwnKey, describeAccount, listOwnKeys, revokeOwnKey } from '../../services/account.service.ts';
import { NewKey, TeamKey } from '../schemas/v2-keys.ts';
import { Account, AccountKeyBody, PasswordChangeBody } from '../schemas/v2-users.ts';
import { IdParams, problemResponses } from '../schemas/v2.ts';
import { forgoReplay } from './idempotency.ts';
import { TEAM_ROUTE } from '../plugins/project-access.ts';

export const accountRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;

    app.get(
      '/account',
      { config: { access: TEAM_ROUTE }, schema: { tags: ['account'], summary: 'The caller’s own user and team', response: { 200: Account, ...problemResponses } } },
      async (request, reply) => reply.header('cache-control', 'no-store').send(await describeAccount(db, request.principal)),
    );

    app.put(
      '/account/password',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['account'],
          summary: 'Set or change the caller’s own password; the caller’s other sessions end',
          description: '`currentPassword` is asked for once the user has a password (403 when wrong).',
          body: PasswordChangeBody,
          response: { 204: Type.Null(), ...problemResponses },
        },
      },
      async (request, reply) => {
        const keep = (request.principal as Partial<SessionPrincipal>).sessionId;
        await changeOwnPassword(db, request.principal.userId, request.body, ctx.config.accounts.scryptCost, keep);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/account/keys',
      { config: { access: TEAM_ROUTE }, schema: { tags: ['account'], summary: 'The caller’s own API keys, revoked ones too', response: { 200: Type.Object({ items: Type.Array(TeamKey) }), ...problemResponses } } },
      async (request) => ({ items: await listOwnKeys(db, request.principal) }),
    );

    app.post(
      '/account/keys',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['account'],
          summary: 'A new API key of the caller’s own, within the caller’s role; the answer is the only time the key is shown',
          body: AccountKeyBody,
          response: { 201: NewKey, ...problemResponses },
        },
      },
      async (request, reply) => {
        const created = await createOwnKey(db, request.principal, request.body.scope);
        await forgoReplay(ctx.db, request);
        return reply.code(201).header('cache-control', 'no-store').send(created);
      },
    );

    app.delete(
      '/account/keys/:id',
      {
        config: { access: TEAM_ROUTE },
        schema: { tags: ['account'], summary: 'Revoke one of the caller’s own API keys', params: IdParams, response: { 204: Type.Null(), ...problemResponses } },
      },
      async (request, reply) => {
        await revokeOwnKey(db, request.principal, request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
