// /v2/architectures and /v2/models with their weights through the real app on both databases, with the
// local and the S3 store: a weights file goes up and comes back byte for byte.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { weightsKey } from '../../src/storage/archive-store.ts';
import { dialects } from '../helpers/dialects.ts';
import { connect, listeningPort, requestHead, write } from '../helpers/raw-http.ts';
import { type StoreSetup, storeCases } from '../helpers/s3.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { waitFor } from '../helpers/wait.ts';

interface Architecture {
  id: number;
  title: string;
  description: string;
  categoryId: number;
}

interface Model {
  id: number;
  title: string;
  architectureId: number;
  createdAt: string;
  updatedAt: string;
  path: { bucket: string; objectName: string };
}

interface Page<T> {
  items: T[];
  nextCursor: string | null;
  total?: number;
}

/** A limit small enough to cross in a test, large enough for the files it sends. */
const WEIGHTS_LIMIT = 2 * 1024 * 1024;

for (const dialect of dialects) {
  for (const store of storeCases) describe(`API v2 models on ${dialect.name} with the ${store.name} store`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let storage: StoreSetup;
    let alpha: number;
    let architecture: Architecture;
    before(async () => {
      storage = await store.setup();
      const defaults = loadConfig({}, {}).limits;
      t = await startTestApp(dialect, { ...storage.overrides, limits: { ...defaults, uploadFileBytes: WEIGHTS_LIMIT } });
      alpha = await ensureTeam(t.ctx.db.kysely, 'alpha');
      const res = await t.request({ method: 'POST', url: '/v2/architectures', key: t.adminKey, payload: { title: 'UNet', description: 'segmentation', categoryId: 3 } });
      assert.equal(res.statusCode, 201, res.body);
      architecture = json<Architecture>(res);
    });
    after(async () => {
      await t?.close();
      await storage?.cleanup();
    });

    const newModel = async (title: string, key = t.key) => {
      const res = await t.request({ method: 'POST', url: '/v2/models', key, payload: { title, architectureId: architecture.id } });
      assert.equal(res.statusCode, 201, res.body);
      return json<Model>(res);
    };
    const putWeights = (id: number, bytes: Buffer, key = t.key) =>
      t.request({ method: 'PUT', url: `/v2/models/${id}/weights`, key, headers: { 'content-type': 'application/octet-stream' }, payload: bytes });

    test('architectures: admins add and remove them, everybody reads them; one in use cannot go', async () => {
      assert.deepEqual({ title: architecture.title, description: architecture.description, categoryId: architecture.categoryId }, { title: 'UNet', description: 'segmentation', categoryId: 3 });
      assert.equal((await t.request({ method: 'POST', url: '/v2/architectures', payload: { title: 'by a write key' } })).statusCode, 403);
      const got = await t.request({ method: 'GET', url: `/v2/architectures/${architecture.id}`, key: t.otherKey });
      assert.equal(got.statusCode, 200);
      assert.deepEqual(json(got), architecture);
      const list = json<Page<Architecture>>(await t.request({ method: 'GET', url: '/v2/architectures?count=true', key: t.readOnlyKey }));
      assert.ok(list.items.some((a) => a.id === architecture.id));
      assert.equal(list.total, list.items.length);

      const spare = json<Architecture>(await t.request({ method: 'POST', url: '/v2/architectures', key: t.adminKey, payload: { title: 'spare' } }));
      const model = await newModel('uses UNet');
      const inUse = await t.request({ method: 'DELETE', url: `/v2/architectures/${architecture.id}`, key: t.adminKey });
      assert.equal(inUse.statusCode, 409);
      assert.equal(json<{ code: string }>(inUse).code, 'CONFLICT');
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/architectures/${spare.id}` })).statusCode, 403);
      const stale = await t.request({ method: 'DELETE', url: `/v2/architectures/${spare.id}`, key: t.adminKey, headers: { 'if-match': '"an older version"' } });
      assert.equal(stale.statusCode, 412, stale.body);
      const spareTag = String((await t.request({ method: 'GET', url: `/v2/architectures/${spare.id}` })).headers.etag);
      assert.equal(json<{ etag: string }>(stale).etag, spareTag);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/architectures/${spare.id}`, key: t.adminKey, headers: { 'if-match': spareTag } })).statusCode, 204);
      assert.equal((await t.request({ method: 'GET', url: `/v2/architectures/${spare.id}` })).statusCode, 404);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/architectures/${spare.id}`, key: t.adminKey })).statusCode, 404);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/models/${model.id}` })).statusCode, 204);
    });

    test('a model: created with its path, listed by v1 as v2 shows it, paged, renamed under If-Match', async () => {
      const model = await newModel('detector');
      assert.deepEqual(model.path, { bucket: t.ctx.archives.bucket, objectName: t.ctx.archives.objectName(weightsKey(alpha, model.id)) });
      assert.equal(model.architectureId, architecture.id);
      const [v1] = json<Model[]>(await t.request({ method: 'GET', url: `/v1/models?id=${model.id}` }));
      assert.deepEqual(v1, model);

      const more = [await newModel('second'), await newModel('third')];
      const first = json<Page<Model>>(await t.request({ method: 'GET', url: '/v2/models?limit=2&count=true' }));
      assert.equal(first.items.length, 2);
      const rest = json<Page<Model>>(await t.request({ method: 'GET', url: `/v2/models?limit=2&cursor=${first.nextCursor}` }));
      assert.deepEqual([...first.items, ...rest.items].map((m) => m.id), [model.id, ...more.map((m) => m.id)]);
      assert.equal(first.total, 3);
      assert.equal(rest.nextCursor, null);
      assert.deepEqual(json<Page<Model>>(await t.request({ method: 'GET', url: '/v2/models', key: t.otherKey })).items, []);

      const read = await t.request({ method: 'GET', url: `/v2/models/${model.id}` });
      const etag = String(read.headers.etag);
      assert.ok(etag.startsWith('"'));
      const renamed = await t.request({ method: 'PATCH', url: `/v2/models/${model.id}`, headers: { 'if-match': etag }, payload: { title: 'detector v2' } });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.equal(json<Model>(renamed).title, 'detector v2');
      assert.notEqual(renamed.headers.etag, etag);
      const stale = await t.request({ method: 'PATCH', url: `/v2/models/${model.id}`, headers: { 'if-match': etag }, payload: { title: 'lost update' } });
      assert.equal(stale.statusCode, 412);
      assert.equal(json<{ code: string }>(stale).code, 'PRECONDITION_FAILED');
      assert.equal(json<Model>(await t.request({ method: 'GET', url: `/v2/models/${model.id}` })).title, 'detector v2');
      assert.equal((await t.request({ method: 'PATCH', url: `/v2/models/${model.id}`, payload: { title: '' } })).statusCode, 400);
      const unknown = await t.request({ method: 'POST', url: '/v2/models', payload: { title: 'x', architectureId: 999_999 } });
      assert.equal(unknown.statusCode, 400);
      const staleDelete = await t.request({ method: 'DELETE', url: `/v2/models/${model.id}`, headers: { 'if-match': etag } });
      assert.equal(staleDelete.statusCode, 412);
      const current = String((await t.request({ method: 'GET', url: `/v2/models/${model.id}` })).headers.etag);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/models/${model.id}`, headers: { 'if-match': current } })).statusCode, 204);
      for (const m of more) assert.equal((await t.request({ method: 'DELETE', url: `/v2/models/${m.id}` })).statusCode, 204);
    });

    test('weights: uploaded and downloaded byte for byte, whole and by range; over the limit is a 413 that keeps the earlier weights', async () => {
      const model = await newModel('weighted');
      assert.equal((await t.request({ method: 'GET', url: `/v2/models/${model.id}/weights` })).statusCode, 404);
      const bytes = randomBytes(1024 * 1024 + 17);
      const put = await putWeights(model.id, bytes);
      assert.equal(put.statusCode, 200, put.body);
      assert.deepEqual(json(put), { size: bytes.length });

      const whole = await t.request({ method: 'GET', url: `/v2/models/${model.id}/weights` });
      assert.equal(whole.statusCode, 200);
      assert.equal(whole.headers['content-type'], 'application/octet-stream');
      assert.equal(whole.headers['x-content-type-options'], 'nosniff', 'no browser takes the bytes for a page or a script');
      assert.equal(Number(whole.headers['content-length']), bytes.length);
      assert.ok(whole.rawPayload.equals(bytes), 'the same bytes come back');
      const part = await t.request({ method: 'GET', url: `/v2/models/${model.id}/weights`, headers: { range: 'bytes=1000-1999' } });
      assert.equal(part.statusCode, 206);
      assert.equal(part.headers['content-range'], `bytes 1000-1999/${bytes.length}`);
      assert.ok(part.rawPayload.equals(bytes.subarray(1000, 2000)));
      const past = await t.request({ method: 'GET', url: `/v2/models/${model.id}/weights`, headers: { range: `bytes=${bytes.length}-` } });
      assert.equal(past.statusCode, 416);

      // If-Match names the weights as GET tagged them: a stale tag is a 412 that keeps them.
      const stale = await t.request({ method: 'PUT', url: `/v2/models/${model.id}/weights`, headers: { 'content-type': 'application/octet-stream', 'if-match': '"an older version"' }, payload: randomBytes(100) });
      assert.equal(stale.statusCode, 412, stale.body);
      assert.equal(json<{ etag: string }>(stale).etag, whole.headers.etag);
      assert.ok((await t.request({ method: 'GET', url: `/v2/models/${model.id}/weights` })).rawPayload.equals(bytes), 'the weights are kept');
      const current = await t.request({ method: 'PUT', url: `/v2/models/${model.id}/weights`, headers: { 'content-type': 'application/octet-stream', 'if-match': String(whole.headers.etag) }, payload: bytes });
      assert.equal(current.statusCode, 200, current.body);

      // Replaced whole, or not at all.
      const smaller = randomBytes(4096);
      assert.equal((await putWeights(model.id, smaller)).statusCode, 200);
      const tooLarge = await putWeights(model.id, randomBytes(WEIGHTS_LIMIT + 1));
      assert.equal(tooLarge.statusCode, 413, tooLarge.body);
      assert.match(String(tooLarge.headers['content-type']), /^application\/problem\+json/);
      // Without a Content-Length the limit is found while the bytes stream in.
      const chunked = await t.request({
        method: 'PUT',
        url: `/v2/models/${model.id}/weights`,
        headers: { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
        payload: Readable.from([randomBytes(WEIGHTS_LIMIT / 2), randomBytes(WEIGHTS_LIMIT / 2), randomBytes(WEIGHTS_LIMIT / 2)]),
      });
      assert.equal(chunked.statusCode, 413, chunked.body);
      assert.ok((await t.request({ method: 'GET', url: `/v2/models/${model.id}/weights` })).rawPayload.equals(smaller));

      assert.equal((await putWeights(model.id, smaller, t.readOnlyKey)).statusCode, 403);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/models/${model.id}` })).statusCode, 204);
      assert.equal(await t.ctx.archives.stat(weightsKey(alpha, model.id)), null, 'the weights went with the model');
      assert.equal((await t.request({ method: 'GET', url: `/v2/models/${model.id}/weights` })).statusCode, 404);
    });

    test('weights: a client gone mid-upload publishes nothing and leaves no temporary file', async () => {
      const model = await newModel('cut short');
      const earlier = randomBytes(5000);
      assert.equal((await putWeights(model.id, earlier)).statusCode, 200);
      const { socket, answer } = connect(await listeningPort(t.app));
      await write(socket, requestHead('PUT', `/v2/models/${model.id}/weights`, { 'x-api-key': t.key, 'content-type': 'application/octet-stream', 'content-length': 100_000 }));
      await write(socket, randomBytes(30_000));
      const temps = path.join(t.config.dataDir, 'blobs', 'tmp');
      const unfinished = () => (fs.existsSync(temps) ? fs.readdirSync(temps).filter((name) => name.includes('models_')) : []);
      if (store.name === 'fs') await waitFor('the upload to begin', () => unfinished().length > 0);
      socket.destroy();
      await answer;
      await waitFor('the unfinished upload to be removed', () => unfinished().length === 0);
      // Nothing published, and the model takes a new upload at once.
      const still = await t.request({ method: 'GET', url: `/v2/models/${model.id}/weights` });
      assert.ok(still.rawPayload.equals(earlier));
      const next = randomBytes(7000);
      assert.equal((await putWeights(model.id, next)).statusCode, 200);
      assert.ok((await t.request({ method: 'GET', url: `/v2/models/${model.id}/weights` })).rawPayload.equals(next));
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/models/${model.id}` })).statusCode, 204);
    });

    test('another team’s model is a 404 on every route, exactly like a missing one', async () => {
      const model = await newModel('private');
      assert.equal((await putWeights(model.id, Buffer.from('secret weights'))).statusCode, 200);
      const routes: [string, string, unknown?][] = [
        ['GET', `/v2/models/${model.id}`],
        ['PATCH', `/v2/models/${model.id}`, { title: 'stolen' }],
        ['DELETE', `/v2/models/${model.id}`],
        ['GET', `/v2/models/${model.id}/weights`],
      ];
      for (const [method, url, payload] of routes) {
        const theirs = await t.request({ method: method as 'GET', url, key: t.otherKey, ...(payload ? { payload } : {}) });
        const missing = await t.request({ method: method as 'GET', url: url.replace(String(model.id), '999999'), key: t.otherKey, ...(payload ? { payload } : {}) });
        assert.equal(theirs.statusCode, 404, `${method} ${url}`);
        const shape = (body: { type: string; title: string; status: number; code: string; detail: string }) => [body.type, body.title, body.status, body.code, body.detail];
        assert.deepEqual(shape(json(theirs)), shape(json(missing)));
      }
      assert.equal((await putWeights(model.id, Buffer.from('overwritten'), t.otherKey)).statusCode, 404);
      const mine = await t.request({ method: 'GET', url: `/v2/models/${model.id}/weights` });
      assert.equal(mine.rawPayload.toString(), 'secret weights');
      assert.equal(json<Model>(await t.request({ method: 'GET', url: `/v2/models/${model.id}` })).title, 'private');
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/models/${model.id}` })).statusCode, 204);
    });
  });
}
