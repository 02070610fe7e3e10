// The OpenAPI document declares what the server does. Which routes honour Idempotency-Key is the
// predicate the idempotency hooks use; which answer 304 is found by asking each GET again with its
// ETag. Neither is a list kept by hand.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RouteOptions } from 'fastify';
import { honoursIdempotencyKey } from '../../src/http/v2/idempotency.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface Operation {
  parameters?: { in: string; name: string; required?: boolean }[];
  responses?: Record<string, unknown>;
}

/** A route's path as the OpenAPI document writes it. */
const docPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

for (const dialect of dialects) {
  describe(`the v2 OpenAPI document against the server (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let paths: Record<string, Record<string, Operation>>;
    const routes: { method: string; url: string; config: unknown }[] = [];

    before(async () => {
      const onRoute = (route: RouteOptions) => {
        for (const method of [route.method].flat()) if (route.url.startsWith('/v2/')) routes.push({ method, url: route.url, config: route.config });
      };
      t = await startTestApp(dialect, {}, { onRoute });
      paths = json<{ paths: typeof paths }>(await t.request({ method: 'GET', url: '/v2/openapi.json' })).paths;
    });
    after(async () => t?.close());

    const operation = (method: string, url: string): Operation => {
      const op = paths[docPath(url)]?.[method.toLowerCase()];
      assert.ok(op, `${method} ${url} is in the document`);
      return op;
    };
    const declaresHeader = (op: Operation, name: string) => (op.parameters ?? []).some((p) => p.in === 'header' && p.name === name);

    test('Idempotency-Key is declared on exactly the POSTs that honour it', () => {
      const posts = routes.filter((r) => r.method === 'POST');
      assert.ok(posts.length >= 15, `${posts.length} POST routes`);
      for (const route of posts) {
        const honoured = honoursIdempotencyKey(route.method, route.config as { public?: boolean });
        assert.equal(declaresHeader(operation(route.method, route.url), 'idempotency-key'), honoured, `${route.method} ${route.url}`);
      }
      assert.equal(honoursIdempotencyKey('POST', routes.find((r) => r.url === '/v2/session' && r.method === 'POST')!.config as { public?: boolean }), false, 'signing in is not kept');
    });

    test('a POST that declares it honours it: the same key answers the first answer again', async () => {
      const send = () => t.request({ method: 'POST', url: '/v2/imports/hash-check', payload: { hashes: [] }, headers: { 'idempotency-key': 'hash-check-once' } });
      const first = await send();
      const again = await send();
      assert.equal(again.statusCode, first.statusCode);
      assert.equal(again.headers['idempotent-replayed'], 'true');
    });

    test('304 is declared on exactly the GETs that answer it', async () => {
      const projectId = await newProject(t.ctx, { title: 'documented', classes: [{ title: 'car', shape: 'rectangle' }] });
      const datasetId = await newDataset(t.ctx, projectId);
      const image = await newImage(t.ctx, datasetId, { bytes: await picture(40, 30) });
      const admin = { key: t.adminKey };
      const post = async (url: string, payload: object) => {
        const res = await t.request({ method: 'POST', url, payload, ...admin });
        assert.ok(res.statusCode < 300, `${url}: ${res.body}`);
        return json<Record<string, unknown>>(res);
      };
      const classId = (await post(`/v2/projects/${projectId}/classes`, { title: 'bus', shape: 'polygon', color: '#00FF00' })).id as number;
      const tagId = (await post(`/v2/projects/${projectId}/tags`, { title: 'sunny', scope: 'images' })).id as number;
      const exportId = ((await post('/v2/exports', { projectId, format: 'coco' })).task as { id: number }).id;
      const architectureId = (await post('/v2/architectures', { title: 'yolo' })).id as number;
      const modelId = (await post('/v2/models', { title: 'detector', architectureId })).id as number;
      const keyId = (json<{ key: { id: number } }>(await t.request({ method: 'GET', url: '/v2/me', ...admin })).key.id);
      const ids: [RegExp, number][] = [
        [/^\/v2\/projects\//, projectId],
        [/^\/v2\/datasets\//, datasetId],
        [/^\/v2\/classes\//, classId],
        [/^\/v2\/tags\//, tagId],
        [/^\/v2\/images\//, image.id],
        [/^\/v2\/(exports|tasks)\//, exportId],
        [/^\/v2\/architectures\//, architectureId],
        [/^\/v2\/models\//, modelId],
        [/^\/v2\/keys\//, keyId],
      ];
      // The segment tool's bytes are asked for by the model's name.
      const model = json<{ model: string }>(await t.request({ method: 'GET', url: '/v2/segment/model', ...admin })).model;
      const queries: [RegExp, string][] = [[/\/segment\/decoder$|\/embedding$/, `?model=${model}`]];
      const answered304: string[] = [];
      for (const route of routes.filter((r) => r.method === 'GET')) {
        // A stream does not end: it has no ETag to ask again with.
        if (route.url.endsWith('/events') || route.url.includes('/webhooks/')) continue;
        // Routes the document leaves out (the document itself) promise nothing.
        if (!paths[docPath(route.url)]?.get) continue;
        const id = ids.find(([prefix]) => prefix.test(route.url))?.[1];
        if (route.url.includes(':') && id === undefined) continue;
        const url = route.url.replace(/:(\w+)/g, String(id)) + (queries.find(([pattern]) => pattern.test(route.url))?.[1] ?? '');
        const first = await t.request({ method: 'GET', url, ...admin });
        const etag = first.headers.etag;
        const declared = '304' in (operation('GET', route.url).responses ?? {});
        if (first.statusCode !== 200 || typeof etag !== 'string') {
          assert.equal(declared, false, `GET ${route.url} declares 304 but answered ${first.statusCode} without an ETag`);
          continue;
        }
        const again = await t.request({ method: 'GET', url, headers: { 'if-none-match': etag }, ...admin });
        assert.equal(declared, again.statusCode === 304, `GET ${route.url}: declares 304 ${declared}, answered ${again.statusCode}`);
        if (again.statusCode === 304) answered304.push(route.url);
      }
      assert.ok(answered304.length >= 13, answered304.join(' '));
    });

    test('the thumbnail’s size is optional, as the route takes it', async () => {
      const size = operation('GET', '/v2/images/:id/thumbnail').parameters?.find((p) => p.in === 'query' && p.name === 'size');
      assert.ok(size);
      assert.notEqual(size.required, true);
      const image = await newImage(t.ctx, await newDataset(t.ctx, await newProject(t.ctx, { title: 'thumbs' })), { bytes: await picture(300, 200) });
      const res = await t.request({ method: 'GET', url: `/v2/images/${image.id}/thumbnail` });
      assert.equal(res.statusCode, 200);
    });
  });
}
