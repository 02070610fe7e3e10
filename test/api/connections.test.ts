// What a connection may cost the server (src/http/connections.ts), over real sockets on loopback with
// the timeouts set low: slow heads and stalled bodies are cut, a slow upload that keeps moving is not,
// nor a server busy with its answer or a quiet event stream; an answer given before the body arrived
// closes the connection; past the connection limit a slow client makes way, or the newcomer is refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ConnectionSettings, loadConfig } from '../../src/config.ts';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { dialects } from '../helpers/dialects.ts';
import { type RawConnection, connect, listeningPort, parseAnswer, requestHead, write } from '../helpers/raw-http.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';
import { waitFor } from '../helpers/wait.ts';

const sqlite = dialects[0]!;

/** Resolves true once the connection is closed, false if it is still open after `ms`. */
async function closedWithin(connection: RawConnection, ms: number): Promise<boolean> {
  return Promise.race([connection.answer.then(() => true), sleep(ms).then(() => false)]);
}

/** Writes one byte every `everyMs` until `stop` says so or the connection is closed. */
async function dribble(connection: RawConnection, everyMs: number, stop: () => boolean = () => false): Promise<number> {
  let sent = 0;
  while (!stop() && !connection.socket.destroyed && sent < 10_000) {
    await write(connection.socket, 'x').catch(() => undefined);
    sent += 1;
    await sleep(everyMs);
  }
  return sent;
}

/** A plain request on a connection of its own, answered in full. */
async function healthz(port: number): Promise<number | undefined> {
  const connection = connect(port);
  await write(connection.socket, requestHead('GET', '/healthz', { connection: 'close' }));
  return parseAnswer(await connection.answer)?.status;
}

interface SlowRoute {
  method: string;
  url: string;
  ms: number;
  /** How many requests of the route the server is working on. */
  busy?: number;
}

async function startWith(settings: Partial<ConnectionSettings>, slowRoute?: SlowRoute): Promise<{ t: TestApp; port: number }> {
  const defaults = loadConfig({}).connections;
  const t = await startTestApp(sqlite, { connections: { ...defaults, ...settings } }, {
    onRoute: (route) => {
      if (!slowRoute || route.method !== slowRoute.method || route.url !== slowRoute.url) return;
      const handler = route.handler;
      // A server busy with the answer (a long query, a slow store) while its client waits in silence.
      route.handler = async function (this: unknown, request, reply) {
        slowRoute.busy = (slowRoute.busy ?? 0) + 1;
        await sleep(slowRoute.ms);
        slowRoute.busy -= 1;
        return handler.call(this as never, request, reply);
      } as typeof route.handler;
    },
  });
  return { t, port: await listeningPort(t.app) };
}

