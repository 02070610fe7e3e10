// The client's retry policy against a local server: 5xx and 429 are tried again with a bounded backoff,
// 4xx never; errors carry the contract's code, message and status.
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import type net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { AnnostoreClient, ApiError, ConnectionError } from '../../src/client/index.ts';
import { backoffMs } from '../../src/client/retry.ts';
import { freePort } from '../helpers/server-process.ts';

type Script = { status: number; body: unknown; headers?: Record<string, string> }[];

describe('client retries', () => {
  let server: http.Server;
  let url: string;
  let script: Script = [];
  let seen: { method: string; url: string; key: string | undefined; body: string }[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, key: req.headers['x-api-key'] as string | undefined, body });
        const next = script.shift() ?? { status: 200, body: [] };
        res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
        res.end(JSON.stringify(next.body));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const fresh = (s: Script) => {
    script = s;
    seen = [];
    return new AnnostoreClient({ url, key: 'ak_test', retries: { retries: 3, baseDelayMs: 5, maxDelayMs: 20 } });
  };
  const unavailable = { status: 503, body: { error: 'INTERNAL', details: { message: 'try later' } } };

  test('503 twice, then 200: three requests and the answer', async () => {
    const client = fresh([unavailable, unavailable, { status: 200, body: [{ id: 1, title: 'p' }] }]);
    const projects = await client.listProjects({ projectId: 1 });
    assert.deepEqual(projects, [{ id: 1, title: 'p' }]);
    assert.equal(seen.length, 3);
    assert.deepEqual(seen.map((s) => s.url), Array(3).fill('/v1/projects?projectId=1'));
    assert.ok(seen.every((s) => s.key === 'ak_test'));
  });

  test('400 is not retried and becomes an ApiError with the contract’s code, message and status', async () => {
    const client = fresh([{ status: 400, body: { error: 'VALIDATION', details: { message: 'perPage must be at most 1000', field: 'perPage' } } }]);
    const error = await client.listAnnotations({ projectId: 1, perPage: 5000 }).catch((e: unknown) => e);
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 'VALIDATION');
    assert.equal(error.message, 'perPage must be at most 1000');
    assert.equal(error.status, 400);
    assert.equal(error.details.field, 'perPage');
    assert.equal(seen.length, 1);
  });

  test('401 and 404 are not retried either', async () => {
    const client = fresh([{ status: 401, body: { error: 'UNAUTHORIZED', details: { message: 'unknown key' } } }]);
    await assert.rejects(client.listTasks(), (e: unknown) => e instanceof ApiError && e.status === 401 && e.isAuthError);
    assert.equal(seen.length, 1);
    fresh([{ status: 404, body: { error: 'NOT_FOUND', details: { message: 'project not found' } } }]);
    await assert.rejects(client.deleteProject(9), (e: unknown) => e instanceof ApiError && e.code === 'NOT_FOUND');
    assert.equal(seen.length, 1);
  });

  test('429 is retried; the retries are bounded and the last error is thrown', async () => {
    const limited = { status: 429, body: { error: 'RATE_LIMITED', details: { message: 'slow down' } }, headers: { 'retry-after': '0' } };
    const client = fresh([limited, { status: 200, body: [] }]);
    assert.deepEqual(await client.listDatasets(), []);
    assert.equal(seen.length, 2);
    fresh([unavailable, unavailable, unavailable, unavailable, unavailable]);
    await assert.rejects(client.listModels(), (e: unknown) => e instanceof ApiError && e.status === 503 && e.message === 'try later');
    assert.equal(seen.length, 4, 'the first attempt and 3 retries');
  });

  test('a request that must not run twice is not repeated after a 500, but is after a 503', async () => {
    const client = fresh([{ status: 500, body: { error: 'INTERNAL', details: { message: 'internal error' } } }]);
    await assert.rejects(client.startImport({ project: { id: null, title: 't' }, preset: 1, files: [{ hash: 'h', path: 'p' }] }), ApiError);
    assert.equal(seen.length, 1);
    fresh([unavailable, { status: 200, body: { taskId: 7 } }]);
    assert.deepEqual(await client.startImport({ project: { id: null, title: 't' }, preset: 1, files: [{ hash: 'h', path: 'p' }] }), { taskId: 7 });
    assert.equal(seen.length, 2);
    assert.deepEqual(JSON.parse(seen[1]!.body), { project: { id: null, title: 't' }, preset: 1, files: [{ hash: 'h', path: 'p' }] });
  });

  test('a refused connection is retried, then reported as a ConnectionError', async () => {
    const port = await freePort();
    let retries = 0;
    const client = new AnnostoreClient({
      url: `http://127.0.0.1:${port}`,
      key: 'k',
      retries: { retries: 2, baseDelayMs: 1, maxDelayMs: 5 },
      onRetry: () => (retries += 1),
    });
    const error = await client.listProjects().catch((e: unknown) => e);
    assert.ok(error instanceof ConnectionError, String(error));
    assert.match(error.message, /ECONNREFUSED/);
    assert.equal(retries, 2);
  });

  test('integer arrays go as repeated keys', async () => {
    const client = fresh([{ status: 200, body: [] }]);
    await client.listAnnotations({ projectId: 3, datasetIds: [1, 2], page: 2 });
    assert.equal(seen[0]!.url, '/v1/annotations?projectId=3&datasetIds=1&datasetIds=2&page=2');
  });
});

test('backoff: doubles from the base, never above the maximum, jittered below the ceiling', () => {
  const policy = { retries: 10, baseDelayMs: 100, maxDelayMs: 1000 };
  assert.equal(backoffMs(policy, 0, undefined, () => 1), 100);
  assert.equal(backoffMs(policy, 2, undefined, () => 1), 400);
  assert.equal(backoffMs(policy, 8, undefined, () => 1), 1000);
  assert.equal(backoffMs(policy, 3, undefined, () => 0), 0);
  assert.equal(backoffMs(policy, 3, undefined, () => 0.5), 400);
  assert.equal(backoffMs(policy, 0, 0.5, () => 0), 500, 'Retry-After asks for longer');
  assert.equal(backoffMs(policy, 0, 60, () => 0), 1000, 'bounded even so');
});
