// Single sign-on with OpenID Connect (docs/accounts.md, "Single sign-on"): GET /v2/session/oidc (what
// the sign-in page offers: a 404 when OIDC_ISSUER is not set) and, only when it is set, GET /v2/session/oidc/start (off to the
// provider, with state, nonce and PKCE) and GET /v2/session/oidc/callback (back from it: the code
// exchanged, the ID token verified, the user found or refused, and a session opened with the same
// cookie as a password's). All three are open to all; a failed return counts as a failed sign-in.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { SingleSignOnSettings } from '../../config.ts';
import type { Context } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { OidcProvider, type SignInAttempt, admitAccount } from '../../services/single-sign-on.service.ts';
import { publicOrigin } from '../account-links.ts';
import { sendSignOnFailurePage, wantsPage } from '../sign-on-failure-page.ts';
import { SingleSignOn, SingleSignOnCallbackQuery } from '../schemas/v2-session.ts';
import { problemResponses } from '../schemas/v2.ts';
import { clearedSignInAttemptCookie, signInAttemptCookie, signInAttemptOf } from '../session-cookie.ts';
import { openBrowserSession } from './session.routes.ts';

export const CALLBACK_PATH = '/v2/session/oidc/callback';
/** How long a browser may take at the provider, in seconds. */
const ATTEMPT_SECONDS = 600;
/** Where a signed-in browser lands: the web interface. */
const LANDING = '/';
/** state, nonce and verifier: base64url, as openid-client makes them. */
const ATTEMPT_FORM = /^([A-Za-z0-9_-]{16,128})\.([A-Za-z0-9_-]{16,128})\.([A-Za-z0-9_-]{43,128})$/;

function attemptOf(request: FastifyRequest): SignInAttempt {
  const match = ATTEMPT_FORM.exec(signInAttemptOf(request) ?? '');
  if (!match) throw new AppError('UNAUTHORIZED', `no single sign-on was started in this browser, or it took longer than ${ATTEMPT_SECONDS / 60} minutes: start again`);
  return { state: match[1]!, nonce: match[2]!, verifier: match[3]! };
}

export const singleSignOnRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const settings = ctx.config.accounts.singleSignOn;
    app.get(
      '/session/oidc',
      {
        config: { public: true },
        schema: {
          tags: ['session'],
          summary: 'The single sign-on this server offers (a 404 when none is configured)',
          response: { 200: SingleSignOn, ...problemResponses },
        },
      },
      async (_request, reply) => {
        if (!settings) throw new AppError('NOT_FOUND', 'this server offers no single sign-on (OIDC_ISSUER is not set)');
        return reply.send({ label: settings.buttonLabel, startUrl: '/v2/session/oidc/start' });
      },
    );
    if (settings) await app.register(providerRoutes(ctx, settings));
  };

const providerRoutes =
  (ctx: Context, settings: SingleSignOnSettings): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const provider = new OidcProvider(settings);
    const redirectUri = (request: FastifyRequest) => settings.redirectUrl ?? `${publicOrigin(ctx.config, request)}${CALLBACK_PATH}`;

    app.get(
      '/session/oidc/start',
      {
        config: { public: true },
        schema: {
          tags: ['session'],
          summary: 'Sign in with the OpenID Connect provider: a redirect to it, with state, nonce and a PKCE challenge kept for 10 minutes in an HttpOnly cookie',
          response: { 303: Type.Null({ description: 'to the provider’s authorization endpoint' }), ...problemResponses },
        },
      },
      async (request, reply) => {
        const { url, attempt } = await provider.authorizationUrl(redirectUri(request));
        return reply
          .code(303)
          .header('location', url)
          .header('cache-control', 'no-store')
          .header('set-cookie', signInAttemptCookie(request, `${attempt.state}.${attempt.nonce}.${attempt.verifier}`, ATTEMPT_SECONDS))
          .send(null);
      },
    );

    app.get(
      '/session/oidc/callback',
      {
        config: { public: true, signInAttempt: true },
        schema: {
          tags: ['session'],
          summary: 'Where the provider sends the browser back: the code is exchanged, the ID token verified, and a session opened (the same cookie as a password sign-in)',
          description:
            'The state must be the one this browser left with, and the ID token must carry its nonce. The account signs in as the user it is linked to; an account not linked yet is linked by its verified email to the team’s user with that email, or becomes a new member when its email’s domain is one of OIDC_AUTO_CREATE_DOMAINS (docs/accounts.md). A refusal is a 401 (the provider’s answer did not check out) or a 403 (no user may be signed in for this account), and counts as a failed sign-in; a browser (Accept: text/html) gets it as a page with the reason and a link back to the sign-in page, with the same status.',
          querystring: SingleSignOnCallbackQuery,
          response: { 303: Type.Null({ description: 'to the web interface, signed in' }), 409: problemResponses[403], ...problemResponses },
        },
      },
      async (request, reply) => {
        // Used or not, the attempt ends here.
        void reply.header('set-cookie', clearedSignInAttemptCookie(request)).header('cache-control', 'no-store');
        let cookies: string[];
        try {
          const attempt = attemptOf(request);
          const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
          const account = await provider.accountOf(query, attempt, redirectUri(request));
          const signedIn = await admitAccount(db, settings, account);
          ({ cookies } = await openBrowserSession(ctx, request, signedIn.keyId, 'oidc'));
        } catch (error) {
          // A browser reads the refusal as a page with a way back; a program gets the problem JSON.
          if (error instanceof AppError && error.status < 500 && wantsPage(request)) return sendSignOnFailurePage(reply, error.status, error.message);
          throw error;
        }
        return reply
          .code(303)
          .header('set-cookie', [...cookies, clearedSignInAttemptCookie(request)])
          .header('location', LANDING)
          .send(null);
      },
    );
  };