describe('timeouts of a connection', () => {
  // Long beside the pauses the tests make (50 to 100 ms), so that a loaded machine's stall does not pass for idleness.
  const IDLE_MS = 1000;
  let t: TestApp;
  let port: number;
  before(async () => ({ t, port } = await startWith({ headersTimeoutMs: 600, idleTimeoutMs: IDLE_MS, keepAliveTimeoutMs: 500 }, { method: 'GET', url: '/v2/projects', ms: 4 * IDLE_MS })));
  after(async () => t?.close());

  test('a head sent a byte at a time is cut after the headers timeout, though bytes keep coming', async () => {
    const connection = connect(port);
    const started = Date.now();
    await write(connection.socket, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    // A byte every 50 ms keeps the idle timer from ever running out: only the headers deadline can end it.
    void dribble(connection, 50);
    assert.ok(await closedWithin(connection, 5000), 'the connection is closed');
    const answer = await connection.answer;
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 600 && elapsed < 5000, `closed after ${elapsed} ms`);
    assert.equal(parseAnswer(answer)?.status, 400, answer);
  });

  test('a body that stops coming is cut after the idle timeout; other requests are answered meanwhile', async () => {
    const started = Date.now();
    const stalled = [connect(port), connect(port), connect(port)];
    for (const connection of stalled) {
      await write(connection.socket, requestHead('POST', '/v2/projects', { 'x-api-key': t.key, 'content-type': 'application/json', 'content-length': 1000 }));
      await write(connection.socket, '{"title": "sl');
    }
    assert.equal(await healthz(port), 200);
    for (const connection of stalled) assert.ok(await closedWithin(connection, 5000), 'the connection is closed');
    const answers = await Promise.all(stalled.map((connection) => connection.answer));
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= IDLE_MS && elapsed < 4 * IDLE_MS + 5000, `closed after ${elapsed} ms`);
    // Nothing was answered: the request never arrived whole.
    assert.deepEqual(answers, ['', '', '']);
  });

  test('a slow upload that keeps moving is never cut, however long it takes', async () => {
    const title = 'slow but steady';
    const body = JSON.stringify({ title });
    const connection = connect(port);
    await write(connection.socket, requestHead('POST', '/v2/projects', { 'x-api-key': t.key, 'content-type': 'application/json', 'content-length': body.length, connection: 'close' }));
    const started = Date.now();
    // One byte every tenth of the idle timeout: about three idle timeouts in all.
    for (const byte of body) {
      assert.ok(!connection.socket.destroyed, 'the connection is still open');
      await write(connection.socket, byte);
      await sleep(IDLE_MS / 10);
    }
    const answer = parseAnswer(await connection.answer);
    assert.ok(Date.now() - started > 2 * IDLE_MS);
    assert.equal(answer?.status, 201, answer?.body);
    assert.equal(JSON.parse(answer.body).title, title);
  });

  test('a client waiting in silence while the server works on its answer gets the answer', async () => {
    const connection = connect(port);
    await write(connection.socket, requestHead('GET', '/v2/projects', { 'x-api-key': t.key, connection: 'close' }));
    const answer = parseAnswer(await connection.answer);
    assert.equal(answer?.status, 200, answer?.body);
  });

  test('an answer given before the body has arrived (a 401) closes the connection instead of reading the rest', async () => {
    const connection = connect(port);
    await write(connection.socket, requestHead('POST', '/v2/projects', { 'content-type': 'application/json', 'content-length': 1_000_000 }));
    // Faster than the idle timeout: only the early answer's close can end this.
    let stop = false;
    void dribble(connection, 20, () => stop);
    const closed = await closedWithin(connection, 4 * IDLE_MS);
    stop = true;
    assert.ok(closed, 'the connection is closed');
    const answer = parseAnswer(await connection.answer);
    assert.equal(answer?.status, 401);
    assert.equal(answer?.headers.connection, 'close');
  });

  test('a connection with no request in progress is closed after the keep-alive timeout', async () => {
    const connection = connect(port);
    let received = '';
    connection.socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    await write(connection.socket, requestHead('GET', '/healthz', {}));
    await waitFor('the answer', () => parseAnswer(received)?.body);
    const started = Date.now();
    assert.ok(await closedWithin(connection, 5000), 'the connection is closed');
    const answer = await connection.answer;
    const elapsed = Date.now() - started;
    assert.equal(parseAnswer(answer)?.status, 200);
    // Node closes it a second after the keep-alive timeout it announced.
    assert.ok(elapsed >= 500 && elapsed < 6500, `closed after ${elapsed} ms`);
  });

  test('a client that stops reading a large answer is cut after the idle timeout', async () => {
    const architecture = await t.request({ method: 'POST', url: '/v2/architectures', key: t.adminKey, payload: { title: 'idle reader' } });
    const model = await t.request({ method: 'POST', url: '/v2/models', payload: { title: 'idle reader', architectureId: JSON.parse(architecture.body).id } });
    const id = JSON.parse(model.body).id as number;
    // Far more than the socket buffers of both ends of a loopback connection hold.
    const weights = Buffer.alloc(64 * 1024 * 1024, 7);
    const put = await t.request({ method: 'PUT', url: `/v2/models/${id}/weights`, headers: { 'content-type': 'application/octet-stream' }, payload: weights });
    assert.equal(put.statusCode, 200, put.body);
    const connection = connect(port);
    let received = 0;
    connection.socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      // The first bytes are read, then nothing more.
      connection.socket.pause();
    });
    await write(connection.socket, requestHead('GET', `/v2/models/${id}/weights`, { 'x-api-key': t.key }));
    const openConnections = () => new Promise<number>((resolve) => t.app.server.getConnections((_error, n) => resolve(n)));
    await waitFor('the answer under way', () => received > 0);
    await waitFor('the connection closed by the server', async () => (await openConnections()) === 0, 10_000);
    assert.ok(received < weights.length, `${received} bytes read`);
    connection.socket.destroy();
  });

  test('a task’s event stream, quiet for several idle timeouts, stays open and ends with the task', async () => {
    const teamId = await ensureTeam(t.ctx.db.kysely, 'alpha');
    const id = await tasks.createTask(t.ctx.db.kysely, { teamId, userId: null, type: 'probe', size: 0, meta: {}, input: {} });
    const connection = connect(port);
    let received = '';
    connection.socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    await write(connection.socket, requestHead('GET', `/v2/tasks/${id}/events`, { 'x-api-key': t.key, accept: 'text/event-stream' }));
    await waitFor('the first event', () => received.includes('event: progress'));
    assert.equal(await closedWithin(connection, 4 * IDLE_MS), false, 'the stream is still open');
    await t.ctx.db.kysely.updateTable('tasks').set({ status: 'started', lease_owner: 'test', lease_expires_at: '2999-01-01T00:00:00.000Z' }).where('id', '=', id).execute();
    await tasks.finishTask(t.ctx.db.kysely, { id, owner: 'test', status: 'finished', meta: {} });
    await waitFor('the final event', () => received.includes('event: final'), 10_000);
  });
});

