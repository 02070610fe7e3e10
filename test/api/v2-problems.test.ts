// Every v2 400 says where: `errors`, each with the part of the request (`in`) and a JSON pointer into
// it, for the checks of the route's schema and for those made after it (annotation content, import
// paths and layout, export options, list filters, headers).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface Problem {
  status: number;
  code: string;
  detail: string;
  in?: string;
  errors?: { pointer: string; detail: string; in: string }[];
}

for (const dialect of dialects) {
  describe(`v2 validation problems (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let projectId: number;
    let imageId: number;
    let imageHash: string;

    before(async () => {
      t = await startTestApp(dialect);
      projectId = await newProject(t.ctx, { title: 'problems', classes: [{ title: 'car', shape: 'rectangle' }] });
      const image = await newImage(t.ctx, await newDataset(t.ctx, projectId));
      imageId = image.id;
      imageHash = image.hash;
    });
    after(async () => {
      await t?.close();
    });

    async function problemOf(request: InjectOptions): Promise<Problem> {
      const res = await t.request(request);
      assert.equal(res.statusCode, 400, `${request.method} ${request.url}: ${res.body}`);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const problem = json<Problem>(res);
      assert.equal(problem.code, 'VALIDATION');
      assert.ok(problem.errors && problem.errors.length > 0, `errors in ${res.body}`);
      for (const error of problem.errors) assert.equal(typeof error.detail, 'string');
      return problem;
    }

    const where = (problem: Problem) => problem.errors!.map((e) => [e.in, e.pointer]);

    test('the schema’s checks: body, query string, path and headers', async () => {
      assert.deepEqual(where(await problemOf({ method: 'POST', url: '/v2/projects', payload: { title: 3 } })), [['body', '/title']]);
      assert.deepEqual(where(await problemOf({ method: 'GET', url: '/v2/projects?limit=0' })), [['querystring', '/limit']]);
      assert.deepEqual(where(await problemOf({ method: 'GET', url: '/v2/projects/abc' })), [['params', '/id']]);
      assert.deepEqual(
        where(await problemOf({ method: 'POST', url: '/v2/projects', payload: { title: 'x' }, headers: { 'idempotency-key': '' } })),
        [['headers', '/idempotency-key']],
      );
      const problem = await problemOf({ method: 'POST', url: '/v2/projects', payload: { title: 3 } });
      assert.equal(problem.in, 'body', 'the part of the first error, beside the errors');
    });

    test('a body that is no JSON points at the whole body', async () => {
      const problem = await problemOf({ method: 'POST', url: '/v2/projects', payload: '{"title": ', headers: { 'content-type': 'application/json' } });
      assert.deepEqual(where(problem), [['body', '']]);
    });

    test('the annotation’s content, checked after the schema', async () => {
      const url = `/v2/images/${imageId}/annotation`;
      const car = (exterior: number[][]) => ({ classTitle: 'car', points: { exterior, interior: [] } });
      assert.deepEqual(where(await problemOf({ method: 'PUT', url, payload: { description: '', tags: [], objects: [car([[1, 1], [2, 2]]), car([[1, 1]])] } })), [
        ['body', '/objects/1/points/exterior'],
      ]);
      assert.deepEqual(where(await problemOf({ method: 'PUT', url, payload: { description: '', tags: [{ name: 'nope' }], objects: [] } })), [['body', '/tags/0']]);
      assert.deepEqual(where(await problemOf({ method: 'PATCH', url, payload: { remove: [99] } })), [['body', '/remove/0']]);
    });

    test('import paths and layout, checked after the schema', async () => {
      const post = (files: unknown[], preset = 0) =>
        problemOf({ method: 'POST', url: '/v2/imports', payload: { project: { id: null, title: 'new' }, preset, files } });
      assert.deepEqual(where(await post([{ path: 'ds/a.png', hash: imageHash }, { path: '../b.png', hash: imageHash }])), [['body', '/files/1/path']]);
      assert.deepEqual(where(await post([{ path: 'ds/a.png', hash: 'not a hash' }])), [['body', '/files/0/hash']]);
      // A Supervisely project without its meta.json: about the list as a whole.
      const noMeta = await post([{ path: 'ds/img/a.png', hash: imageHash }], 1);
      assert.match(noMeta.detail, /no meta\.json/);
      assert.deepEqual(where(noMeta), [['body', '/files']]);
      // Two images of one name in one dataset: the second.
      assert.deepEqual(where(await post([{ path: 'ds/a.png', hash: imageHash }, { path: 'ds/img/a.png', hash: imageHash }], 2)), [['body', '/files/1/path']]);
    });

    test('export options and list filters, checked after the schema', async () => {
      assert.deepEqual(where(await problemOf({ method: 'POST', url: '/v2/exports', payload: { projectId, format: 'coco', options: { segmentation: true } } })), [
        ['body', '/options/segmentation'],
      ]);
      assert.deepEqual(where(await problemOf({ method: 'GET', url: `/v2/images?projectId=${projectId}&datasetId=1` })), [['querystring', '/datasetId']]);
    });

    test('a text/plain body to a JSON route is a 415, as another type is, on v1 and v2', async () => {
      for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/xml']) {
        const v2 = await t.request({ method: 'POST', url: '/v2/projects', payload: '{"title": "t"}', headers: { 'content-type': type } });
        assert.equal(v2.statusCode, 415, `${type}: ${v2.body}`);
        assert.equal(json<Problem>(v2).code, 'UNSUPPORTED_MEDIA_TYPE');
        const v1 = await t.request({ method: 'POST', url: `/v1/projects/${projectId}/tags`, payload: '{"type": "images", "title": "t"}', headers: { 'content-type': type } });
        assert.equal(v1.statusCode, 415, `${type}: ${v1.body}`);
        assert.equal(json<{ error: string }>(v1).error, 'UNSUPPORTED_MEDIA_TYPE');
      }
    });

    test('a multipart body without a boundary points at its Content-Type', async () => {
      const problem = await problemOf({ method: 'POST', url: '/v2/imports/files', payload: 'x', headers: { 'content-type': 'multipart/form-data' } });
      assert.deepEqual(where(problem), [['headers', '/content-type']]);
    });
  });
}
