// `X-Content-Type-Options: nosniff` on every kind of answer: the web app and its assets, the API
// reference, JSON of both versions, errors, 404s, a URL the router cannot read, a request Node cannot
// parse, and a task's event stream. Model weights and export archives are checked where their
// downloads are (v2-models, exports).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { dialects } from '../helpers/dialects.ts';
import { connect, listeningPort, parseAnswer, requestHead, write } from '../helpers/raw-http.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';
import { waitFor } from '../helpers/wait.ts';

describe('nosniff on every answer', () => {
  let t: TestApp;
  before(async () => (t = await startTestApp(dialects[0]!)));
  after(async () => t?.close());

  test('pages, assets, documents, JSON, errors and 404s', async () => {
    const cases: { url: string; status: number; key?: null; method?: 'GET' | 'POST' }[] = [
      { url: '/', status: 200, key: null },
      { url: '/assets/app.js', status: 200, key: null },
      { url: '/assets/nothing.js', status: 404, key: null },
      { url: '/docs/', status: 200, key: null },
      { url: '/docs/static/swagger-ui.css', status: 200, key: null },
      { url: '/openapi.json', status: 200, key: null },
      { url: '/v2/openapi.json', status: 200, key: null },
      { url: '/healthz', status: 200, key: null },
      { url: '/v2/projects', status: 200 },
      { url: '/v1/projects', status: 200 },
      { url: '/v2/projects', status: 401, key: null },
      { url: '/v1/projects', status: 401, key: null },
      { url: '/v2/projects/abc', status: 400 },
      { url: '/v2/projects/999999', status: 404 },
      { url: '/no/such/route', status: 404 },
      { url: '/v2/projects/%E0%A4%A', status: 400 },
      { url: '/v2/projects', status: 415, method: 'POST' },
    ];
    for (const { url, status, key, method } of cases) {
      const res = await t.request({ method: method ?? 'GET', url, ...(key === null ? { key: null } : {}), ...(method === 'POST' ? { headers: { 'content-type': 'text/x-nothing' }, payload: 'x' } : {}) });
      assert.equal(res.statusCode, status, `${url}: ${res.body.slice(0, 200)}`);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
    }
  });

  test('over a real connection: a request Node cannot parse, and a task’s event stream', async () => {
    const port = await listeningPort(t.app);
    const broken = connect(port);
    await write(broken.socket, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n');
    const refused = parseAnswer(await broken.answer);
    assert.equal(refused?.status, 400);
    assert.equal(refused?.headers['x-content-type-options'], 'nosniff');

    const teamId = await ensureTeam(t.ctx.db.kysely, 'alpha');
    const id = await tasks.createTask(t.ctx.db.kysely, { teamId, userId: null, type: 'probe', size: 0, meta: {}, input: {} });
    const stream = connect(port);
    let received = '';
    stream.socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    await write(stream.socket, requestHead('GET', `/v2/tasks/${id}/events`, { 'x-api-key': t.key, accept: 'text/event-stream' }));
    await waitFor('the first event', () => received.includes('event: progress'));
    stream.socket.destroy();
    assert.match(received.slice(0, received.indexOf('\r\n\r\n')), /^x-content-type-options: nosniff$/im);
  });
});
