// POST /v2/session (sign in with a key: a session cookie), GET /v2/session (who is signed in) and
// DELETE /v2/session (sign out). The key crosses the wire once; the browser then holds only the
// HttpOnly cookie, which the auth hook accepts in place of a key.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { Authenticator } from '../../services/keys.service.ts';
import { type SessionPrincipal, closeSession, openSession } from '../../services/sessions.service.ts';
import { describeCaller } from '../../services/team-keys.service.ts';
import { Session, SessionBody } from '../schemas/v2-session.ts';
import { problemResponses } from '../schemas/v2.ts';
import { clearedSessionCookie, isSameOrigin, sessionCookie, sessionTokenOf } from '../session-cookie.ts';

export const sessionRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const authenticator = new Authenticator(db);

    app.post(
      '/session',
      {
        // A failed attempt counts against the caller's address (a key cannot be guessed here).
        config: { public: true, signInAttempt: true },
        schema: {
          tags: ['session'],
          summary: 'Sign in: an API key becomes an HttpOnly session cookie (SameSite=Strict) that stands for the key',
          description: 'A browser must send it from this server’s own pages (Origin). The session ends at `expiresAt`, at DELETE /v2/session, or when the key is revoked.',
          body: SessionBody,
          response: { 201: Session, ...problemResponses },
        },
      },
      async (request, reply) => {
        // Another site's page must not sign a visitor in (to a key of its choosing).
        if (request.headers.origin !== undefined && !isSameOrigin(request)) throw new AppError('FORBIDDEN', 'sign in from this server’s own pages (Origin)');
        const opened = await openSession(db, authenticator, request.body.key, ctx.config.sessionTtlMs, request.changeStamp);
        const principal = await authenticator.authenticate(request.body.key, request.changeStamp);
        // The route is public (no key is asked for before the body is read): the sign-in names its
        // caller here, so that the audit trail and the request log record which key signed in.
        request.principal = principal!;
        const caller = await describeCaller(db, principal!);
        return reply
          .code(201)
          .header('set-cookie', sessionCookie(request, opened.token, opened.expiresAt))
          .header('cache-control', 'no-store')
          .send({ ...caller, expiresAt: opened.expiresAt });
      },
    );

    app.get(
      '/session',
      {
        schema: {
          tags: ['session'],
          summary: 'Who is signed in: the team, the user, the key the session stands for, and when the session ends',
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
        config: { readOnlyAllowed: true },
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
  };
