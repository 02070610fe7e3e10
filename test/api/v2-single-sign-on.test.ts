// Single sign-on against a real OpenID Connect provider (oidc-provider on loopback), on both databases:
// the whole flow over HTTP, as a browser goes through it (redirects, the provider's forms, cookies).
// Linking by verified email, signing in again by the link, refusals (an unknown account, an unverified
// email, a disabled user, a tampered state, no attempt cookie), creating members of allowed domains,
// the session's cookie and its revocation, and the sign-in limit.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Config, SingleSignOnSettings } from '../../src/config.ts';
import { loadConfig } from '../../src/config.ts';
import { type DialectCase, dialects } from '../helpers/dialects.ts';
import { CookieBrowser, type OpenIdProvider, startOpenIdProvider } from '../helpers/openid-provider.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface Problem {
  type: string;
  status: number;
  code: string;
  detail: string;
}

const CALLBACK = '/v2/session/oidc/callback';

interface Running {
  t: TestApp;
  provider: OpenIdProvider;
  base: string;
}

async function startWithProvider(dialect: DialectCase, policy: Partial<SingleSignOnSettings>, overrides: Partial<Config> = {}): Promise<Running> {
  const provider = await startOpenIdProvider();
  const settings: SingleSignOnSettings = {
    ...loadConfig({ OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret, OIDC_TEAM: 'alpha', OIDC_BUTTON_LABEL: 'Example ID' }).accounts.singleSignOn!,
    ...policy,
  };
  const t = await startTestApp(dialect, { accounts: { ...dialect.freshConfig().accounts, singleSignOn: settings }, ...overrides });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  provider.register(`${base}${CALLBACK}`);
  return { t, provider, base };
}

/** Starts at the app, goes through the provider as `login`, and answers the callback URL the provider sent the browser to. */
async function throughProvider(r: Running, browser: CookieBrowser, login: string): Promise<string> {
  const start = await browser.fetch(`${r.base}/v2/session/oidc/start`);
  assert.equal(start.status, 303, await start.text());
  const location = start.headers.get('location')!;
  assert.ok(location.startsWith(`${r.provider.issuer}/`), location);
  return browser.signInAt(location, login, `${r.base}${CALLBACK}`);
}

/** The whole sign-in: answers the callback's response (not followed). */
async function signIn(r: Running, login: string, browser = new CookieBrowser()): Promise<{ res: Response; browser: CookieBrowser }> {
  const callback = await throughProvider(r, browser, login);
  return { res: await browser.fetch(callback), browser };
}

async function problemOf(res: Response): Promise<Problem> {
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  return (await res.json()) as Problem;
}

async function invite(t: TestApp, login: string, email: string): Promise<number> {
  const res = await t.request({ method: 'POST', url: '/v2/users', key: t.adminKey, payload: { login, email } });
  assert.equal(res.statusCode, 201, res.body);
  return json<{ user: { id: number } }>(res).user.id;
}

