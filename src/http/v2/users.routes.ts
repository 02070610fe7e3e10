// The team's users: GET /v2/users, GET /v2/users/:id, and for team admins POST /v2/users (invite),
// PATCH /v2/users/:id (role, email, disable) and POST /v2/users/:id/password-link (a new invitation
// or reset link). One-time links: POST /v2/password-links/lookup and POST /v2/password-links/use
// (sets the password and signs in), open to all and counted as sign-in attempts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import type { IssuedLink } from '../../services/users.service.ts';
import { createPasswordLink, getUser, inviteUser, listUsers, updateUser } from '../../services/users.service.ts';
import { describeLink, usePasswordLink } from '../../services/sign-in.service.ts';
import { passwordLinkUrl, publicOrigin } from '../account-links.ts';
import { Session } from '../schemas/v2-session.ts';
import { InvitedUser, LinkInfo, LinkTokenBody, NewUserBody, UseLinkBody, UserPatch, UserV2 } from '../schemas/v2-users.ts';
import { IdParams, ListOf, ListQuery, Problem, problemResponses } from '../schemas/v2.ts';
import { decodeCursor, encodeCursor, isIdKey, sendList } from './cursor.ts';
import { forgoReplay } from './idempotency.ts';
import { startSession } from './session.routes.ts';
import { TEAM_ROUTE } from '../plugins/project-access.ts';

export const userRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const { accounts } = ctx.config;
    const linkOf = (request: Parameters<typeof publicOrigin>[1], link: IssuedLink) => ({ ...link, url: passwordLinkUrl(publicOrigin(ctx.config, request), link.token) });

    app.get(
      '/users',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['users'],
          summary: 'The team’s users, in id order',
          querystring: Type.Object(ListQuery),
          response: { 200: ListOf(UserV2), ...problemResponses },
        },
      },
      async (request, reply) => {
        const { limit = 100, cursor, count } = request.query;
        const { nextId, ...page } = await listUsers(db, request.principal.teamId, { limit, count, afterId: decodeCursor(cursor, isIdKey) });
        return sendList(request, reply, { ...page, nextCursor: nextId === null ? null : encodeCursor(nextId) });
      },
    );

    app.get(
      '/users/:id',
      {
        config: { access: TEAM_ROUTE },
        schema: { tags: ['users'], summary: 'One of the team’s users', params: IdParams, response: { 200: UserV2, ...problemResponses } },
      },
      async (request) => getUser(db, request.principal.teamId, request.params.id),
    );

    app.post(
      '/users',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['users'],
          summary: 'Invite a user (team owner or admin): the user is made, with a one-time link to set a password',
          description: 'The answer is the only time the link is shown, and is never kept for an Idempotency-Key replay. Only an owner invites an owner.',
          body: NewUserBody,
          response: { 201: InvitedUser, 409: Problem, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { user, link } = await inviteUser(db, request.principal, request.body, accounts);
        await forgoReplay(ctx.db, request);
        return reply.code(201).header('cache-control', 'no-store').send({ user, link: linkOf(request, link) });
      },
    );

    app.patch(
      '/users/:id',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['users'],
          summary: 'Change a user’s role or email, or disable and enable them (team owner or admin)',
          description: 'Disabling ends the user’s sessions and unused links at once and refuses their keys until they are enabled again. Nobody changes their own role or disables themselves; only an owner changes an owner.',
          params: IdParams,
          body: UserPatch,
          response: { 200: UserV2, ...problemResponses },
        },
      },
      async (request) => updateUser(db, request.principal, request.params.id, request.body),
    );

    app.post(
      '/users/:id/password-link',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['users'],
          summary: 'A new one-time link for the user to set a password (team owner or admin): an invitation while they have none, else a reset',
          description: 'The user’s earlier unused link ends. The answer is the only time the link is shown.',
          params: IdParams,
          response: { 201: InvitedUser, 409: Problem, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { user, link } = await createPasswordLink(db, request.principal, request.params.id, accounts);
        await forgoReplay(ctx.db, request);
        return reply.code(201).header('cache-control', 'no-store').send({ user, link: linkOf(request, link) });
      },
    );

    app.post(
      '/password-links/lookup',
      {
        config: { public: true, signInAttempt: true },
        schema: {
          tags: ['users'],
          summary: 'What a one-time link is for and whose it is (open to all; a failed lookup counts as a failed sign-in)',
          body: LinkTokenBody,
          response: { 200: LinkInfo, ...problemResponses },
        },
      },
      async (request, reply) => reply.header('cache-control', 'no-store').send(await describeLink(db, request.body.token)),
    );

    app.post(
      '/password-links/use',
      {
        config: { public: true, signInAttempt: true },
        schema: {
          tags: ['users'],
          summary: 'Set a password with a one-time link, and sign in: the link is used up, the user’s other sessions end',
          body: UseLinkBody,
          response: { 201: Session, ...problemResponses },
        },
      },
      async (request, reply) => {
        const signedIn = await usePasswordLink(db, request.body.token, request.body.password, accounts.scryptCost);
        return startSession(ctx, request, reply, signedIn.keyId, 'link');
      },
    );
  };
