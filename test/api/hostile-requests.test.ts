// Every registered route, each given the same set of hostile inputs: ids that are not ids, numbers too
// large, query strings and bodies of the wrong kind, bodies that are not what their Content-Type says,
// cut short, over-long or holding invalid UTF-8 or NUL. Whatever the route, the answer is below 500,
// an error answer has the contract's body, and the server logs no failure.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions, RouteOptions } from 'fastify';
import { type CapturedLog, captureLog } from '../helpers/captured-log.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag } from '../helpers/factories.ts';
import { multipartBody } from '../helpers/multipart.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const CATALOGUE = new Set(['VALIDATION', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'GONE', 'PRECONDITION_FAILED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'RANGE_NOT_SATISFIABLE', 'IDEMPOTENCY_KEY_REUSED', 'RATE_LIMITED']);

interface Route {
  method: string;
  url: string;
}

/** Values put in place of every path parameter. */
const HOSTILE_PARAMS = ['0', '-1', '1.5', 'abc', '1e3', '0x10', '%201', '99999999999999999999', '%00', '%ff', '%', '1'.repeat(201)];

/** Query strings given to every route (unknown members included: a route ignores what it does not read). */
const HOSTILE_QUERIES = [
  'projectId=99999999999999999999&page=1e400&perPage=-1&id=abc&imageId=1.5&datasetId=0&type=nope&datasetIds=1,,x&unknown=1',
  `imageTitle=${'x'.repeat(5000)}&datasetId=1&id=${new Array(2000).fill(1).join(',')}`,
  'imageTitle=%00&datasetId=1&type=images%00&projectId=%00',
  'projectId=%ff%fe&id=%E0%A4%A&page=%',
  'projectId[]=1&projectId[]=2&imageId=1&imageId=2&type=images&type=figures',
  'imageId=1&imageTitle=both.png&datasetId=1&page=0&perPage=1001',
];

interface Body {
  what: string;
  headers?: Record<string, string>;
  payload?: string | Buffer;
}

