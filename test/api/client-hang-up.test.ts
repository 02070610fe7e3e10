// A write whose client hangs up before the answer is sent still happens (the handler runs to its
// end and commits), so it must still be audited, logged and counted: on both databases.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { captureLog } from '../helpers/captured-log.ts';
import { dialects } from '../helpers/dialects.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { waitFor } from '../helpers/wait.ts';

/** How long the slowed DELETE takes: the client is gone well before it answers. */
const SLOW_WRITE_MS = 200;

/** Sends a request and destroys the socket as soon as it is written, without reading any answer. */
function hangUp(port: number, path: string, method: string, headers: Record<string, string>): Promise<void> {
  return new Promise<void>((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers });
    req.on('error', () => resolve());
    req.end(() =>
      setImmediate(() => {
        req.destroy();
        resolve();
      }),
    );
  });
}

for (const dialect of dialects) {
  describe(`a client that hangs up on a write, on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    const log = captureLog();
    before(async () => {
      t = await startTestApp(dialect, {}, {
        logger: log.logger,
        onRoute: (route) => {
          if (route.method !== 'DELETE' || route.url !== '/v2/projects/:id') return;
          const handler = route.handler;
          // A slow write (a large project, a busy database).
          route.handler = async function (this: unknown, request, reply) {
            await new Promise((resolve) => setTimeout(resolve, SLOW_WRITE_MS));
            return handler.call(this as never, request, reply);
          } as typeof route.handler;
        },
      });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => t?.close());

    test('the write happens and is in the audit trail and the request log, with the status the server decided', async () => {
      const created = await t.request({ method: 'POST', url: '/v2/projects', payload: { title: 'left behind' } });
      assert.equal(created.statusCode, 201, created.body);
      const id = json<{ id: number }>(created).id;
      const port = (t.app.server.address() as AddressInfo).port;
      await hangUp(port, `/v2/projects/${id}`, 'DELETE', { 'x-api-key': t.adminKey, 'x-request-id': `hang-up-${dialect.name}` });

      await waitFor('the project is deleted', async () => (await t.request({ method: 'GET', url: `/v2/projects/${id}` })).statusCode === 404);
      await waitFor('the request is logged', () => log.lines.some((line) => line.reqId === `hang-up-${dialect.name}` && line.msg === 'request'));
      const line = log.lines.find((entry) => entry.reqId === `hang-up-${dialect.name}` && entry.msg === 'request')!;
      assert.equal(line.status, 204);
      assert.equal(line.clientLeft, true);

      await t.app.auditTrail.settled();
      const page = json<{ items: { requestId: string; route: string; status: number }[] }>(await t.request({ method: 'GET', url: '/v2/audit?limit=1000', key: t.adminKey }));
      const row = page.items.find((item) => item.requestId === `hang-up-${dialect.name}`);
      assert.ok(row, 'the DELETE is in the audit trail');
      assert.equal(row.route, '/v2/projects/:id');
      assert.equal(row.status, 204);
    });

    test('a write answered in full is recorded once, not twice', async () => {
      const res = await t.request({ method: 'POST', url: '/v2/projects', payload: { title: 'kept' }, headers: { 'x-request-id': `whole-${dialect.name}` } });
      assert.equal(res.statusCode, 201, res.body);
      await t.app.auditTrail.settled();
      const page = json<{ items: { requestId: string }[] }>(await t.request({ method: 'GET', url: '/v2/audit?limit=1000', key: t.adminKey }));
      assert.equal(page.items.filter((item) => item.requestId === `whole-${dialect.name}`).length, 1);
      assert.equal(log.lines.filter((line) => line.reqId === `whole-${dialect.name}` && line.msg === 'request').length, 1);
    });
  });
}
