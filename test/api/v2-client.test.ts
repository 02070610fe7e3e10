// The typed client against a listening server: a v2 create whose answer was lost is retried under its
// Idempotency-Key and creates one resource; v2's problem details reach the caller as ApiError.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { AnnostoreClient, ApiError } from '../../src/client/index.ts';
import { dialects } from '../helpers/dialects.ts';
import { newProject } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

for (const dialect of dialects) {
  describe(`the typed client on API v2, on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let url: string;
    let projectId: number;
    before(async () => {
      t = await startTestApp(dialect);
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      projectId = await newProject(t.ctx, { title: 'p', classes: [{ title: 'car', shape: 'rectangle' }] });
    });
    after(async () => t?.close());

    test('a create whose answer is lost is sent again with the same Idempotency-Key and makes one task', async () => {
      const keysSent: (string | null)[] = [];
      let dropped = false;
      const losingFetch: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if ((init?.method ?? 'GET') !== 'POST') return response;
        keysSent.push(new Headers(init?.headers).get('idempotency-key'));
        if (dropped) return response;
        dropped = true;
        await response.arrayBuffer();
        throw new TypeError('fetch failed: the connection was reset');
      };
      const client = new AnnostoreClient({ url, key: t.key, fetch: losingFetch, retries: { retries: 2, baseDelayMs: 1, maxDelayMs: 5 } });
      const before = json<{ id: number }[]>(await t.request({ method: 'GET', url: '/v1/tasks' })).length;
      const answer = await client.startExport({ projectId, format: 'coco' });
      assert.equal(keysSent.length, 2, 'sent twice');
      assert.ok(keysSent[0], 'with a key');
      assert.equal(keysSent[0], keysSent[1], 'the same key both times');
      const tasks = json<{ id: number }[]>(await t.request({ method: 'GET', url: '/v1/tasks' }));
      assert.equal(tasks.length, before + 1, 'one export task');
      assert.ok(tasks.some((task) => task.id === answer.task.id));
    });

    test('problem details reach the caller as ApiError with the code and detail', async () => {
      const client = new AnnostoreClient({ url, key: t.key, retries: 0 });
      await assert.rejects(client.startExport({ projectId: 2_000_000, format: 'coco' }), (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.code, 'NOT_FOUND');
        assert.equal(error.status, 404);
        assert.match(error.message, /not found/);
        return true;
      });
    });
  });
}