function hostileBodies(): Body[] {
  const json = (what: string, payload: string | Buffer): Body => ({ what, headers: { 'content-type': 'application/json' }, payload });
  const form = multipartBody([{ key: 'a', metadata: { id: 'a.png', type: 'image', format: 'images' }, content: Buffer.alloc(3000, 1) }]);
  const formType = form.headers['content-type']!;
  return [
    { what: 'no body' },
    json('an empty JSON body', ''),
    ...['null', '"text"', '[]', '{}', '42', 'true', '[null]', '[{}]', '{"project": null}'].map((text) => json(`JSON ${text}`, text)),
    json('malformed JSON', '{"type": "images", '),
    json('JSON with invalid UTF-8', Buffer.concat([Buffer.from('{"type": "images", "title": "'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('", "value": "x"}')])),
    json('JSON with NUL in every string', '{"type": "images", "title": "\\u0000", "value": "\\u0000", "hotkey": "\\u0000"}'),
    json('JSON with a lone surrogate', '{"type": "images", "title": "\\ud800", "value": "\\udfff"}'),
    json('JSON with huge numbers', '{"id": 1e400, "preset": 1e400, "project": {"id": 99999999999999999999}, "datasetsIds": [1e400], "files": []}'),
    json('JSON with over-long strings', JSON.stringify({ type: 'images', title: 'x'.repeat(10_000), value: 'x'.repeat(200_000), hotkey: 'x'.repeat(1000) })),
    json('JSON nested very deep', `${'['.repeat(50_000)}${']'.repeat(50_000)}`),
    json('JSON with __proto__', '{"__proto__": {"admin": true}, "constructor": {"prototype": {}}}'),
    json('JSON larger than the body limit', `[${'"x",'.repeat(300_000)}"x"]`),
    { what: 'JSON in UTF-16', headers: { 'content-type': 'application/json; charset=utf-16' }, payload: Buffer.from('{"type":"images"}', 'utf16le') },
    { what: 'gzip that is not gzip', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, payload: '{}' },
    { what: 'text/plain', headers: { 'content-type': 'text/plain' }, payload: 'hello' },
    { what: 'XML', headers: { 'content-type': 'application/xml' }, payload: '<a/>' },
    { what: 'a body without a Content-Type', payload: '{"type": "images"}' },
    { what: 'a Content-Type that is not a media type', headers: { 'content-type': ';;;=' }, payload: '{}' },
    { what: 'a form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=1&b=%ff' },
    { what: 'multipart', headers: form.headers, payload: form.payload },
    { what: 'multipart cut short', headers: form.headers, payload: form.payload.subarray(0, form.payload.length - 100) },
    { what: 'multipart without a boundary', headers: { 'content-type': 'multipart/form-data' }, payload: form.payload },
    { what: 'multipart with an empty boundary', headers: { 'content-type': 'multipart/form-data; boundary=' }, payload: form.payload },
    { what: 'multipart with a quoted boundary left open', headers: { 'content-type': `${formType.replace('boundary=', 'boundary="')}` }, payload: form.payload },
    { what: 'multipart with an over-long boundary', headers: { 'content-type': `multipart/form-data; boundary=${'b'.repeat(300)}` }, payload: form.payload },
    { what: 'multipart of another kind', headers: { 'content-type': formType.replace('form-data', 'mixed') }, payload: form.payload },
  ];
}

/** Routes whose answer to a valid request is an event stream that stays open. */
const ENDLESS_STREAMS = new Set(['/v2/tasks/events', '/v2/tasks/:id/events']);

/** Keys given with a valid request: none, empty, over-long, and not ASCII. */
const HOSTILE_KEYS = ['', 'x'.repeat(10_000), '\u00ff'.repeat(40), 'ak_'];

for (const dialect of dialects) {
  describe(`hostile requests to every route, on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let log: CapturedLog;
    const routes: Route[] = [];
    /** A query naming real things, so a hostile body reaches the code behind each route. */
    let validQuery: string;
    let validParams: Record<string, number>;

    before(async () => {
      log = captureLog();
      const onRoute = (route: RouteOptions) => {
        // A stream that stays open while a task runs or waits (a route of the sweep queues one) never
        // answers whole: their refusals are tested in v2-tasks.test.ts and v2-task-stream.test.ts.
        if (ENDLESS_STREAMS.has(route.url)) return;
        for (const method of [route.method].flat()) routes.push({ method, url: route.url });
      };
      t = await startTestApp(dialect, {}, { logger: log.logger, onRoute });
      const projectId = await newProject(t.ctx, { title: 'target' });
      const datasetId = await newDataset(t.ctx, projectId);
      const image = await newImage(t.ctx, datasetId, { name: 'target.png' });
      await newTag(t.ctx, projectId, { title: 'target' });
      validQuery = `projectId=${projectId}&datasetId=${datasetId}&imageId=${image.id}&type=images`;
      validParams = { projectId, datasetId, id: projectId };
      // A delete first would leave the other routes nothing to work on.
      routes.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
    });
    after(async () => t?.close());

    const withParams = (url: string, value: (name: string) => string) =>
      url.replace(/:(\w+)/g, (_match, name: string) => value(name)).replace(/\*$/, value('*'));

    /** Sends one request and checks what came back and what the server logged. */
    async function check(options: InjectOptions & { key?: string | null }, what: string): Promise<void> {
      log.clear();
      const res = await t.request(options);
      const label = `${options.method} ${String(options.url).slice(0, 120)} with ${what}`;
      assert.ok(res.statusCode < 500, `${label}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      // A HEAD answer carries no body, by HTTP's rule.
      if (res.statusCode >= 400 && options.method !== 'HEAD') {
        let body: { error?: unknown; details?: { message?: unknown }; code?: unknown; detail?: unknown; status?: unknown };
        try {
          body = JSON.parse(res.body) as typeof body;
        } catch {
          assert.fail(`${label}: ${res.statusCode} without a JSON body: ${res.body.slice(0, 300)}`);
        }
        if (String(options.url).startsWith('/v2')) {
          // v2 answers problem details (docs/api-v2.md).
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/, label);
          assert.ok(CATALOGUE.has(String(body.code)), `${label}: ${res.body.slice(0, 300)}`);
          assert.equal(body.status, res.statusCode, label);
          assert.equal(typeof body.detail, 'string', `${label}: ${res.body.slice(0, 300)}`);
        } else {
          assert.ok(CATALOGUE.has(String(body.error)), `${label}: ${res.body.slice(0, 300)}`);
          assert.equal(typeof body.details?.message, 'string', `${label}: ${res.body.slice(0, 300)}`);
        }
      }
      assert.deepEqual(log.failures(), [], label);
    }

    test('the app registers its routes, and the sweep sees every /v1 route of the contract', () => {
      const seen = new Set(routes.map((route) => `${route.method} ${route.url}`));
      for (const expected of ['POST /v1/tasks/import/files', 'DELETE /v1/projects/:projectId', 'PUT /v1/projects/:projectId/tags/:id', 'GET /v1/annotations']) {
        assert.ok(seen.has(expected), expected);
      }
    });

    test('path parameters that are not ids', async () => {
      for (const route of routes.filter((r) => r.url.includes(':') || r.url.endsWith('*'))) {
        for (const value of HOSTILE_PARAMS) {
          await check({ method: route.method as InjectOptions['method'], url: `${withParams(route.url, () => value)}?${validQuery}` }, `parameter ${value.slice(0, 20)}`);
        }
      }
    });

    test('query strings of the wrong kind', async () => {
      for (const route of routes) {
        for (const query of HOSTILE_QUERIES) {
          await check({ method: route.method as InjectOptions['method'], url: `${withParams(route.url, (name) => String(validParams[name] ?? 1))}?${query}` }, `query ${query.slice(0, 60)}`);
        }
      }
    });

    test('bodies of the wrong kind, cut short, over-long, or not what their Content-Type says', async () => {
      const bodies = hostileBodies();
      for (const route of routes) {
        for (const body of bodies) {
          await check(
            {
              method: route.method as InjectOptions['method'],
              url: `${withParams(route.url, (name) => String(validParams[name] ?? 1))}?${validQuery}`,
              ...(body.headers ? { headers: body.headers } : {}),
              ...(body.payload === undefined ? {} : { payload: body.payload }),
            },
            body.what,
          );
        }
      }
    });

    test('API keys that are missing, over-long or not ASCII', async () => {
      for (const route of routes.filter((r) => r.url.startsWith('/v1'))) {
        for (const key of HOSTILE_KEYS) {
          await check({ method: route.method as InjectOptions['method'], url: `${withParams(route.url, (name) => String(validParams[name] ?? 1))}?${validQuery}`, key }, `key ${key.slice(0, 10)}`);
        }
      }
    });
  });
}
