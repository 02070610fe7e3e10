// POST /v2/session (sign in with a login and a password, or with a key: a session cookie), GET
// /v2/session (who is signed in), DELETE /v2/session (sign out), and the sessions of a user: GET
// /v2/sessions, DELETE /v2/sessions/:id. The password or key crosses the wire once; the browser then
// holds only the HttpOnly cookie, which the auth hook accepts in place of a key.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { AppError } from '../../errors.ts';
import type { SessionMethod } from '../../repositories/sessions.repository.ts';
import { Authenticator, type Principal } from '../../services/keys.service.ts';
import { type SessionPrincipal, closeSession, listSessions, openSessionFor, revokeSession } from '../../services/sessions.service.ts';
import { signInWithPassword } from '../../services/sign-in.service.ts';
import { describeCaller } from '../../services/team-keys.service.ts';
import { Session, SessionBody } from '../schemas/v2-session.ts';
import { SessionListing, SessionsQuery } from '../schemas/v2-users.ts';
import { IdParams, problemResponses } from '../schemas/v2.ts';
import { clearedSessionCookie, isSameOrigin, sessionCookie, sessionTokenOf } from '../session-cookie.ts';
import { TEAM_ROUTE } from '../plugins/project-access.ts';

/**
 * Opens a session acting through `keyId`: the Set-Cookie values to send, and who is signed in. The
 * sign-in routes are public (nothing is asked for before the body is read): the caller is named here,
 * so that the audit trail and the request log record who signed in.
 */
export async function openBrowserSession(
  ctx: Context,
  request: FastifyRequest,
  keyId: number,
  method: SessionMethod,
): Promise<{ cookies: string[]; session: Awaited<ReturnType<typeof describeCaller>> & { expiresAt: string } }> {
  const db = ctx.db.kysely;
  const opened = await openSessionFor(db, keyId, method, ctx.config.sessionTtlMs, { address: request.ip, userAgent: request.headers['user-agent'] ?? null });
  const caller = await describeCaller(db, { keyId } as Principal);
  request.principal = Object.freeze({
    keyId,
    userId: caller.user.id,
    teamId: caller.team.id,
    scope: caller.key.scope,
    role: caller.user.role,
    readOnly: caller.key.scope === 'read',
    keyPrefix: caller.key.prefix,
  });
  return { cookies: sessionCookie(request, opened.token, opened.expiresAt), session: { ...caller, expiresAt: opened.expiresAt } };
}

/** Opens a session acting through `keyId` and answers it: 201, the cookie, and who is signed in. */
export async function startSession(ctx: Context, request: FastifyRequest, reply: FastifyReply, keyId: number, method: SessionMethod): Promise<FastifyReply> {
  const { cookies, session } = await openBrowserSession(ctx, request, keyId, method);
  return reply.code(201).header('set-cookie', cookies).header('cache-control', 'no-store').send(session);
}

/** Another site's page must not sign a visitor in (to an account of its choosing). */
export function requireOwnPage(request: FastifyRequest): void {
  if (request.headers.origin !== undefined && !isSameOrigin(request)) throw new AppError('FORBIDDEN', 'sign in from this server’s own pages (Origin)');
}

export const sessionRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const authenticator = new Authenticator(db);

    app.post(
      '/session',
      {
        // A failed attempt counts against the caller's address, and against the login named.
        config: { public: true, signInAttempt: true },
        schema: {
          tags: ['session'],
          summary: 'Sign in: a login and a password, or an API key, become an HttpOnly session cookie (SameSite=Strict)',
          description:
            'A browser must send it from this server’s own pages (Origin). A password session acts with the user’s role (owner and admin: the admin scope; member: write); a key session stands for the key. The session ends at `expiresAt`, at DELETE /v2/session, when it is revoked, when its key is revoked, or when its user is disabled.',
          body: SessionBody,
          response: { 201: Session, ...problemResponses },
        },
      },
      async (request, reply) => {
        requireOwnPage(request);
        const body = request.body;
        if ('key' in body) {
          const principal = await authenticator.authenticate(body.key, request.changeStamp);
          if (!principal) throw new AppError('UNAUTHORIZED', 'unknown or revoked API key');
          return startSession(ctx, request, reply, principal.keyId, 'key');
        }
        const signedIn = await signInWithPassword(db, body, ctx.config.accounts.scryptCost);
        return startSession(ctx, request, reply, signedIn.keyId, 'password');
      },
    );

    app.get(
      '/session',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['session'],
          summary: 'Who is signed in: the team, the user and their role, the key the session acts through, and when the session ends',
          response: { 200: Session, ...problemResponses },
        },
      },
      async (request, reply) => {
        const caller = await describeCaller(db, request.principal);
        const expiresAt = (request.principal as Partial<SessionPrincipal>).expiresAt ?? null;
        return reply.header('cache-control', 'no-store').send({ ...caller, expiresAt });
      },
    );

    app.delete(
      '/session',
      {
        config: { access: TEAM_ROUTE, readOnlyAllowed: true },
        schema: {
          tags: ['session'],
          summary: 'Sign out: the session ends at once and its cookie is cleared',
          response: { 204: Type.Null(), ...problemResponses },
        },
      },
      async (request, reply) => {
        const token = sessionTokenOf(request);
        if (token) await closeSession(db, token);
        return reply.code(204).header('set-cookie', clearedSessionCookie(request)).send(null);
      },
    );

    app.get(
      '/sessions',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['session'],
          summary: 'A user’s live sessions, newest first: the caller’s own, or (team owner or admin) any user’s of the team',
          querystring: SessionsQuery,
          response: { 200: Type.Object({ items: Type.Array(SessionListing) }), ...problemResponses },
        },
      },
      async (request, reply) => {
        const items = await listSessions(db, request.principal, request.query.userId ?? request.principal.userId);
        return reply.header('cache-control', 'no-store').send({ items });
      },
    );

    app.delete(
      '/sessions/:id',
      {
        config: { access: TEAM_ROUTE, readOnlyAllowed: true },
        schema: {
          tags: ['session'],
          summary: 'End a session at once: one of the caller’s own, or (team owner or admin) any of the team’s',
          params: IdParams,
          response: { 204: Type.Null(), ...problemResponses },
        },
      },
      async (request, reply) => {
        await revokeSession(db, request.principal, request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