for (const dialect of dialects) {
  describe(`single sign-on on ${dialect.name}`, { skip: dialect.skip }, () => {
    test('with no OIDC_ISSUER nothing is offered: GET /v2/session/oidc is a 404 to all; the others are unknown paths', async () => {
      const t = await startTestApp(dialect);
      try {
        assert.equal(t.config.accounts.singleSignOn, undefined);
        const offered = await t.request({ method: 'GET', url: '/v2/session/oidc', key: null });
        assert.equal(offered.statusCode, 404);
        assert.match(json<Problem>(offered).detail, /offers no single sign-on/);
        for (const url of ['/v2/session/oidc/start', CALLBACK]) {
          assert.equal((await t.request({ method: 'GET', url })).statusCode, 404, url);
          assert.equal((await t.request({ method: 'GET', url, key: null })).statusCode, 401, url);
        }
      } finally {
        await t.close();
      }
    });

    describe('under the default policy (users linked, or invited with the email)', () => {
      let r: Running;
      before(async () => {
        r = await startWithProvider(dialect, {});
      });
      after(async () => {
        await r?.t.close();
        await r?.provider.close();
      });

      test('GET /v2/session/oidc names the button and where it starts', async () => {
        const res = await r.t.request({ method: 'GET', url: '/v2/session/oidc', key: null });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(json(res), { label: 'Example ID', startUrl: '/v2/session/oidc/start' });
      });

      test('the start sends the browser to the provider with PKCE, state and nonce, kept in an HttpOnly Lax cookie for 10 minutes', async () => {
        const browser = new CookieBrowser();
        const start = await browser.fetch(`${r.base}/v2/session/oidc/start`);
        assert.equal(start.status, 303);
        const url = new URL(start.headers.get('location')!);
        assert.equal(url.searchParams.get('client_id'), r.provider.clientId);
        assert.equal(url.searchParams.get('redirect_uri'), `${r.base}${CALLBACK}`);
        assert.equal(url.searchParams.get('response_type'), 'code');
        assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
        assert.match(url.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
        assert.ok(url.searchParams.get('state') && url.searchParams.get('nonce'));
        const cookie = start.headers.getSetCookie().find((c) => c.startsWith('annostore_oidc='))!;
        assert.match(cookie, /HttpOnly/);
        assert.match(cookie, /SameSite=Lax/);
        assert.match(cookie, /Max-Age=600\b/);
        const [state, nonce, verifier] = browser.cookies(r.base).get('annostore_oidc')!.split('.');
        assert.equal(state, url.searchParams.get('state'));
        assert.equal(nonce, url.searchParams.get('nonce'));
        assert.ok(verifier && verifier !== url.searchParams.get('code_challenge'), 'the verifier stays in the browser; the provider sees its challenge');
      });

      test('the redirect URI: PUBLIC_URL’s origin when set, OIDC_REDIRECT_URL in its place', async () => {
        for (const [accounts, expected] of [
          [{ publicUrl: 'https://annostore.example.com', singleSignOn: r.t.config.accounts.singleSignOn }, 'https://annostore.example.com/v2/session/oidc/callback'],
          [{ publicUrl: 'https://annostore.example.com', singleSignOn: { ...r.t.config.accounts.singleSignOn!, redirectUrl: 'https://sso.example.com/back' } }, 'https://sso.example.com/back'],
        ] as const) {
          const t = await startTestApp(dialect, { accounts: { ...dialect.freshConfig().accounts, ...accounts } });
          try {
            const start = await t.request({ method: 'GET', url: '/v2/session/oidc/start', key: null });
            assert.equal(start.statusCode, 303, start.body);
            assert.equal(new URL(String(start.headers.location)).searchParams.get('redirect_uri'), expected);
          } finally {
            await t.close();
          }
        }
      });

      test('an invited user signs in by verified email: linked, a session cookie like a password’s, landing on the web interface', async () => {
        const userId = await invite(r.t, 'carol', 'Carol@Example.com');
        r.provider.accounts.set('carol-subject', { email: 'carol@example.com', email_verified: true });
        const { res, browser } = await signIn(r, 'carol-subject');
        assert.equal(res.status, 303, await res.clone().text());
        assert.equal(res.headers.get('location'), '/');
        const cookies = res.headers.getSetCookie();
        const session = cookies.find((c) => c.startsWith('annostore_session='))!;
        assert.match(session, /HttpOnly/);
        assert.match(session, /SameSite=Strict/);
        assert.ok(cookies.some((c) => /^annostore_oidc=;.*Max-Age=0/.test(c)), 'the attempt cookie is cleared');

        const who = await browser.fetch(`${r.base}/v2/session`);
        assert.equal(who.status, 200);
        const me = (await who.json()) as { user: { id: number; login: string; role: string }; team: { name: string }; key: { prefix: string; scope: string } };
        assert.deepEqual([me.user.id, me.user.login, me.user.role, me.team.name, me.key.prefix, me.key.scope], [userId, 'carol', 'member', 'alpha', 'sign-in', 'write']);

        const rows = await r.t.ctx.db.kysely.selectFrom('user_identities').selectAll().where('user_id', '=', userId).execute();
        assert.equal(rows.length, 1);
        assert.deepEqual([rows[0]!.issuer, rows[0]!.subject, rows[0]!.email], [r.provider.issuer, 'carol-subject', 'carol@example.com']);
        const user = json<{ singleSignOn: boolean; hasPassword: boolean }>(await r.t.request({ method: 'GET', url: `/v2/users/${userId}`, key: r.t.adminKey }));
        assert.deepEqual([user.singleSignOn, user.hasPassword], [true, false]);

        // The link holds: the same account signs in as carol though its email changed at the provider.
        r.provider.accounts.set('carol-subject', { email: 'carol.new@elsewhere.example', email_verified: true });
        const again = await signIn(r, 'carol-subject');
        assert.equal(again.res.status, 303);
        const second = (await (await again.browser.fetch(`${r.base}/v2/session`)).json()) as { user: { id: number } };
        assert.equal(second.user.id, userId);
        const [row] = await r.t.ctx.db.kysely.selectFrom('user_identities').selectAll().where('user_id', '=', userId).execute();
        assert.deepEqual([row!.email, row!.created_at], [rows[0]!.email, rows[0]!.created_at], 'the link is as it was made');
        assert.ok(row!.last_used_at > rows[0]!.last_used_at, 'when it last signed in');
        const columns = Object.keys(row!).sort();
        assert.deepEqual(columns, ['created_at', 'email', 'id', 'issuer', 'last_used_at', 'subject', 'user_id'], 'nothing of the provider’s tokens is kept');
      });

      test('the session is listed as oidc and ends as any other: signed out, or revoked', async () => {
        await invite(r.t, 'dave', 'dave@example.com');
        r.provider.accounts.set('dave-subject', { email: 'dave@example.com', email_verified: true });
        const first = await signIn(r, 'dave-subject');
        assert.equal(first.res.status, 303);
        const out = await first.browser.fetch(`${r.base}/v2/session`, { method: 'DELETE', headers: { origin: r.base } });
        assert.equal(out.status, 204);
        assert.equal((await first.browser.fetch(`${r.base}/v2/session`)).status, 401);

        const { res, browser } = await signIn(r, 'dave-subject');
        assert.equal(res.status, 303);
        const sessions = (await (await browser.fetch(`${r.base}/v2/sessions`)).json()) as { items: { id: number; method: string; current: boolean }[] };
        const current = sessions.items.find((s) => s.current)!;
        assert.equal(current.method, 'oidc');
        const revoked = await r.t.request({ method: 'DELETE', url: `/v2/sessions/${current.id}`, key: r.t.adminKey });
        assert.equal(revoked.statusCode, 204, revoked.body);
        const after = await browser.fetch(`${r.base}/v2/session`);
        assert.equal(after.status, 401);
      });

      test('an account linked to no user, whose email no user has, is refused with a 403 problem; nothing is made', async () => {
        r.provider.accounts.set('stranger', { email: 'stranger@example.com', email_verified: true });
        const users = async () => (await r.t.ctx.db.kysely.selectFrom('users').select('id').execute()).length;
        const before = await users();
        const { res, browser } = await signIn(r, 'stranger');
        assert.equal(res.status, 403);
        const problem = await problemOf(res);
        assert.equal(problem.code, 'FORBIDDEN');
        assert.match(problem.detail, /no user of the team is linked to this account or has its email/);
        assert.ok(!res.headers.getSetCookie().some((c) => c.startsWith('annostore_session=')));
        assert.equal(await users(), before);
        assert.equal((await browser.fetch(`${r.base}/v2/session`)).status, 401);
      });

      test('an email the provider has not verified links nobody', async () => {
        await invite(r.t, 'erin', 'erin@example.com');
        r.provider.accounts.set('erin-unverified', { email: 'erin@example.com', email_verified: false });
        const { res } = await signIn(r, 'erin-unverified');
        assert.equal(res.status, 403);
        assert.match((await problemOf(res)).detail, /no verified email/);
        assert.equal((await r.t.ctx.db.kysely.selectFrom('user_identities').select('id').where('subject', '=', 'erin-unverified').execute()).length, 0);
      });

      test('a disabled user is refused, by link and by email', async () => {
        const linked = await invite(r.t, 'frank', 'frank@example.com');
        r.provider.accounts.set('frank-subject', { email: 'frank@example.com', email_verified: true });
        const signedIn = await signIn(r, 'frank-subject');
        assert.equal(signedIn.res.status, 303);
        const byEmail = await invite(r.t, 'grace', 'grace@example.com');
        r.provider.accounts.set('grace-subject', { email: 'grace@example.com', email_verified: true });
        for (const id of [linked, byEmail]) {
          const res = await r.t.request({ method: 'PATCH', url: `/v2/users/${id}`, key: r.t.adminKey, payload: { disabled: true } });
          assert.equal(res.statusCode, 200, res.body);
        }
        assert.equal((await signedIn.browser.fetch(`${r.base}/v2/session`)).status, 401, 'the session of the disabled user ended');
        for (const subject of ['frank-subject', 'grace-subject']) {
          const { res } = await signIn(r, subject);
          assert.equal(res.status, 403, subject);
          assert.match((await problemOf(res)).detail, /this user is disabled/);
        }
      });

      test('a tampered state, or a return without the attempt cookie, is refused with 401 before the code is used', async () => {
        await invite(r.t, 'heidi', 'heidi@example.com');
        r.provider.accounts.set('heidi-subject', { email: 'heidi@example.com', email_verified: true });
        const browser = new CookieBrowser();
        const callback = new URL(await throughProvider(r, browser, 'heidi-subject'));
        const attempt = browser.cookies(r.base).get('annostore_oidc')!;
        const tampered = new URL(callback);
        tampered.searchParams.set('state', `${callback.searchParams.get('state')!.slice(0, -2)}xx`);
        const res = await browser.fetch(tampered.href);
        assert.equal(res.status, 401);
        const problem = await problemOf(res);
        assert.equal(problem.code, 'UNAUTHORIZED');
        assert.match(problem.detail, /single sign-on failed: .*state/);
        assert.ok(!res.headers.getSetCookie().some((c) => c.startsWith('annostore_session=')));

        // Another browser bringing the provider's genuine answer: no attempt of its own.
        const other = await new CookieBrowser().fetch(callback.href);
        assert.equal(other.status, 401);
        assert.match((await problemOf(other)).detail, /no single sign-on was started in this browser/);

        // Neither spent the code: with its attempt, the genuine answer still signs in (once).
        assert.ok(!browser.cookies(r.base).has('annostore_oidc'), 'a failed return ends the attempt');
        browser.cookies(r.base).set('annostore_oidc', attempt);
        const genuine = await browser.fetch(callback.href);
        assert.equal(genuine.status, 303, await genuine.clone().text());
        browser.cookies(r.base).set('annostore_oidc', attempt);
        assert.equal((await browser.fetch(callback.href)).status, 401, 'a code works once');
      });

      test('a browser gets a refusal as a page: the same status, the reason in words, a link back to sign in', async () => {
        r.provider.accounts.set('outsider', { email: 'outsider@example.com', email_verified: true });
        const browser = new CookieBrowser();
        const callback = await throughProvider(r, browser, 'outsider');
        const res = await browser.fetch(callback, { headers: { accept: 'text/html,application/xhtml+xml' } });
        assert.equal(res.status, 403);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self'/);
        assert.ok(!res.headers.getSetCookie().some((c) => c.startsWith('annostore_session=')));
        const page = await res.text();
        assert.match(page, /<h1 id="failure-title">Single sign-on did not complete<\/h1>/);
        assert.match(page, /no user of the team is linked to this account or has its email/);
        assert.match(page, /<a class="single-sign-on" href="\/sign-in">Back to sign in<\/a>/);
        assert.doesNotMatch(page, /<script/);

        // The provider's words (here markup a hostile link could carry) reach the page only as text.
        const genuine = new URL(await throughProvider(r, browser, 'outsider'));
        const refused = new URL(`${r.base}${CALLBACK}`);
        refused.searchParams.set('error', 'access_denied');
        refused.searchParams.set('error_description', '<img src=x onerror=alert(1)>');
        refused.searchParams.set('state', genuine.searchParams.get('state')!);
        if (genuine.searchParams.has('iss')) refused.searchParams.set('iss', genuine.searchParams.get('iss')!);
        const other = await browser.fetch(refused.href, { headers: { accept: 'text/html' } });
        assert.equal(other.status, 401);
        const otherPage = await other.text();
        assert.match(otherPage, /the provider answered access_denied \(&lt;img src=x onerror=alert\(1\)&gt;\)/);
        assert.doesNotMatch(otherPage, /<img/);
      });

      test('the provider’s refusal (the user cancelled) is a 401 that says so', async () => {
        const browser = new CookieBrowser();
        await browser.fetch(`${r.base}/v2/session/oidc/start`);
        const state = browser.cookies(r.base).get('annostore_oidc')!.split('.')[0]!;
        const res = await browser.fetch(`${r.base}${CALLBACK}?error=access_denied&error_description=End-User+aborted+interaction&state=${state}&iss=${encodeURIComponent(r.provider.issuer)}`);
        assert.equal(res.status, 401);
        assert.match((await problemOf(res)).detail, /the provider answered access_denied \(End-User aborted interaction\)/);
      });
    });

    describe('with OIDC_AUTO_CREATE_DOMAINS', () => {
      let r: Running;
      before(async () => {
        r = await startWithProvider(dialect, { autoCreateDomains: ['corp.example'] }, { rateLimits: { ...loadConfig({}).rateLimits, signInFailures: { perSecond: 1 / 60, burst: 3 } } });
      });
      after(async () => {
        await r?.t.close();
        await r?.provider.close();
      });

      test('a verified email of an allowed domain becomes a new member, named by the provider’s preferred username, and linked', async () => {
        r.provider.accounts.set('ivan-subject', { email: 'ivan@corp.example', email_verified: true, preferred_username: 'ivan' });
        const { res, browser } = await signIn(r, 'ivan-subject');
        assert.equal(res.status, 303, await res.clone().text());
        const me = (await (await browser.fetch(`${r.base}/v2/session`)).json()) as { user: { id: number; login: string; role: string }; team: { name: string } };
        assert.deepEqual([me.user.login, me.user.role, me.team.name], ['ivan', 'member', 'alpha']);
        const user = json<{ email: string; singleSignOn: boolean; hasPassword: boolean }>(await r.t.request({ method: 'GET', url: `/v2/users/${me.user.id}`, key: r.t.adminKey }));
        assert.deepEqual([user.email, user.singleSignOn, user.hasPassword], ['ivan@corp.example', true, false]);
        // The login taken, the next one is numbered; without a preferred username the email is the login.
        r.provider.accounts.set('ivan-two', { email: 'ivan.two@corp.example', email_verified: true, preferred_username: 'ivan' });
        r.provider.accounts.set('judy-subject', { email: 'judy@corp.example', email_verified: true });
        const logins = [];
        for (const subject of ['ivan-two', 'judy-subject']) {
          const signedIn = await signIn(r, subject);
          assert.equal(signedIn.res.status, 303);
          logins.push(((await (await signedIn.browser.fetch(`${r.base}/v2/session`)).json()) as { user: { login: string } }).user.login);
        }
        assert.deepEqual(logins, ['ivan-2', 'judy@corp.example']);
      });

      test('another domain, or an unverified email of the allowed one, is refused; failed returns meet the sign-in limit', async () => {
        r.provider.accounts.set('outsider', { email: 'outsider@other.example', email_verified: true });
        r.provider.accounts.set('unverified', { email: 'someone@corp.example', email_verified: false });
        assert.equal((await signIn(r, 'outsider')).res.status, 403);
        assert.equal((await signIn(r, 'unverified')).res.status, 403);
        // A burst of 3 failed sign-ins per address: the third failure spends it, the next return waits.
        assert.equal((await new CookieBrowser().fetch(`${r.base}${CALLBACK}?code=x&state=y`)).status, 401);
        const limited = await new CookieBrowser().fetch(`${r.base}${CALLBACK}?code=x&state=y`);
        assert.equal(limited.status, 429);
        assert.equal((await problemOf(limited)).code, 'RATE_LIMITED');
        assert.ok(Number(limited.headers.get('retry-after')) > 0);
      });
    });
  });
}
