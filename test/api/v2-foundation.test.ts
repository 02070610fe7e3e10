// What every v2 route shares, on both databases: problem details, Bearer keys and scopes,
// Idempotency-Key on creates, the OpenAPI 3.1 document, and v1's link to it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { newProject } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';

for (const dialect of dialects) {
  describe(`API v2 foundation on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let projectId: number;
    before(async () => {
      t = await startTestApp(dialect);
      projectId = await newProject(t.ctx, { title: 'p', classes: [{ title: 'car', shape: 'rectangle' }] });
    });
    after(async () => t?.close());

    const exportBody = () => ({ projectId, format: 'coco' });

    test('errors are problem details: no key, an unknown key, an unknown route, a bad body', async () => {
      assertProblem(await t.request({ method: 'GET', url: '/v2/exports/1', key: null }), 401, 'UNAUTHORIZED');
      assertProblem(await t.request({ method: 'GET', url: '/v2/exports/1', key: 'ak_not-a-key-of-anyone' }), 401, 'UNAUTHORIZED');
      const unknown = assertProblem(await t.request({ method: 'GET', url: '/v2/no-such-thing' }), 404, 'NOT_FOUND');
      assert.match(unknown.detail, /GET \/v2\/no-such-thing/);
      const bad = assertProblem(await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId: 'x', format: 'coco' } }), 400, 'VALIDATION');
      assert.deepEqual(bad.errors?.map((e) => e.pointer), ['/projectId']);
      const extra = assertProblem(await t.request({ method: 'POST', url: '/v2/exports', payload: { ...exportBody(), colour: 'red' } }), 400, 'VALIDATION');
      assert.deepEqual(extra.errors?.map((e) => e.pointer), ['/colour']);
      assertProblem(await t.request({ method: 'GET', url: '/v2/exports/%E0%A4%A' }), 400, 'VALIDATION');
    });

    test('v1 keeps its own error body', async () => {
      const res = await t.request({ method: 'GET', url: '/v1/no-such-thing' });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(Object.keys(json<object>(res)).sort(), ['details', 'error']);
    });

    test('a Bearer key works; a read key reads but cannot write; the admin scope is its own', async () => {
      const created = await t.request({ method: 'POST', url: '/v2/exports', key: null, headers: { authorization: `Bearer ${t.key}` }, payload: exportBody() });
      assert.equal(created.statusCode, 201, created.body);
      const id = json<{ task: { id: number } }>(created).task.id;
      assert.equal((await t.request({ method: 'GET', url: `/v2/exports/${id}`, key: t.readOnlyKey })).statusCode, 200);
      assertProblem(await t.request({ method: 'POST', url: '/v2/exports', key: t.readOnlyKey, payload: exportBody() }), 403, 'FORBIDDEN');
      assert.equal((await t.request({ method: 'POST', url: '/v2/exports', key: t.adminKey, payload: exportBody() })).statusCode, 201);
    });

    test('an export is answered with its ETag; DELETE honours If-Match', async () => {
      const created = await t.request({ method: 'POST', url: '/v2/exports', payload: exportBody() });
      assert.equal(created.statusCode, 201, created.body);
      const id = json<{ task: { id: number } }>(created).task.id;
      const read = await t.request({ method: 'GET', url: `/v2/exports/${id}` });
      const etag = String(read.headers.etag);
      assert.match(etag, /^"[^"]+"$/);
      assert.equal((await t.request({ method: 'GET', url: `/v2/exports/${id}`, headers: { 'if-none-match': etag } })).statusCode, 304);
      const stale = assertProblem(await t.request({ method: 'DELETE', url: `/v2/exports/${id}`, headers: { 'if-match': '"an older version"' } }), 412, 'PRECONDITION_FAILED');
      assert.equal((stale as { etag?: string }).etag, etag);
      assert.equal(json<{ task: { status: string } }>(await t.request({ method: 'GET', url: `/v2/exports/${id}` })).task.status, 'queued', 'nothing changed');
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/exports/${id}`, headers: { 'if-match': etag } })).statusCode, 204);
      assert.equal((await t.request({ method: 'GET', url: `/v2/exports/${id}` })).statusCode, 404);
    });

    test('a create retried with its Idempotency-Key answers the first answer and creates nothing more', async () => {
      const headers = { 'idempotency-key': 'export-2026-11-25-a' };
      const first = await t.request({ method: 'POST', url: '/v2/exports', headers, payload: exportBody() });
      assert.equal(first.statusCode, 201, first.body);
      const retried = await t.request({ method: 'POST', url: '/v2/exports', headers, payload: exportBody() });
      assert.equal(retried.statusCode, 201);
      assert.equal(retried.headers['idempotent-replayed'], 'true');
      assert.equal(retried.body, first.body);
      assert.match(String(retried.headers['content-type']), /^application\/json/);
      const tasks = json<{ id: number; type: string }[]>(await t.request({ method: 'GET', url: '/v1/tasks' }));
      const id = json<{ task: { id: number } }>(first).task.id;
      assert.equal(tasks.filter((task) => task.id >= id).length, 1, 'one task for both requests');

      // Another request under the same key is refused; the same key of another API key is its own.
      const other = await t.request({ method: 'POST', url: '/v2/exports', headers, payload: { projectId, format: 'yolo' } });
      assertProblem(other, 422, 'IDEMPOTENCY_KEY_REUSED');
      const byAdmin = await t.request({ method: 'POST', url: '/v2/exports', key: t.adminKey, headers, payload: exportBody() });
      assert.equal(byAdmin.statusCode, 201);
      assert.equal(byAdmin.headers['idempotent-replayed'], undefined);
      assert.notEqual(json<{ task: { id: number } }>(byAdmin).task.id, id);
    });

    test('a create that failed lets its Idempotency-Key go: the corrected retry runs', async () => {
      const headers = { 'idempotency-key': 'export-after-a-404' };
      assertProblem(await t.request({ method: 'POST', url: '/v2/exports', headers, payload: { projectId: 2_000_000, format: 'coco' } }), 404, 'NOT_FOUND');
      const retried = await t.request({ method: 'POST', url: '/v2/exports', headers, payload: { projectId: 2_000_000, format: 'coco' } });
      assertProblem(retried, 404, 'NOT_FOUND');
      assert.equal(retried.headers['idempotent-replayed'], undefined, 'a failure is not replayed');
      assertProblem(await t.request({ method: 'POST', url: '/v2/exports', headers: { 'idempotency-key': 'bad key' }, payload: exportBody() }), 400, 'VALIDATION');
    });

    test('the OpenAPI 3.1 document of v2 is public at /v2/openapi.json and /v2, and v1 links to it', async () => {
      const doc = json<{ openapi: string; paths: Record<string, unknown> }>(await t.request({ method: 'GET', url: '/v2/openapi.json', key: null }));
      assert.equal(doc.openapi, '3.1.0');
      const paths = Object.keys(doc.paths);
      assert.ok(paths.includes('/v2/exports'), paths.join(' '));
      assert.ok(paths.every((p) => p.startsWith('/v2/')));
      // A key's rate limits can refuse any authenticated route: the document says so.
      const listProjects = (doc.paths['/v2/projects'] as { get: { responses: Record<string, unknown> } }).get;
      assert.ok('429' in listProjects.responses, Object.keys(listProjects.responses).join(' '));
      const root = await t.request({ method: 'GET', url: '/v2', key: null });
      assert.equal(root.statusCode, 200);
      assert.equal(json<{ openapi: string }>(root).openapi, '3.1.0');
      const v1Doc = json<{ paths: Record<string, unknown> }>(await t.request({ method: 'GET', url: '/openapi.json', key: null }));
      assert.ok(Object.keys(v1Doc.paths).every((p) => p.startsWith('/v1/')));
      const v1 = await t.request({ method: 'GET', url: '/v1/projects' });
      assert.match(String(v1.headers.link), /<\/v2>; rel="successor-version"/);
      assert.equal(v1.headers.deprecation !== undefined, true);
      assert.equal((await t.request({ method: 'GET', url: '/v2/exports/1' })).headers.deprecation, undefined, 'v2 is not deprecated');
    });
  });
}
