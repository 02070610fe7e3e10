// The audit trail through the real app on both databases: every write of a known caller is a row
// (failed ones with their status), a team's admins read their own team's rows only, newest first a
// page at a time, and rows past AUDIT_RETENTION_DAYS are removed.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Static } from 'typebox';
import { AnnostoreClient } from '../../src/client/index.ts';
import type { AuditItem as AuditItemSchema } from '../../src/http/schemas/v2-audit.ts';
import { insertEvents } from '../../src/repositories/audit.repository.ts';
import { expireAuditEvents } from '../../src/services/audit.service.ts';
import { createKey, keyPrefix } from '../../src/services/keys.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newProject } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

/** A row as GET /v2/audit answers it, in the route schema's own type. */
type AuditItem = Static<typeof AuditItemSchema>;

interface Page<T> {
  items: T[];
  nextCursor: string | null;
  total?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

for (const dialect of dialects) {
  describe(`API v2 audit trail on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let betaAdminKey: string;
    before(async () => {
      t = await startTestApp(dialect);
      betaAdminKey = await createKey(t.ctx.db.kysely, { team: 'beta', user: 'boss', scope: 'admin' });
    });
    after(async () => t?.close());

    /** The caller's team's rows, once every write answered so far is written. */
    const auditPage = async (query = '', key = t.adminKey): Promise<Page<AuditItem>> => {
      await t.app.auditTrail.settled();
      const res = await t.request({ method: 'GET', url: `/v2/audit${query}`, key });
      assert.equal(res.statusCode, 200, res.body);
      return json<Page<AuditItem>>(res);
    };
    const mine = async (requestId: string, key = t.adminKey): Promise<AuditItem | undefined> =>
      (await auditPage('?limit=1000', key)).items.find((item) => item.requestId === requestId);

    test('a write is recorded with its key prefix, route pattern, ids, status and request id', async () => {
      const created = await t.request({ method: 'POST', url: '/v2/projects', payload: { title: 'audited' }, headers: { 'x-request-id': 'create-1' } });
      assert.equal(created.statusCode, 201, created.body);
      const id = json<{ id: number }>(created).id;
      const renamed = await t.request({ method: 'PATCH', url: `/v2/projects/${id}`, key: t.adminKey, payload: { title: 'audited 2' }, headers: { 'x-request-id': 'rename-1' } });
      assert.equal(renamed.statusCode, 200, renamed.body);

      const create = await mine('create-1');
      assert.ok(create, 'the create is recorded');
      assert.deepEqual(
        { keyPrefix: create.keyPrefix, method: create.method, route: create.route, params: create.params, status: create.status },
        { keyPrefix: keyPrefix(t.key), method: 'POST', route: '/v2/projects', params: null, status: 201 },
      );
      assert.ok(!JSON.stringify(create).includes(t.key), 'the key itself is never recorded');
      assert.ok(Math.abs(Date.parse(create.at) - Date.now()) < 60_000);
      const rename = await mine('rename-1');
      assert.deepEqual(
        { keyPrefix: rename?.keyPrefix, route: rename?.route, params: rename?.params, status: rename?.status },
        { keyPrefix: keyPrefix(t.adminKey), route: '/v2/projects/:id', params: { id }, status: 200 },
      );
      assert.notEqual(rename!.keyId, create.keyId);
      assert.notEqual(rename!.userId, create.userId);

      // v1 writes too.
      const projectId = await newProject(t.ctx, { title: 'v1 audited' });
      const datasetId = await newDataset(t.ctx, projectId);
      const removed = await t.request({ method: 'DELETE', url: `/v1/datasets/${datasetId}`, headers: { 'x-request-id': 'v1-delete' } });
      assert.equal(removed.statusCode, 200, removed.body);
      const v1 = await mine('v1-delete');
      assert.deepEqual({ route: v1?.route, params: v1?.params, status: v1?.status }, { route: '/v1/datasets/:datasetId', params: { datasetId }, status: 200 });

      // Reads are not writes.
      await t.request({ method: 'GET', url: `/v2/projects/${id}`, headers: { 'x-request-id': 'read-1' } });
      assert.equal(await mine('read-1'), undefined);
    });

    test('failed writes are recorded with their status; a request without a valid key is not', async () => {
      const invalid = await t.request({ method: 'POST', url: '/v2/projects', payload: { title: 5 }, headers: { 'x-request-id': 'invalid-1' } });
      assert.equal(invalid.statusCode, 400);
      const readOnly = await t.request({ method: 'POST', url: '/v2/projects', key: t.readOnlyKey, payload: { title: 'nope' }, headers: { 'x-request-id': 'read-only-1' } });
      assert.equal(readOnly.statusCode, 403);
      const missing = await t.request({ method: 'DELETE', url: '/v2/projects/2000000', headers: { 'x-request-id': 'missing-1' } });
      assert.equal(missing.statusCode, 404);
      const noKey = await t.request({ method: 'POST', url: '/v2/projects', key: null, payload: { title: 'x' }, headers: { 'x-request-id': 'no-key-1' } });
      assert.equal(noKey.statusCode, 401);

      assert.equal((await mine('invalid-1'))?.status, 400);
      const refused = await mine('read-only-1');
      assert.deepEqual({ status: refused?.status, keyPrefix: refused?.keyPrefix }, { status: 403, keyPrefix: keyPrefix(t.readOnlyKey) });
      assert.deepEqual({ status: (await mine('missing-1'))?.status, params: (await mine('missing-1'))?.params }, { status: 404, params: { id: 2000000 } });
      assert.equal(await mine('no-key-1'), undefined);

      const failed = await auditPage('?status=403');
      assert.ok(failed.items.length >= 1 && failed.items.every((item) => item.status === 403));
      const deletes = await auditPage('?method=DELETE');
      assert.ok(deletes.items.length >= 2 && deletes.items.every((item) => item.method === 'DELETE'));
      const readOnlyKeyId = refused!.keyId;
      const byKey = await auditPage(`?keyId=${readOnlyKeyId}`);
      assert.deepEqual(byKey.items.map((item) => item.requestId), ['read-only-1']);
    });

    test('each team’s admins see their own team’s rows only; other scopes are refused', async () => {
      const beta = await t.request({ method: 'POST', url: '/v2/projects', key: t.otherKey, payload: { title: 'beta’s' }, headers: { 'x-request-id': 'beta-1' } });
      assert.equal(beta.statusCode, 201);
      assert.equal(await mine('beta-1'), undefined, 'alpha sees beta’s write');
      const betaRows = await auditPage('?limit=1000', betaAdminKey);
      assert.deepEqual(betaRows.items.map((item) => item.requestId), ['beta-1']);
      assert.equal(betaRows.items[0]!.keyPrefix, keyPrefix(t.otherKey));

      for (const key of [t.key, t.readOnlyKey, t.otherKey]) {
        const res = await t.request({ method: 'GET', url: '/v2/audit', key });
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(json<{ code: string }>(res).code, 'FORBIDDEN');
      }
      assert.equal((await t.request({ method: 'GET', url: '/v2/audit', key: null })).statusCode, 401);
    });

    test('pages newest first by cursor, with the total on request', async () => {
      for (let i = 0; i < 5; i += 1) await t.request({ method: 'POST', url: '/v2/projects', payload: { title: `paged ${i}` } });
      const whole = await auditPage('?limit=1000&count=true');
      assert.equal(whole.total, whole.items.length);
      assert.ok(whole.items.length >= 10, `${whole.items.length} rows`);
      const ids = whole.items.map((item) => item.id);
      assert.deepEqual(ids, ids.toSorted((a, b) => b - a), 'newest first');

      const paged: number[] = [];
      let cursor: string | null = null;
      do {
        const res = await t.request({ method: 'GET', url: `/v2/audit?limit=3${cursor ? `&cursor=${cursor}` : ''}`, key: t.adminKey });
        const page = json<Page<AuditItem>>(res);
        assert.ok(page.items.length <= 3);
        if (page.nextCursor) assert.match(String(res.headers.link), /rel="next"/);
        paged.push(...page.items.map((item) => item.id));
        cursor = page.nextCursor;
      } while (cursor);
      assert.deepEqual(paged, ids);

      const since = whole.items[2]!.at;
      const recent = await auditPage(`?limit=1000&since=${encodeURIComponent(since)}`);
      assert.ok(recent.items.every((item) => item.at >= since) && recent.items.length >= 3);
      assert.equal((await t.request({ method: 'GET', url: '/v2/audit?cursor=bm9wZQ', key: t.adminKey })).statusCode, 400);
      assert.equal((await t.request({ method: 'GET', url: '/v2/audit?since=yesterday', key: t.adminKey })).statusCode, 400);
      assert.equal((await t.request({ method: 'GET', url: '/v2/audit?since=2026-13-45T00:00:00Z', key: t.adminKey })).statusCode, 400);
    });

    test('the typed client lists the audit trail', async () => {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      const client = new AnnostoreClient({ url, key: t.adminKey, retries: 0 });
      const page = await client.v2.audit.list({ limit: 2, method: 'POST' });
      assert.equal(page.items.length, 2);
      assert.ok(page.items.every((item) => item.method === 'POST'));
      let all = 0;
      for await (const item of client.v2.audit.all({ limit: 4 })) {
        assert.equal(typeof item.route, 'string');
        all += 1;
      }
      assert.equal(all, (await auditPage('?limit=1000')).items.length);
    });

    test('the retention sweep removes rows older than AUDIT_RETENTION_DAYS and keeps the rest', async () => {
      const now = new Date();
      const alphaTeamId = await teamIdOf(t, t.adminKey);
      const old = (days: number, requestId: string) => ({
        at: new Date(now.getTime() - days * DAY_MS).toISOString(),
        teamId: alphaTeamId,
        userId: 1,
        keyId: 1,
        keyPrefix: 'ak_old',
        method: 'POST',
        route: '/v2/projects',
        params: null,
        status: 201,
        requestId,
        durationMs: 1,
      });
      await insertEvents(t.ctx.db.kysely, [old(91, 'ancient-1'), old(200, 'ancient-2'), old(89, 'recent-1')]);
      const before = (await auditPage('?limit=1000')).items.length;
      assert.equal(t.config.operations.auditRetentionMs, 90 * DAY_MS);
      assert.equal(await expireAuditEvents(t.ctx, now), 2);
      const kept = (await auditPage('?limit=1000')).items;
      assert.equal(kept.length, before - 2);
      assert.ok(kept.some((item) => item.requestId === 'recent-1'));
      assert.ok(!kept.some((item) => item.requestId.startsWith('ancient-')));
      assert.equal(await expireAuditEvents(t.ctx, now), 0);
    });
  });
}

async function teamIdOf(t: TestApp, key: string): Promise<number> {
  return json<{ team: { id: number } }>(await t.request({ method: 'GET', url: '/v2/me', key })).team.id;
}
