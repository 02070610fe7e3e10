// POST/GET/DELETE /v2/session through the real app on both databases: a key becomes an HttpOnly
// cookie that stands for it, a write with the cookie needs this server's Origin, and the session ends
// when signed out, when it expires and when its key is revoked.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { revokeKeys } from '../../src/repositories/teams.repository.ts';
import { keyPrefix } from '../../src/services/keys.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface Session {
  team: { name: string };
  user: { login: string };
  key: { prefix: string; scope: string };
  expiresAt: string | null;
}

const HOST = 'annostore.test:8080';
const ORIGIN = `http://${HOST}`;

/** The cookie a sign-in set (under either name) and its token. */
function cookieOf(res: LightMyRequestResponse): { header: string; token: string } {
  const values = [res.headers['set-cookie'] ?? []].flat().map(String);
  const header = values.find((value) => /^(__Host-)?annostore_session=[^;]+;/.test(value));
  assert.ok(header !== undefined, values.join('\n'));
  return { header, token: /=([^;]+);/.exec(header)![1]! };
}

for (const dialect of dialects) {
  describe(`API v2 session on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect, { sessionTtlMs: 60 * 60 * 1000 });
    });
    after(async () => t?.close());

    const signIn = (key: string, headers: Record<string, string> = { origin: ORIGIN }) =>
      t.request({ method: 'POST', url: '/v2/session', key: null, headers: { host: HOST, ...headers }, payload: { key } });
    const withCookie = (token: string, options: { method?: 'GET' | 'POST' | 'DELETE'; url: string; origin?: string; payload?: object }) =>
      t.request({
        method: options.method ?? 'GET',
        url: options.url,
        key: null,
        headers: { host: HOST, cookie: `theme=dark; annostore_session=${token}`, ...(options.origin ? { origin: options.origin } : {}) },
        ...(options.payload ? { payload: options.payload } : {}),
      });

    test('a key becomes an HttpOnly, SameSite=Strict cookie; only its digest is stored; the cookie acts as the key', async () => {
      const res = await signIn(t.key);
      assert.equal(res.statusCode, 201, res.body);
      const { header, token } = cookieOf(res);
      assert.match(header, /HttpOnly/);
      assert.match(header, /SameSite=Strict/);
      assert.match(header, /Path=\//);
      assert.doesNotMatch(header, /Secure/);
      const maxAge = Number(/Max-Age=(\d+)/.exec(header)?.[1]);
      assert.ok(maxAge > 3590 && maxAge <= 3600, header);
      assert.equal(res.headers['cache-control'], 'no-store');
      const body = json<Session>(res);
      assert.deepEqual({ team: body.team.name, user: body.user.login, prefix: body.key.prefix, scope: body.key.scope }, { team: 'alpha', user: 'alice', prefix: keyPrefix(t.key), scope: 'write' });
      assert.ok(Math.abs(Date.parse(body.expiresAt!) - Date.now() - 3600_000) < 10_000);
      assert.ok(!res.body.includes(t.key), 'the answer never repeats the key');

      const rows = await t.ctx.db.kysely.selectFrom('sessions').select('digest').execute();
      assert.ok(rows.some((r) => r.digest === createHash('sha256').update(token).digest('hex')));
      assert.ok(!rows.some((r) => r.digest.includes(token)));

      const who = await withCookie(token, { url: '/v2/session' });
      assert.equal(who.statusCode, 200, who.body);
      assert.equal(json<Session>(who).user.login, 'alice');
      assert.equal(json<Session>(who).expiresAt, body.expiresAt);
      assert.equal((await withCookie(token, { url: '/v2/projects' })).statusCode, 200);
      // Asked with a key, the session route says who the key is, with no end.
      const byKey = await t.request({ method: 'GET', url: '/v2/session' });
      assert.equal(json<Session>(byKey).expiresAt, null);
    });

    test('a write with the cookie needs this server’s Origin: none or another is 403, the same one passes', async () => {
      const { token } = cookieOf(await signIn(t.key));
      const project = { title: `p-${Date.now()}` };
      for (const origin of [undefined, 'http://evil.example', `https://${HOST}`, `${ORIGIN}.evil.example`]) {
        const res = await withCookie(token, { method: 'POST', url: '/v2/projects', payload: project, ...(origin ? { origin } : {}) });
        assert.equal(res.statusCode, 403, `${origin}: ${res.body}`);
      }
      const listed = json<{ items: { title: string }[] }>(await withCookie(token, { url: '/v2/projects' }));
      assert.ok(!listed.items.some((p) => p.title === project.title), 'no refused write went through');
      const made = await withCookie(token, { method: 'POST', url: '/v2/projects', payload: project, origin: ORIGIN });
      assert.equal(made.statusCode, 201, made.body);
      // Another site's page cannot sign a visitor in either.
      assert.equal((await signIn(t.key, { origin: 'http://evil.example' })).statusCode, 403);
    });

    test('the session has the key’s scope and team: read-only stays read-only, another team’s project is 404', async () => {
      const { token } = cookieOf(await signIn(t.readOnlyKey));
      assert.equal((await withCookie(token, { method: 'POST', url: '/v2/projects', payload: { title: 'nope' }, origin: ORIGIN })).statusCode, 403);
      const theirs = await t.request({ method: 'POST', url: '/v2/projects', key: t.otherKey, payload: { title: 'beta’s' } });
      const id = json<{ id: number }>(theirs).id;
      assert.equal((await withCookie(token, { url: `/v2/projects/${id}` })).statusCode, 404);
      // Signing out is no change to the team's data: a read-only session may end itself.
      assert.equal((await withCookie(token, { method: 'DELETE', url: '/v2/session', origin: ORIGIN })).statusCode, 204);
      assert.equal((await withCookie(token, { url: '/v2/session' })).statusCode, 401);
    });

    test('unknown keys are refused; an unknown or malformed cookie is 401', async () => {
      assert.equal((await signIn('ak_not-a-key-of-anybody-here-at-all')).statusCode, 401);
      assert.equal((await signIn('')).statusCode, 400);
      assert.equal((await withCookie('A'.repeat(43), { url: '/v2/session' })).statusCode, 401);
      assert.equal((await withCookie('short', { url: '/v2/projects' })).statusCode, 401);
    });

    test('signing out ends the session at once and clears the cookie', async () => {
      const { token } = cookieOf(await signIn(t.key));
      assert.equal((await withCookie(token, { method: 'DELETE', url: '/v2/session' })).statusCode, 403, 'sign-out is a write: it needs the Origin');
      const out = await withCookie(token, { method: 'DELETE', url: '/v2/session', origin: ORIGIN });
      assert.equal(out.statusCode, 204, out.body);
      assert.match(String(out.headers['set-cookie']), /^annostore_session=; Max-Age=0;/);
      assert.equal((await withCookie(token, { url: '/v2/session' })).statusCode, 401);
    });

    test('signing in and signing out are in the audit trail, with the key’s prefix', async () => {
      const res = await signIn(t.key, { origin: ORIGIN, 'x-request-id': `sign-in-${dialect.name}` });
      assert.equal(res.statusCode, 201, res.body);
      const { token } = cookieOf(res);
      const out = await t.request({ method: 'DELETE', url: '/v2/session', key: null, headers: { host: HOST, origin: ORIGIN, cookie: `annostore_session=${token}`, 'x-request-id': `sign-out-${dialect.name}` } });
      assert.equal(out.statusCode, 204, out.body);
      await t.app.auditTrail.settled();
      const audit = await t.request({ method: 'GET', url: '/v2/audit?limit=1000', key: t.adminKey });
      assert.equal(audit.statusCode, 200, audit.body);
      const items = json<{ items: { requestId: string; method: string; route: string; status: number; keyPrefix: string }[] }>(audit).items;
      const signedIn = items.find((item) => item.requestId === `sign-in-${dialect.name}`);
      assert.deepEqual(signedIn && [signedIn.method, signedIn.route, signedIn.status, signedIn.keyPrefix], ['POST', '/v2/session', 201, keyPrefix(t.key)]);
      const signedOut = items.find((item) => item.requestId === `sign-out-${dialect.name}`);
      assert.deepEqual(signedOut && [signedOut.method, signedOut.route, signedOut.status, signedOut.keyPrefix], ['DELETE', '/v2/session', 204, keyPrefix(t.key)]);
    });

    test('a session ends when it expires and when its key is revoked', async () => {
      const { token } = cookieOf(await signIn(t.key));
      await t.ctx.db.kysely.updateTable('sessions').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('digest', '=', createHash('sha256').update(token).digest('hex')).execute();
      assert.equal((await withCookie(token, { url: '/v2/session' })).statusCode, 401);

      const { token: other } = cookieOf(await signIn(t.adminKey));
      assert.equal((await withCookie(other, { url: '/v2/session' })).statusCode, 200);
      await t.inAnotherProcess((ctx) => revokeKeys(ctx.db.kysely, keyPrefix(t.adminKey)));
      assert.equal((await withCookie(other, { url: '/v2/session' })).statusCode, 401);
    });

    test('behind a trusted proxy, a request forwarded over HTTPS gets a Secure cookie', async () => {
      // Every hop trusted, one hop, the proxy's address (inject connects from 127.0.0.1).
      for (const trustProxy of [true, 1, ['127.0.0.0/8']]) {
        const proxied = await startTestApp(dialect, { trustProxy });
        try {
          const res = await proxied.request({
            method: 'POST',
            url: '/v2/session',
            key: null,
            headers: { host: HOST, origin: `https://${HOST}`, 'x-forwarded-proto': 'https' },
            payload: { key: proxied.key },
          });
          assert.equal(res.statusCode, 201, `${JSON.stringify(trustProxy)}: ${res.body}`);
          assert.match(cookieOf(res).header, /; Secure/);
        } finally {
          await proxied.close();
        }
      }
      // Without the setting the header is not believed.
      const direct = await signIn(t.key, { 'x-forwarded-proto': 'https' });
      assert.doesNotMatch(cookieOf(direct).header, /Secure/);
    });

    test('over HTTPS the cookie is named with the __Host- prefix; a cookie of the plain name still signs in, and signing out clears both', async () => {
      const proxied = await startTestApp(dialect, { trustProxy: 1 });
      try {
        const https = { host: HOST, origin: `https://${HOST}`, 'x-forwarded-proto': 'https' };
        const res = await proxied.request({ method: 'POST', url: '/v2/session', key: null, headers: https, payload: { key: proxied.key } });
        assert.equal(res.statusCode, 201, res.body);
        const [set, clearPlain] = res.headers['set-cookie'] as string[];
        const token = /^__Host-annostore_session=([^;]+); /.exec(set!)?.[1];
        assert.ok(token, set);
        // What a browser demands of a __Host- cookie: Secure, Path=/, no Domain.
        assert.match(set!, /; Path=\/;/);
        assert.match(set!, /; Secure/);
        assert.doesNotMatch(set!, /Domain=/i);
        assert.match(clearPlain!, /^annostore_session=; Max-Age=0;/);

        const read = (cookie: string) => proxied.request({ method: 'GET', url: '/v2/session', key: null, headers: { ...https, cookie } });
        assert.equal((await read(`__Host-annostore_session=${token}`)).statusCode, 200);
        // A session opened before the prefix (or over plain HTTP) is read under its old name.
        const { token: older } = cookieOf(await proxied.request({ method: 'POST', url: '/v2/session', key: null, headers: { host: HOST, origin: ORIGIN }, payload: { key: proxied.key } }));
        assert.equal((await read(`annostore_session=${older}`)).statusCode, 200);
        assert.equal((await read(`annostore_session=${'A'.repeat(43)}; __Host-annostore_session=${token}`)).statusCode, 200, 'the __Host- cookie comes first');

        const out = await proxied.request({ method: 'DELETE', url: '/v2/session', key: null, headers: { ...https, cookie: `__Host-annostore_session=${token}` } });
        assert.equal(out.statusCode, 204, out.body);
        const cleared = (out.headers['set-cookie'] as string[]).map((c) => c.split('=')[0]).sort();
        assert.deepEqual(cleared, ['__Host-annostore_session', 'annostore_session']);
        assert.ok((out.headers['set-cookie'] as string[]).every((c) => /=; Max-Age=0; .*Secure/.test(c)));
        assert.equal((await read(`__Host-annostore_session=${token}`)).statusCode, 401);
      } finally {
        await proxied.close();
      }
    });
  });
}
