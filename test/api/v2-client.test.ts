// The typed client against a listening server: a v2 create whose answer was lost is retried under its
// Idempotency-Key and creates one resource; v2's problem details reach the caller as ApiError.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { AnnostoreClient, ApiError } from '../../src/client/index.ts';
import { dialects } from '../helpers/dialects.ts';
import sharp from 'sharp';
import { newProject } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
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

    test('the v2 groups: create, read with an ETag, change on a condition, page through every item', async () => {
      const client = new AnnostoreClient({ url, key: t.key, retries: 0 });
      const me = await client.v2.me();
      assert.equal(me.team.name, 'alpha');
      const created = await client.v2.projects.create({ title: 'client tour' });
      assert.equal(created.value.title, 'client tour');
      assert.match(created.etag, /^".+"$/);
      const read = await client.v2.projects.get(created.value.id);
      assert.deepEqual(read.value, created.value);
      assert.equal(read.etag, created.etag);
      const renamed = await client.v2.projects.change(created.value.id, { title: 'client tour 2' }, { ifMatch: read.etag });
      assert.equal(renamed.value.title, 'client tour 2');
      await assert.rejects(client.v2.projects.change(created.value.id, { title: 'lost' }, { ifMatch: read.etag }), (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.status, 412);
        assert.equal(error.code, 'PRECONDITION_FAILED');
        return true;
      });
      for (let i = 0; i < 5; i += 1) await client.v2.datasets.create(created.value.id, { title: `d${i}` });
      const titles: string[] = [];
      for await (const dataset of client.v2.datasets.all({ projectId: created.value.id, limit: 2 })) titles.push(dataset.title);
      assert.deepEqual(titles, ['d0', 'd1', 'd2', 'd3', 'd4']);
      const first = await client.v2.datasets.list({ projectId: created.value.id, limit: 2, count: true });
      assert.equal(first.items.length, 2);
      assert.equal(first.total, 5);
      await client.v2.projects.remove(created.value.id, { ifMatch: renamed.etag });
      await assert.rejects(client.v2.projects.get(created.value.id), (error: unknown) => error instanceof ApiError && error.status === 404);
    });

    test('images, their bytes and their annotations through the client', async () => {
      const client = new AnnostoreClient({ url, key: t.key, retries: 0 });
      const dataset = await client.v2.datasets.create(projectId, { title: 'client images' });
      const bytes = await picture(64, 48, { seed: 5 });
      const [image] = await client.v2.images.upload(dataset.value.id, [{ name: 'a.png', content: bytes }]);
      assert.equal(image!.name, 'a.png');
      assert.deepEqual([image!.width, image!.height], [64, 48]);
      assert.ok((await client.v2.images.file(image!.id)).equals(bytes));
      assert.ok((await client.v2.images.file(image!.id, { start: 1, end: 10 })).equals(bytes.subarray(1, 11)));
      assert.equal((await sharp(await client.v2.images.thumbnail(image!.id)).metadata()).format, 'webp');
      const listed = await client.v2.images.list({ datasetId: dataset.value.id });
      assert.deepEqual(listed.items.map((item) => item.id), [image!.id]);

      const empty = await client.v2.annotations.get(image!.id);
      assert.deepEqual(empty.value.objects, []);
      const box = { classTitle: 'car', points: { exterior: [[1, 2], [30, 20]] as [number, number][] } };
      const added = await client.v2.annotations.patch(image!.id, { add: [box, box] }, { ifMatch: empty.etag });
      assert.deepEqual(added.value.objects.map((o) => o.id), [1, 2]);
      const removed = await client.v2.annotations.patch(image!.id, { remove: [1] }, { ifMatch: added.etag });
      assert.deepEqual(removed.value.objects.map((o) => o.id), [2], 'the other object keeps its id');
      await assert.rejects(client.v2.annotations.put(image!.id, { objects: [] }, { ifMatch: added.etag }), (error: unknown) => error instanceof ApiError && error.status === 412);
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
