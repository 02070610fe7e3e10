// The request log: one JSON line per request with its id, the key's prefix (never the key), the
// route pattern, the status and the duration; x-request-id taken from the caller when acceptable and
// echoed on every answer, errors and 404s included.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { keyPrefix } from '../../src/services/keys.service.ts';
import { type CapturedLog, type LogLine, captureLog } from '../helpers/captured-log.ts';
import { dialects } from '../helpers/dialects.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const sqlite = dialects.find((d) => d.name === 'sqlite')!;

describe('request log', () => {
  let t: TestApp;
  let log: CapturedLog;
  before(async () => {
    log = captureLog();
    t = await startTestApp(sqlite, {}, { logger: log.logger });
  });
  after(async () => t?.close());

  const requestLines = (): LogLine[] => log.lines.filter((line) => line.msg === 'request');

  test('one line per request, with its id, method, route pattern, path, status, duration and key prefix', async () => {
    log.clear();
    const created = await t.request({ method: 'POST', url: '/v2/projects?secret=hush', payload: { title: 'logged' } });
    assert.equal(created.statusCode, 201, created.body);
    const projectId = json<{ id: number }>(created).id;
    const read = await t.request({ method: 'GET', url: `/v2/projects/${projectId}`, key: null, headers: { authorization: `Bearer ${t.key}` } });
    assert.equal(read.statusCode, 200);

    const lines = requestLines();
    assert.equal(lines.length, 2, JSON.stringify(log.lines));
    const [post, get] = lines as [LogLine, LogLine];
    assert.equal(post.reqId, created.headers['x-request-id']);
    assert.equal(get.reqId, read.headers['x-request-id']);
    assert.notEqual(post.reqId, get.reqId);
    assert.deepEqual(
      { method: post.method, route: post.route, path: post.path, status: post.status, keyPrefix: post.keyPrefix },
      { method: 'POST', route: '/v2/projects', path: '/v2/projects', status: 201, keyPrefix: keyPrefix(t.key) },
    );
    assert.deepEqual({ route: get.route, path: get.path, status: get.status }, { route: '/v2/projects/:id', path: `/v2/projects/${projectId}`, status: 200 });
    for (const line of lines) assert.ok(typeof line.durationMs === 'number' && line.durationMs >= 0, JSON.stringify(line));
    // Fastify's own two lines a request are gone.
    assert.equal(log.lines.filter((line) => line.msg === 'incoming request' || line.msg === 'request completed').length, 0);
  });

  test('an acceptable x-request-id is used and echoed; any other is replaced', async () => {
    log.clear();
    const given = await t.request({ method: 'GET', url: '/v2/me', headers: { 'x-request-id': 'trace-42/abc' } });
    assert.equal(given.headers['x-request-id'], 'trace-42/abc');
    const tooLong = await t.request({ method: 'GET', url: '/v2/me', headers: { 'x-request-id': 'x'.repeat(129) } });
    const spaced = await t.request({ method: 'GET', url: '/v2/me', headers: { 'x-request-id': 'has a space' } });
    for (const res of [tooLong, spaced]) {
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    }
    assert.deepEqual(
      requestLines().map((line) => line.reqId),
      [given, tooLong, spaced].map((res) => res.headers['x-request-id']),
    );
  });

  test('errors and 404s carry the request id too, and are logged with their status', async () => {
    log.clear();
    const answers = [
      await t.request({ method: 'GET', url: '/v2/me', key: null, headers: { 'x-request-id': 'no-key' } }),
      await t.request({ method: 'GET', url: '/v2/nowhere', headers: { 'x-request-id': 'no-route' } }),
      await t.request({ method: 'GET', url: '/nowhere-at-all', key: null, headers: { 'x-request-id': 'no-route-outside' } }),
      await t.request({ method: 'POST', url: '/v2/projects', payload: { title: 7 }, headers: { 'x-request-id': 'invalid' } }),
      await t.request({ method: 'GET', url: '/v1/projects/%E0%A4%A', headers: { 'x-request-id': 'bad-url' } }),
    ];
    assert.deepEqual(
      answers.map((res) => [res.statusCode, res.headers['x-request-id']]),
      [
        [401, 'no-key'],
        [404, 'no-route'],
        [404, 'no-route-outside'],
        [400, 'invalid'],
        [400, 'bad-url'],
      ],
    );
    const byId = new Map(requestLines().map((line) => [line.reqId, line]));
    assert.equal(byId.get('no-key')?.status, 401);
    assert.equal(byId.get('no-key')?.keyPrefix, undefined);
    assert.equal(byId.get('no-route')?.route, null);
    assert.equal(byId.get('no-route')?.status, 404);
    assert.equal(byId.get('invalid')?.status, 400);
    assert.equal(byId.get('invalid')?.keyPrefix, keyPrefix(t.key));
    // Answered by the router itself, before any hook: logged all the same.
    assert.deepEqual({ route: byId.get('bad-url')?.route, status: byId.get('bad-url')?.status, path: byId.get('bad-url')?.path }, { route: null, status: 400, path: '/v1/projects/%E0%A4%A' });
    assert.equal(requestLines().length, answers.length);
  });

  test('no line ever holds a key, an Authorization header or a cookie', async () => {
    log.clear();
    const signIn = await t.request({ method: 'POST', url: '/v2/session', key: null, payload: { key: t.key } });
    assert.equal(signIn.statusCode, 201, signIn.body);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    await t.request({ method: 'GET', url: '/v2/me', key: null, headers: { cookie } });
    await t.request({ method: 'GET', url: '/v2/me', key: null, headers: { authorization: `Bearer ${t.adminKey}` } });
    await t.request({ method: 'GET', url: '/v2/me', key: t.readOnlyKey });
    await t.request({ method: 'POST', url: '/v2/projects', key: t.readOnlyKey, payload: { title: 'refused' } });
    assert.ok(requestLines().length >= 5);
    const text = log.lines.map((line) => JSON.stringify(line)).join('\n');
    for (const secret of [t.key, t.adminKey, t.readOnlyKey, cookie.split('=')[1]!]) assert.ok(!text.includes(secret), 'a secret was logged');
    assert.ok(!/authorization|x-api-key|cookie/i.test(text), 'a credential header was logged');
  });
});
