// GET /v2/me and the team's keys (/v2/keys) through the real app on both databases: what each scope
// may do, a key shown once, a revoked key refused at the very next request.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { revokeKeys } from '../../src/repositories/teams.repository.ts';
import { keyPrefix } from '../../src/services/keys.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface Me {
  team: { id: number; name: string };
  user: { id: number; login: string };
  key: { id: number; prefix: string; scope: string };
}

interface TeamKey {
  id: number;
  prefix: string;
  scope: string;
  user: { id: number; login: string };
  createdAt: string;
  revokedAt: string | null;
}

interface Page<T> {
  items: T[];
  nextCursor: string | null;
  total?: number;
}

for (const dialect of dialects) {
  describe(`API v2 me and keys on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(async () => t?.close());

    const me = async (key: string, bearer = false) => {
      const res = await t.request(bearer ? { method: 'GET', url: '/v2/me', key: null, headers: { authorization: `Bearer ${key}` } } : { method: 'GET', url: '/v2/me', key });
      assert.equal(res.statusCode, 200, res.body);
      return json<Me>(res);
    };
    const newKey = (body: Record<string, unknown>, key = t.adminKey) => t.request({ method: 'POST', url: '/v2/keys', key, payload: body });

    test('/me names the team, the user and the key with its scope, never the key itself', async () => {
      const alice = await me(t.key);
      assert.equal(alice.team.name, 'alpha');
      assert.equal(alice.user.login, 'alice');
      assert.deepEqual({ prefix: alice.key.prefix, scope: alice.key.scope }, { prefix: keyPrefix(t.key), scope: 'write' });
      assert.deepEqual(await me(t.key, true), alice);
      assert.equal((await me(t.readOnlyKey)).key.scope, 'read');
      assert.equal((await me(t.adminKey)).key.scope, 'admin');
      const bob = await me(t.otherKey);
      assert.equal(bob.team.name, 'beta');
      assert.notEqual(bob.team.id, alice.team.id);
      assert.equal((await t.request({ method: 'GET', url: '/v2/me', key: null })).statusCode, 401);
      assert.equal((await t.request({ method: 'GET', url: '/v2/me', key: 'ak_not-a-key-of-anybody-here-at-all' })).statusCode, 401);
    });

    test('scopes: a read key may not write, a write key may not manage keys, an admin key may', async () => {
      const readWrite = await t.request({ method: 'POST', url: '/v2/models', key: t.readOnlyKey, payload: { title: 'm', architectureId: 1 } });
      assert.equal(readWrite.statusCode, 403);
      assert.match(String(readWrite.headers['content-type']), /^application\/problem\+json/);
      assert.equal(json<{ code: string }>(readWrite).code, 'FORBIDDEN');
      for (const key of [t.key, t.readOnlyKey]) {
        assert.equal((await t.request({ method: 'GET', url: '/v2/keys', key })).statusCode, 403);
        assert.equal((await newKey({ scope: 'read' }, key)).statusCode, 403);
        assert.equal((await t.request({ method: 'DELETE', url: `/v2/keys/${(await me(t.key)).key.id}`, key })).statusCode, 403);
      }
      assert.equal((await t.request({ method: 'GET', url: '/v2/keys', key: t.adminKey })).statusCode, 200);
      // The write key was not revoked by the refused attempts.
      assert.equal((await me(t.key)).user.login, 'alice');
    });

    test('the admin lists the team’s keys only, without digests, a page at a time', async () => {
      const res = await t.request({ method: 'GET', url: '/v2/keys?count=true', key: t.adminKey });
      const page = json<Page<TeamKey>>(res);
      assert.deepEqual(page.items.map((k) => [k.user.login, k.scope]), [['alice', 'write'], ['reader', 'read'], ['owner', 'admin']]);
      assert.equal(page.total, 3);
      assert.deepEqual(Object.keys(page.items[0]!).sort(), ['createdAt', 'id', 'prefix', 'revokedAt', 'scope', 'user']);
      assert.ok(!res.body.includes(t.key), 'no key in the listing');
      const first = json<Page<TeamKey>>(await t.request({ method: 'GET', url: '/v2/keys?limit=2', key: t.adminKey }));
      assert.equal(first.items.length, 2);
      const second = json<Page<TeamKey>>(await t.request({ method: 'GET', url: `/v2/keys?limit=2&cursor=${first.nextCursor}`, key: t.adminKey }));
      assert.deepEqual([...first.items, ...second.items].map((k) => k.id), page.items.map((k) => k.id));
      assert.equal(second.nextCursor, null);
      const beta = await t.request({ method: 'GET', url: '/v2/keys', key: t.otherKey });
      assert.equal(beta.statusCode, 403, 'bob’s key is write, not admin');
    });

    test('a new key is answered once, works with its scope, and is revoked for the very next request', async () => {
      const created = await newKey({ scope: 'read', user: 'carol' });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.headers['cache-control'], 'no-store');
      const answer = json<TeamKey & { key: string }>(created);
      assert.match(answer.key, /^ak_/);
      assert.equal(answer.prefix, keyPrefix(answer.key));
      assert.equal(answer.scope, 'read');
      assert.equal(answer.user.login, 'carol');
      assert.equal(answer.revokedAt, null);
      const carol = await me(answer.key);
      assert.deepEqual(carol.key, { id: answer.id, prefix: answer.prefix, scope: 'read' });
      assert.equal(carol.team.name, 'alpha');
      assert.equal((await t.request({ method: 'POST', url: '/v2/models', key: answer.key, payload: { title: 'm', architectureId: 1 } })).statusCode, 403);
      const listed = json<Page<TeamKey>>(await t.request({ method: 'GET', url: '/v2/keys', key: t.adminKey }));
      assert.ok(!JSON.stringify(listed).includes(answer.key), 'the key is never shown again');

      // A key for the admin's own user, by default.
      const own = json<TeamKey & { key: string }>(await newKey({ scope: 'write' }));
      assert.equal(own.user.login, 'owner');

      // One key as the list shows it, with the ETag a revoke may name in If-Match.
      const one = await t.request({ method: 'GET', url: `/v2/keys/${answer.id}`, key: t.adminKey });
      assert.equal(one.statusCode, 200, one.body);
      assert.deepEqual(json(one), listed.items.find((k) => k.id === answer.id));
      assert.equal((await t.request({ method: 'GET', url: `/v2/keys/${answer.id}`, key: t.key })).statusCode, 403);
      const stale = await t.request({ method: 'DELETE', url: `/v2/keys/${answer.id}`, key: t.adminKey, headers: { 'if-match': '"an older version"' } });
      assert.equal(stale.statusCode, 412, stale.body);
      assert.equal(json<{ etag: string }>(stale).etag, one.headers.etag);

      // The cached answer for the key must not outlive the revoke.
      assert.equal((await t.request({ method: 'GET', url: '/v2/me', key: answer.key })).statusCode, 200);
      const revoke = await t.request({ method: 'DELETE', url: `/v2/keys/${answer.id}`, key: t.adminKey, headers: { 'if-match': String(one.headers.etag) } });
      assert.equal(revoke.statusCode, 204);
      const refused = await t.request({ method: 'GET', url: '/v2/me', key: answer.key });
      assert.equal(refused.statusCode, 401);
      assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
      assert.equal((await t.request({ method: 'GET', url: '/v1/projects', key: answer.key })).statusCode, 401);
      const after = json<Page<TeamKey>>(await t.request({ method: 'GET', url: '/v2/keys', key: t.adminKey })).items.find((k) => k.id === answer.id)!;
      assert.ok(after.revokedAt);
      // Revoking again changes nothing and says so quietly.
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/keys/${answer.id}`, key: t.adminKey })).statusCode, 204);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/keys/${own.id}`, key: t.adminKey })).statusCode, 204);
    });

    test('a new key is never kept for an Idempotency-Key replay: a retry makes another one', async () => {
      const send = () => t.request({ method: 'POST', url: '/v2/keys', key: t.adminKey, headers: { 'idempotency-key': 'make-a-key-once' }, payload: { scope: 'read', user: 'erin' } });
      const first = json<TeamKey & { key: string }>(await send());
      const retry = await send();
      assert.equal(retry.statusCode, 201);
      assert.equal(retry.headers['idempotent-replayed'], undefined);
      const second = json<TeamKey & { key: string }>(retry);
      assert.notEqual(second.key, first.key);
      const kept = await t.ctx.db.kysely.selectFrom('idempotent_requests').select('body').execute();
      assert.ok(!kept.some((row) => row.body?.includes(first.key) || row.body?.includes(second.key)), 'no key is stored in clear');
      for (const k of [first, second]) assert.equal((await t.request({ method: 'DELETE', url: `/v2/keys/${k.id}`, key: t.adminKey })).statusCode, 204);
    });

    test('a key revoked by another process is refused once the app can tell', async () => {
      const answer = json<TeamKey & { key: string }>(await newKey({ scope: 'write', user: 'dave' }));
      assert.equal((await t.request({ method: 'GET', url: '/v2/me', key: answer.key })).statusCode, 200);
      await t.inAnotherProcess((other) => revokeKeys(other.db.kysely, answer.prefix));
      assert.equal((await t.request({ method: 'GET', url: '/v2/me', key: answer.key })).statusCode, 401);
    });

    test('another team’s key is a 404 to revoke and keeps working; the body is checked', async () => {
      const bob = await me(t.otherKey);
      const res = await t.request({ method: 'DELETE', url: `/v2/keys/${bob.key.id}`, key: t.adminKey });
      assert.equal(res.statusCode, 404);
      assert.equal(json<{ code: string }>(res).code, 'NOT_FOUND');
      assert.equal((await t.request({ method: 'DELETE', url: '/v2/keys/999999', key: t.adminKey })).statusCode, 404);
      assert.equal((await me(t.otherKey)).key.id, bob.key.id);
      assert.equal((await newKey({ scope: 'root' })).statusCode, 400);
      assert.equal((await newKey({ scope: 'read', user: '../x y' })).statusCode, 400);
      assert.equal((await newKey({ scope: 'read', team: 'beta' })).statusCode, 400);
    });
  });
}
