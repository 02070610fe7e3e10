// Accounts through the real app on both databases: an admin invites a user by a one-time link, the
// user sets a password with it and signs in; failed sign-ins are limited per address and per login;
// disabling a user stops their keys and sessions at once; sessions are listed and revoked by their
// user and by an admin; passwords never reach the log.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { hashPassword, needsRehash, verifyPassword } from '../../src/services/passwords.ts';
import { captureLog } from '../helpers/captured-log.ts';
import { dialects } from '../helpers/dialects.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const HOST = 'annostore.test:8080';
const ORIGIN = `http://${HOST}`;
/** Cheaper than the default (2^17) so the tests run quickly; still memory-hard (16 MiB). */
const TEST_COST = { logN: 14, r: 8, p: 1 };

interface User {
  id: number;
  login: string;
  role: string;
  hasPassword: boolean;
  disabledAt: string | null;
}
interface Invited {
  user: User;
  link: { purpose: string; url: string; token: string; expiresAt: string };
}

const tokenOf = (res: LightMyRequestResponse): string => {
  const header = [res.headers['set-cookie'] ?? []].flat().map(String).find((v) => v.startsWith('annostore_session='));
  assert.ok(header, `no session cookie: ${res.statusCode} ${res.body}`);
  return /=([^;]+);/.exec(header)![1]!;
};

