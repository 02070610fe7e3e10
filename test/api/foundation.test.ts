// Authentication, tenancy, error bodies, deprecation headers, health and docs: on both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as teams from '../../src/repositories/teams.repository.ts';
import { createKey, keyPrefix } from '../../src/services/keys.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

for (const dialect of dialects) {
  describe(`foundation on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(async () => t?.close());

    test('a request without a key is 401 with the contract body', async () => {
      const res = await t.request({ method: 'GET', url: '/v1/projects', key: null });
      assert.equal(res.statusCode, 401);
      assert.equal(json<{ error: string }>(res).error, 'UNAUTHORIZED');
      assert.equal(typeof json<{ details: { message: string } }>(res).details.message, 'string');
    });

    test('an unknown key is 401', async () => {
      const res = await t.request({ method: 'GET', url: '/v1/projects', key: `${t.key.slice(0, 12)}tampered-with-key` });
      assert.equal(res.statusCode, 401);
    });

    test('a revoked key is 401 and the other keys keep working', async () => {
      const doomed = await createKey(t.ctx.db.kysely, { team: 'alpha', user: 'temp' });
      assert.equal((await t.request({ method: 'GET', url: '/v1/projects', key: doomed })).statusCode, 200);
      assert.equal(await teams.revokeKeys(t.ctx.db.kysely, keyPrefix(doomed)), 1);
      assert.equal((await t.request({ method: 'GET', url: '/v1/projects', key: doomed })).statusCode, 401);
      assert.equal((await t.request({ method: 'GET', url: '/v1/projects' })).statusCode, 200);
    });

    test('a key revoked by another process is refused as soon as the server can tell', async () => {
      const doomed = await createKey(t.ctx.db.kysely, { team: 'alpha', user: 'elsewhere' });
      assert.equal((await t.request({ method: 'GET', url: '/v1/projects', key: doomed })).statusCode, 200);
      // `annostore keys revoke` runs in its own process: its own connection to the same database.
      assert.equal(await t.inAnotherProcess((other) => teams.revokeKeys(other.db.kysely, keyPrefix(doomed))), 1);
      assert.equal((await t.request({ method: 'GET', url: '/v1/projects', key: doomed })).statusCode, 401);
      assert.equal((await t.request({ method: 'GET', url: '/v1/projects' })).statusCode, 200);
    });

    test('keys are stored only as digests', async () => {
      const rows = await t.ctx.db.kysely.selectFrom('api_keys').select(['prefix', 'digest']).execute();
      for (const row of rows) {
        assert.match(row.digest, /^[0-9a-f]{64}$/);
        assert.notEqual(row.digest, t.key);
        assert.ok(row.prefix.length < t.key.length);
      }
    });

    test('a read-only key reads but gets 403 on every change', async () => {
      assert.equal((await t.request({ method: 'GET', url: '/v1/projects', key: t.readOnlyKey })).statusCode, 200);
      const res = await t.request({ method: 'DELETE', url: '/v1/projects/1', key: t.readOnlyKey });
      assert.equal(res.statusCode, 403);
      assert.equal(json<{ error: string }>(res).error, 'FORBIDDEN');
    });

    test('every /v1 answer carries Deprecation, Sunset and Link, errors included', async () => {
      for (const res of [
        await t.request({ method: 'GET', url: '/v1/projects' }),
        await t.request({ method: 'GET', url: '/v1/projects', key: null }),
        await t.request({ method: 'GET', url: '/v1/no-such-route' }),
      ]) {
        assert.match(String(res.headers.deprecation), /^@\d+$/);
        const sunset = new Date(String(res.headers.sunset));
        assert.ok(!Number.isNaN(sunset.getTime()));
        assert.ok(sunset.getTime() / 1000 >= Number(String(res.headers.deprecation).slice(1)));
        assert.match(String(res.headers.link), /<\/v2>; rel="successor-version"/);
        assert.match(String(res.headers.link), /rel="deprecation"/);
      }
    });

    test('an unknown route is 404 NOT_FOUND', async () => {
      const res = await t.request({ method: 'GET', url: '/v1/nothing-here' });
      assert.equal(res.statusCode, 404);
      assert.equal(json<{ error: string }>(res).error, 'NOT_FOUND');
    });

    test('malformed JSON is 400 VALIDATION', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/v1/projects/1/tags',
        headers: { 'content-type': 'application/json' },
        payload: '{"type": "images", ',
      });
      assert.equal(res.statusCode, 400);
      assert.equal(json<{ error: string }>(res).error, 'VALIDATION');
    });

    test('a __proto__ member is rejected with 400', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/v1/projects/1/tags',
        headers: { 'content-type': 'application/json' },
        payload: '{"type": "images", "title": "x", "__proto__": {"polluted": true}}',
      });
      assert.equal(res.statusCode, 400);
      assert.equal(json<{ error: string }>(res).error, 'VALIDATION');
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });

    test('a body over the size limit is 413 PAYLOAD_TOO_LARGE', async () => {
      const res = await t.request({
        method: 'PUT',
        url: '/v1/images/description?imageId=1',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ value: 'x'.repeat(t.config.limits.jsonBodyBytes + 10) }),
      });
      assert.equal(res.statusCode, 413);
      assert.equal(json<{ error: string }>(res).error, 'PAYLOAD_TOO_LARGE');
    });

    test('a body of another media type is 415', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/v1/projects/1/tags',
        headers: { 'content-type': 'application/xml' },
        payload: '<tag/>',
      });
      assert.equal(res.statusCode, 415);
      assert.equal(json<{ error: string }>(res).error, 'UNSUPPORTED_MEDIA_TYPE');
    });

    test('ids that are not positive integers are 400', async () => {
      for (const id of ['0', '-1', '1.5', 'abc', '99999999999']) {
        const res = await t.request({ method: 'DELETE', url: `/v1/projects/${id}` });
        assert.equal(res.statusCode, 400, `id ${id}`);
        assert.equal(json<{ error: string }>(res).error, 'VALIDATION');
      }
    });

    test('a path the router cannot read is 400 VALIDATION, with the contract body and the /v1 headers', async () => {
      for (const url of ['/v1/projects/%ff', '/v1/projects/%', '/v1/projects/1/tags/%E0%A4%A', `/v1/projects/${'1'.repeat(201)}`]) {
        const res = await t.request({ method: 'DELETE', url });
        assert.equal(res.statusCode, 400, url);
        assert.equal(json<{ error: string }>(res).error, 'VALIDATION', url);
        assert.equal(typeof json<{ details: { message: string } }>(res).details.message, 'string', url);
        assert.match(String(res.headers.deprecation), /^@\d+$/, url);
      }
    });

    test('a NUL character in a text value is 400 VALIDATION naming the field, and nothing is stored', async () => {
      const projectId = await newProject(t.ctx, { title: 'nul' });
      const datasetId = await newDataset(t.ctx, projectId);
      const image = await newImage(t.ctx, datasetId, { description: 'kept' });
      const tagId = await newTag(t.ctx, projectId, { title: 'kept' });
      const cases: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; payload?: unknown; field: string }[] = [
        { method: 'POST', url: `/v1/projects/${projectId}/tags`, payload: { type: 'images', title: 'a\u0000b' }, field: 'title' },
        { method: 'POST', url: `/v1/projects/${projectId}/tags`, payload: { type: 'images', title: 'fine', hotkey: '\u0000' }, field: 'hotkey' },
        { method: 'PUT', url: `/v1/projects/${projectId}/tags/${tagId}`, payload: { type: 'images', title: '\u0000' }, field: 'title' },
        { method: 'POST', url: `/v1/images/tags?imageId=${image.id}`, payload: { title: 'new\u0000', create: true }, field: 'title' },
        { method: 'DELETE', url: `/v1/images/tags?imageId=${image.id}`, payload: [{ title: 'kept\u0000' }], field: '0.title' },
        { method: 'PUT', url: `/v1/images/description?imageId=${image.id}`, payload: { value: 'changed\u0000' }, field: 'value' },
        { method: 'GET', url: `/v1/images/tags?imageTitle=img%00.png&datasetId=${datasetId}`, field: 'imageTitle' },
        { method: 'POST', url: '/v1/tasks/import/check-images', payload: ['\u0000'], field: '0' },
        {
          method: 'POST',
          url: '/v1/tasks/import',
          payload: { project: { id: null, title: 'p\u0000' }, preset: 0, files: [{ hash: image.hash, path: 'ds/img/a.png' }] },
          field: 'project.title',
        },
        {
          method: 'POST',
          url: '/v1/tasks/import',
          payload: { project: { id: projectId }, preset: 0, files: [{ hash: image.hash, path: 'ds/img/a.png' }, { fileId: 'f_\u0000', path: 'ds/ann/a.png.json' }] },
          field: 'files.1.fileId',
        },
        { method: 'POST', url: '/v1/tasks/import/local', payload: { id: null, title: 'p\u0000', datasetsIds: [datasetId] }, field: 'title' },
      ];
      for (const { method, url, payload, field } of cases) {
        const res = await t.request({ method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
        assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body}`);
        const body = json<{ error: string; details: { message: string; field?: string } }>(res);
        assert.equal(body.error, 'VALIDATION', url);
        assert.equal(body.details.field, field, url);
      }
      assert.deepEqual(await t.ctx.db.kysely.selectFrom('tasks').select('id').execute(), [], 'no task was created');
      const tags = await t.ctx.db.kysely.selectFrom('project_tags').select('title').where('project_id', '=', projectId).execute();
      assert.deepEqual(tags, [{ title: 'kept' }]);
      const stored = await t.ctx.db.kysely.selectFrom('images').select('description').where('id', '=', image.id).executeTakeFirstOrThrow();
      assert.equal(stored.description, 'kept');
    });

    test('/healthz, /openapi.json and /docs answer without a key', async () => {
      assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      const doc = json<{ openapi: string; paths: Record<string, unknown> }>(await t.app.inject({ method: 'GET', url: '/openapi.json' }));
      assert.match(doc.openapi, /^3\./);
      assert.ok(doc.paths['/v1/projects'], 'the document lists /v1/projects');
      const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
      assert.equal(docs.statusCode, 200);
      assert.match(docs.body, /<html/i);
    });
  });
}