describe('the connection limit', () => {
  const MAX = 6;
  const slow: SlowRoute = { method: 'GET', url: '/v2/projects', ms: 1500 };
  let t: TestApp;
  let port: number;
  before(async () => ({ t, port } = await startWith({ maxConnections: MAX, idleTimeoutMs: 10_000, headersTimeoutMs: 10_000 }, slow)));
  after(async () => t?.close());

  test('past it, the slowest of a flood of slow bodies makes way and the new client is answered', async () => {
    const flood = Array.from({ length: MAX }, () => connect(port));
    let stop = false;
    for (const connection of flood) {
      await write(connection.socket, requestHead('POST', '/v2/projects', { 'x-api-key': t.key, 'content-type': 'application/json', 'content-length': 100_000 }));
      void dribble(connection, 100, () => stop);
    }
    await waitFor('every slow body under way', async () => (await new Promise<number>((resolve) => t.app.server.getConnections((_e, n) => resolve(n)))) === MAX);
    try {
      for (let round = 0; round < 3; round += 1) assert.equal(await healthz(port), 200);
      const closed = await waitFor('a slow connection closed', () => {
        const gone = flood.filter((connection) => connection.socket.destroyed);
        return gone.length > 0 && gone;
      });
      // One made way for each new client, no more.
      assert.ok(closed.length <= 3, `${closed.length} slow connections closed`);
    } finally {
      stop = true;
      for (const connection of flood) connection.socket.destroy();
    }
  });

  test('past it, with every connection being answered, a new one is refused and the others are served', async () => {
    await waitFor('the earlier connections gone', async () => (await new Promise<number>((resolve) => t.app.server.getConnections((_e, n) => resolve(n)))) === 0);
    const busy = Array.from({ length: MAX }, () => connect(port));
    for (const connection of busy) await write(connection.socket, requestHead('GET', '/v2/projects', { 'x-api-key': t.key, connection: 'close' }));
    await waitFor('the server working on every request', () => slow.busy === MAX);
    const refused = connect(port);
    assert.ok(await closedWithin(refused, 1000), 'the new connection is closed at once');
    assert.equal(await refused.answer, '');
    const answers = await Promise.all(busy.map(async (connection) => parseAnswer(await connection.answer)?.status));
    assert.deepEqual(answers, new Array(MAX).fill(200));
    assert.equal(await healthz(port), 200);
  });
});