for (const dialect of dialects) {
  describe(`API v2 accounts on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    const log = captureLog();
    before(async () => {
      const defaults = loadConfig({});
      // Failed sign-ins refill at 10 an hour rather than a minute: a busy machine's eleven failures, each
      // through scrypt, could otherwise take long enough for one to be given back.
      const signInFailures = { ...defaults.rateLimits.signInFailures!, perSecond: 10 / 3600 };
      t = await startTestApp(dialect, { accounts: { ...defaults.accounts, scryptCost: TEST_COST }, rateLimits: { ...defaults.rateLimits, signInFailures } }, { logger: log.logger });
    });
    after(async () => t?.close());

    // Each from an address of its own: the failures these tests make on purpose stay under the
    // per-address limit (the per-login one has a test of its own).
    let addresses = 0;
    const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url, remoteAddress: `10.1.${Math.floor(++addresses / 250)}.${addresses % 250}`, headers: { host: HOST, origin: ORIGIN, ...headers }, payload });
    const withCookie = (token: string, options: { method?: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH'; url: string; payload?: object }) =>
      t.request({ method: options.method ?? 'GET', url: options.url, key: null, headers: { host: HOST, origin: ORIGIN, cookie: `annostore_session=${token}` }, ...(options.payload ? { payload: options.payload } : {}) });
    const invite = async (login: string, role = 'member'): Promise<Invited> => {
      const res = await t.request({ method: 'POST', url: '/v2/users', key: t.adminKey, headers: { host: HOST }, payload: { login, role } });
      assert.equal(res.statusCode, 201, res.body);
      return json<Invited>(res);
    };
    const join = async (login: string, password: string): Promise<string> => {
      const { link } = await invite(login);
      const res = await post('/v2/password-links/use', { token: link.token, password });
      assert.equal(res.statusCode, 201, res.body);
      return tokenOf(res);
    };

    test('a password hash is scrypt with its parameters and a salt of its own; a weaker one is due for a rehash', async () => {
      const a = await hashPassword('correct horse', TEST_COST);
      const b = await hashPassword('correct horse', TEST_COST);
      assert.match(a, /^scrypt\$ln=14,r=8,p=1\$[\w-]+\$[\w-]+$/);
      assert.notEqual(a, b);
      assert.equal(await verifyPassword('correct horse', a), true);
      assert.equal(await verifyPassword('correct horsE', a), false);
      assert.equal(needsRehash(a, { logN: 15, r: 8, p: 1 }), true);
      assert.equal(needsRehash(a, TEST_COST), false);
    });

    test('an admin invites; the link names the user, sets a password once, and signs in; the user can then sign in with it', async () => {
      const invited = await invite('carol');
      assert.deepEqual([invited.user.login, invited.user.role, invited.user.hasPassword, invited.link.purpose], ['carol', 'member', false, 'invitation']);
      assert.equal(invited.link.url, `${ORIGIN}/set-password#${invited.link.token}`);
      const lookup = await post('/v2/password-links/lookup', { token: invited.link.token });
      assert.equal(lookup.statusCode, 200, lookup.body);
      assert.deepEqual({ ...json<object>(lookup), expiresAt: undefined }, { purpose: 'invitation', login: 'carol', team: 'alpha', expiresAt: undefined });

      const short = await post('/v2/password-links/use', { token: invited.link.token, password: 'short' });
      assert.equal(short.statusCode, 400, short.body);
      const used = await post('/v2/password-links/use', { token: invited.link.token, password: 'carols long password' });
      assert.equal(used.statusCode, 201, used.body);
      const me = await withCookie(tokenOf(used), { url: '/v2/session' });
      assert.deepEqual(json<{ user: { login: string; role: string }; key: { prefix: string; scope: string } }>(me).user, { id: invited.user.id, login: 'carol', role: 'member' });
      assert.deepEqual(json<{ key: { prefix: string; scope: string } }>(me).key.scope, 'write');

      // Used up.
      assert.equal((await post('/v2/password-links/use', { token: invited.link.token, password: 'another long password' })).statusCode, 404);
      assert.equal((await post('/v2/password-links/lookup', { token: invited.link.token })).statusCode, 404);

      const signIn = await post('/v2/session', { login: 'carol', password: 'carols long password' });
      assert.equal(signIn.statusCode, 201, signIn.body);
      const projects = await withCookie(tokenOf(signIn), { url: '/v2/projects' });
      assert.equal(projects.statusCode, 200, projects.body);
      const wrong = await post('/v2/session', { login: 'carol', password: 'not carols password' });
      assert.equal(wrong.statusCode, 401, wrong.body);
      const unknown = await post('/v2/session', { login: 'nobody', password: 'whatever it is' });
      assert.equal(unknown.statusCode, 401, unknown.body);
      assert.equal(json<{ detail: string }>(unknown).detail, json<{ detail: string }>(wrong).detail);
    });

    test('only a team owner or admin invites; a duplicate login is a 409; an expired or replaced link is refused', async () => {
      const asMember = await t.request({ method: 'POST', url: '/v2/users', key: t.key, payload: { login: 'x' } });
      assert.equal(asMember.statusCode, 403, asMember.body);
      const first = await invite('dave');
      const again = await t.request({ method: 'POST', url: '/v2/users', key: t.adminKey, payload: { login: 'dave' } });
      assert.equal(again.statusCode, 409, again.body);
      const renewed = await t.request({ method: 'POST', url: `/v2/users/${first.user.id}/password-link`, key: t.adminKey, headers: { host: HOST } });
      assert.equal(renewed.statusCode, 201, renewed.body);
      assert.equal((await post('/v2/password-links/lookup', { token: first.link.token })).statusCode, 404, 'the newer link replaces the older');
      assert.equal((await post('/v2/password-links/lookup', { token: json<Invited>(renewed).link.token })).statusCode, 200);
      await t.ctx.db.kysely.updateTable('user_links').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('user_id', '=', first.user.id).execute();
      assert.equal((await post('/v2/password-links/use', { token: json<Invited>(renewed).link.token, password: 'daves long password' })).statusCode, 404);
    });

    test('a reset link replaces the password and ends the user’s sessions', async () => {
      const session = await join('erin', 'erins first password');
      const reset = await t.request({ method: 'POST', url: `/v2/users/${(await json<{ user: { id: number } }>(await withCookie(session, { url: '/v2/session' }))).user.id}/password-link`, key: t.adminKey, headers: { host: HOST } });
      assert.equal(reset.statusCode, 201, reset.body);
      assert.equal(json<Invited>(reset).link.purpose, 'reset');
      const used = await post('/v2/password-links/use', { token: json<Invited>(reset).link.token, password: 'erins second password' });
      assert.equal(used.statusCode, 201, used.body);
      assert.equal((await withCookie(session, { url: '/v2/projects' })).statusCode, 401, 'the old session ended');
      assert.equal((await post('/v2/session', { login: 'erin', password: 'erins first password' })).statusCode, 401);
      assert.equal((await post('/v2/session', { login: 'erin', password: 'erins second password' })).statusCode, 201);
    });

    test('disabling a user stops their key and session at once; enabling brings the key back, not the session', async () => {
      const session = await join('frank', 'franks long password');
      const keyRes = await withCookie(session, { method: 'POST', url: '/v2/account/keys', payload: { scope: 'write' } });
      assert.equal(keyRes.statusCode, 201, keyRes.body);
      const key = json<{ key: string }>(keyRes).key;
      assert.equal((await t.request({ method: 'GET', url: '/v2/projects', key })).statusCode, 200);
      const admin = await withCookie(session, { method: 'POST', url: '/v2/account/keys', payload: { scope: 'admin' } });
      assert.equal(admin.statusCode, 403, 'a member’s keys are not admin keys');
      const id = json<{ user: { id: number } }>(await withCookie(session, { url: '/v2/session' })).user.id;

      const disable = await t.request({ method: 'PATCH', url: `/v2/users/${id}`, key: t.adminKey, payload: { disabled: true } });
      assert.equal(disable.statusCode, 200, disable.body);
      assert.ok(json<User>(disable).disabledAt);
      assert.equal((await t.request({ method: 'GET', url: '/v2/projects', key })).statusCode, 401);
      assert.equal((await t.request({ method: 'GET', url: '/v1/projects', key })).statusCode, 401);
      assert.equal((await withCookie(session, { url: '/v2/projects' })).statusCode, 401);
      assert.equal((await post('/v2/session', { login: 'frank', password: 'franks long password' })).statusCode, 401);

      const enable = await t.request({ method: 'PATCH', url: `/v2/users/${id}`, key: t.adminKey, payload: { disabled: false } });
      assert.equal(enable.statusCode, 200, enable.body);
      assert.equal((await t.request({ method: 'GET', url: '/v2/projects', key })).statusCode, 200);
      assert.equal((await withCookie(session, { url: '/v2/projects' })).statusCode, 401);
    });

    test('nobody disables themselves; only an owner changes an owner', async () => {
      const users = json<{ items: User[] }>(await t.request({ method: 'GET', url: '/v2/users', key: t.adminKey })).items;
      const owner = users.find((u) => u.role === 'owner')!;
      const admin = users.find((u) => u.login === 'owner')!;
      assert.equal(admin.role, 'admin');
      assert.equal((await t.request({ method: 'PATCH', url: `/v2/users/${admin.id}`, key: t.adminKey, payload: { disabled: true } })).statusCode, 403);
      assert.equal((await t.request({ method: 'PATCH', url: `/v2/users/${owner.id}`, key: t.adminKey, payload: { role: 'member' } })).statusCode, 403);
    });

    test('sessions are listed and revoked by their user and by an admin, not by another member', async () => {
      const first = await join('gina', 'ginas long password');
      const second = tokenOf(await post('/v2/session', { login: 'gina', password: 'ginas long password' }, { 'user-agent': 'Test Browser' }));
      const list = await withCookie(second, { url: '/v2/sessions' });
      assert.equal(list.statusCode, 200, list.body);
      const items = json<{ items: { id: number; method: string; current: boolean; userAgent: string | null }[] }>(list).items;
      assert.deepEqual(items.map((s) => [s.method, s.current]), [['password', true], ['link', false]]);
      assert.equal(items[0]!.userAgent, 'Test Browser');
      const other = await join('hank', 'hanks long password');
      assert.equal((await withCookie(other, { method: 'DELETE', url: `/v2/sessions/${items[1]!.id}` })).statusCode, 403);
      assert.equal((await withCookie(second, { method: 'DELETE', url: `/v2/sessions/${items[1]!.id}` })).statusCode, 204);
      assert.equal((await withCookie(first, { url: '/v2/projects' })).statusCode, 401);
      const ginaId = json<{ user: { id: number } }>(await withCookie(second, { url: '/v2/session' })).user.id;
      const byAdmin = await t.request({ method: 'GET', url: `/v2/sessions?userId=${ginaId}`, key: t.adminKey });
      assert.equal(json<{ items: unknown[] }>(byAdmin).items.length, 1);
      const sessionId = json<{ items: { id: number }[] }>(byAdmin).items[0]!.id;
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/sessions/${sessionId}`, key: t.adminKey })).statusCode, 204);
      assert.equal((await withCookie(second, { url: '/v2/projects' })).statusCode, 401);
    });

    test('changing one’s password asks for the current one and ends the other sessions', async () => {
      const first = await join('ivy', 'ivys long password');
      const second = tokenOf(await post('/v2/session', { login: 'ivy', password: 'ivys long password' }));
      const wrong = await withCookie(second, { method: 'PUT', url: '/v2/account/password', payload: { currentPassword: 'not the password', password: 'ivys new password' } });
      assert.equal(wrong.statusCode, 403, wrong.body);
      const changed = await withCookie(second, { method: 'PUT', url: '/v2/account/password', payload: { currentPassword: 'ivys long password', password: 'ivys new password' } });
      assert.equal(changed.statusCode, 204, changed.body);
      assert.equal((await withCookie(second, { url: '/v2/account' })).statusCode, 200);
      assert.equal((await withCookie(first, { url: '/v2/account' })).statusCode, 401);
    });

    test('failed sign-ins are limited per login, across addresses', async () => {
      await join('jack', 'jacks long password');
      let last: LightMyRequestResponse | undefined;
      for (let i = 0; i < 11; i += 1) {
        last = await t.app.inject({ method: 'POST', url: '/v2/session', remoteAddress: `10.0.0.${i + 1}`, headers: { host: HOST, origin: ORIGIN }, payload: { login: 'jack', password: `guess number ${i}` } });
      }
      assert.equal(last!.statusCode, 429, last!.body);
      assert.match(json<{ detail: string }>(last!).detail, /for this login/);
    });

    test('no password reaches the log', async () => {
      const text = JSON.stringify(log.lines);
      for (const password of ['carols long password', 'not carols password', 'ginas long password', 'ivys new password', 'guess number 3']) assert.ok(!text.includes(password), password);
      assert.ok(log.lines.some((line) => line.route === '/v2/session'), 'sign-ins were logged');
    });
  });
}

