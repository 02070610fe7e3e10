// GET /v2/images/:id/file and /thumbnail: the bytes as uploaded, ranges, caching, thumbnails made
// once, the thumbnails task after an import, and tenancy. On both dialects, on the local and the S3
// blob store.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import sharp from 'sharp';
import { thumbhashOf } from '../../src/repositories/thumbnails.repository.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { type ProjectFile, uploadProject, waitForTask } from '../helpers/importing.ts';
import { picture } from '../helpers/pictures.ts';
import { type StoreSetup, storeCases } from '../helpers/s3.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { waitFor } from '../helpers/wait.ts';

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

for (const dialect of dialects) {
  for (const store of storeCases) describe(`v2 image files on ${dialect.name} with the ${store.name} store`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let storage: StoreSetup;
    let runner: TaskRunner;
    let datasetId: number;
    let bytes: Buffer;
    let image: { id: number; hash: string; size: number };
    before(async () => {
      storage = await store.setup();
      t = await startTestApp(dialect, storage.overrides);
      runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
      datasetId = await newDataset(t.ctx, await newProject(t.ctx, { title: 'files' }));
      bytes = await picture(900, 600, { seed: 1 });
      image = await newImage(t.ctx, datasetId, { bytes, width: 900, height: 600 });
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
      await storage?.cleanup();
    });

    const get = (url: string, headers: Record<string, string> = {}, key?: string) => t.request({ method: 'GET', url, headers, ...(key ? { key } : {}) });
    const thumbnailCount = async () => Number((await t.ctx.db.kysely.selectFrom('thumbnails').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

    test('the file is the uploaded bytes, with its type, a strong tag and a year of caching', async () => {
      const res = await get(`/v2/images/${image.id}/file`);
      assert.equal(res.statusCode, 200);
      assert.ok(res.rawPayload.equals(bytes));
      assert.equal(res.headers['content-type'], 'image/png');
      assert.equal(res.headers['content-length'], String(bytes.length));
      assert.equal(res.headers.etag, `"${image.hash}"`);
      assert.equal(res.headers['accept-ranges'], 'bytes');
      assert.equal(res.headers['cache-control'], 'private, max-age=31536000, immutable');
    });

    test('a Range asks for a slice: 206 with Content-Range; If-Range of another tag gets it all', async () => {
      const res = await get(`/v2/images/${image.id}/file`, { range: 'bytes=100-1099' });
      assert.equal(res.statusCode, 206);
      assert.ok(res.rawPayload.equals(bytes.subarray(100, 1100)));
      assert.equal(res.headers['content-range'], `bytes 100-1099/${bytes.length}`);
      const suffix = await get(`/v2/images/${image.id}/file`, { range: 'bytes=-10' });
      assert.ok(suffix.rawPayload.equals(bytes.subarray(bytes.length - 10)));
      const current = await get(`/v2/images/${image.id}/file`, { range: 'bytes=0-9', 'if-range': `"${image.hash}"` });
      assert.equal(current.statusCode, 206);
      const stale = await get(`/v2/images/${image.id}/file`, { range: 'bytes=0-9', 'if-range': '"another"' });
      assert.equal(stale.statusCode, 200);
      assert.ok(stale.rawPayload.equals(bytes));
    });

    test('a range past the end is 416 with Content-Range: bytes */size', async () => {
      const res = await get(`/v2/images/${image.id}/file`, { range: `bytes=${bytes.length}-` });
      assert.equal(res.statusCode, 416);
      assert.equal(res.headers['content-range'], `bytes */${bytes.length}`);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(json<{ code: string }>(res).code, 'RANGE_NOT_SATISFIABLE');
    });

    test('If-None-Match with the tag is 304 without a body, for the file and the thumbnail', async () => {
      const res = await get(`/v2/images/${image.id}/file`, { 'if-none-match': `"x", "${image.hash}"` });
      assert.equal(res.statusCode, 304);
      assert.equal(res.rawPayload.length, 0);
      assert.equal(res.headers.etag, `"${image.hash}"`);
      const thumbnail = await get(`/v2/images/${image.id}/thumbnail`);
      const again = await get(`/v2/images/${image.id}/thumbnail`, { 'if-none-match': thumbnail.headers.etag as string });
      assert.equal(again.statusCode, 304);
      assert.equal((await get(`/v2/images/${image.id}/file`, { 'if-none-match': '"other"' })).statusCode, 200);
    });

    test('a thumbnail is a WebP fitted inside its size, made once', async () => {
      const fresh = await newImage(t.ctx, datasetId, { bytes: await picture(700, 1400, { seed: 2 }) });
      const rowsBefore = await thumbnailCount();
      const rendersBefore = t.ctx.thumbnails.rendered;
      const first = await get(`/v2/images/${fresh.id}/thumbnail?size=1024`);
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.headers['content-type'], 'image/webp');
      assert.equal(first.headers['cache-control'], 'private, max-age=31536000, immutable');
      const meta = await sharp(first.rawPayload).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 512, 1024]);
      const second = await get(`/v2/images/${fresh.id}/thumbnail?size=1024`);
      assert.ok(second.rawPayload.equals(first.rawPayload));
      assert.equal(second.headers.etag, first.headers.etag);
      assert.equal(t.ctx.thumbnails.rendered, rendersBefore + 1, 'sharp ran once');
      assert.equal(await thumbnailCount(), rowsBefore + 1);

      const thumbhashBefore = JSON.parse((await get(`/v2/images/${fresh.id}`)).body) as { thumbhash: string | null };
      assert.equal(thumbhashBefore.thumbhash, null, 'no thumbhash before the 256 px thumbnail');
      const small = await get(`/v2/images/${fresh.id}/thumbnail`);
      assert.deepEqual(await sharp(small.rawPayload).metadata().then((m) => [m.width, m.height]), [128, 256]);
      const metadata = JSON.parse((await get(`/v2/images/${fresh.id}`)).body) as { thumbhash: string | null };
      assert.equal(metadata.thumbhash, await thumbhashOf(t.ctx.db.kysely, fresh.hash), 'the image metadata carries its thumbhash');
      assert.ok(metadata.thumbhash && Buffer.from(metadata.thumbhash, 'base64').length > 5);
    });

    test('concurrent first requests for a thumbnail share one sharp run', async () => {
      const fresh = await newImage(t.ctx, datasetId, { bytes: await picture(800, 800, { seed: 3 }) });
      const rendersBefore = t.ctx.thumbnails.rendered;
      const answers = await Promise.all(Array.from({ length: 5 }, () => get(`/v2/images/${fresh.id}/thumbnail`)));
      assert.ok(answers.every((a) => a.statusCode === 200 && a.rawPayload.equals(answers[0]!.rawPayload)));
      assert.equal(t.ctx.thumbnails.rendered, rendersBefore + 1);
    });

    test('size other than 256 or 1024 is 400', async () => {
      for (const size of ['512', '0', 'big', '256.5']) {
        const res = await get(`/v2/images/${image.id}/thumbnail?size=${size}`);
        assert.equal(res.statusCode, 400, `size=${size}`);
      }
    });

    test('another team’s image, and a missing one, are 404 alike', async () => {
      for (const route of ['file', 'thumbnail']) {
        const theirs = await get(`/v2/images/${image.id}/${route}`, {}, t.otherKey);
        const missing = await get(`/v2/images/99999999/${route}`, {}, t.otherKey);
        assert.equal(theirs.statusCode, 404);
        assert.equal(missing.statusCode, 404);
        assert.equal(json<{ code: string }>(theirs).code, 'NOT_FOUND');
        assert.equal(theirs.body.replace(String(image.id), 'N'), missing.body.replace('99999999', 'N'));
      }
      assert.equal((await t.request({ method: 'GET', url: `/v2/images/${image.id}/file`, key: null })).statusCode, 401);
    });

    test('a read-only key reads both', async () => {
      assert.equal((await get(`/v2/images/${image.id}/file`, {}, t.readOnlyKey)).statusCode, 200);
      assert.equal((await get(`/v2/images/${image.id}/thumbnail`, {}, t.readOnlyKey)).statusCode, 200);
    });

    test('bytes that are no picture: the file is served, the thumbnail is 415', async () => {
      const odd = await newImage(t.ctx, datasetId, { bytes: Buffer.from('not a picture') });
      assert.equal((await get(`/v2/images/${odd.id}/file`)).body, 'not a picture');
      assert.equal((await get(`/v2/images/${odd.id}/thumbnail`)).statusCode, 415);
    });

    test('after an upload and an import, thumbnails tasks make the 256 px thumbnails and thumbhashes; v1 lists only the import', async () => {
      const meta = { classes: [{ title: 'car', shape: 'rectangle', color: '#FF0000' }] };
      const files: ProjectFile[] = [{ path: 'meta.json', type: 'class', content: Buffer.from(JSON.stringify(meta)) }];
      for (let i = 0; i < 5; i += 1) files.push({ path: `ds/img/p${i}.png`, type: 'image', content: await picture(300 + i * 10, 200, { seed: 10 + i }) });
      const tasksBefore = json<unknown[]>(await get('/v1/tasks')).length;
      const rendersAtStart = t.ctx.thumbnails.rendered;
      const refs = await uploadProject(t, files);
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'imported' }, preset: 1, files: refs } });
      assert.equal(res.statusCode, 200, res.body);
      const importTaskId = json<{ taskId: number }>(res).taskId;
      const task = await waitForTask(t, importTaskId);
      assert.equal(task.status, 'finished', JSON.stringify(task.meta));
      const hashes = refs.filter((r) => 'hash' in r).map((r) => (r as { hash: string }).hash);
      assert.equal(hashes.length, 5);

      // One task for the upload's new images, one for the images the import made (whatever the import
      // did not draw alongside its batches): each image drawn once in all.
      const db = t.ctx.db.kysely;
      const thumbnailTasks = await waitFor('the thumbnails tasks to finish', async () => {
        const rows = await db.selectFrom('tasks').innerJoin('task_inputs', 'task_inputs.task_id', 'tasks.id').select(['id', 'status', 'meta', 'input']).where('type', '=', 'thumbnails').execute();
        const ours = rows.filter((r) => r.input === JSON.stringify({ importTaskId }) || hashes.some((h) => r.input.includes(h)));
        return ours.length >= 2 && ours.every((r) => r.status === 'finished') && ours;
      }, 10_000);
      assert.equal(t.ctx.thumbnails.rendered - rendersAtStart, 5, 'each image drawn once');
      assert.ok(thumbnailTasks.some((r) => r.input === JSON.stringify({ importTaskId })), 'the import queued its own');
      for (const hash of hashes) {
        const row = await db.selectFrom('thumbnails').select(['width', 'height']).where('hash', '=', hash).where('size', '=', 256).executeTakeFirst();
        assert.ok(row && row.width === 256, `thumbnail of ${hash}`);
        assert.ok(await thumbhashOf(db, hash), `thumbhash of ${hash}`);
      }
      const thumbnailsTask = thumbnailTasks[0]!;
      // v1 clients see their import, as before, and not the work that followed it.
      assert.equal(json<unknown[]>(await get('/v1/tasks')).length, tasksBefore + 1);
      assert.equal((await get(`/v1/tasks?id=${thumbnailsTask.id}`)).body, '[]');
      assert.equal((await t.request({ method: 'POST', url: `/v1/tasks/${thumbnailsTask.id}/stop` })).statusCode, 404);

      // The thumbnail route now serves what the task made, without drawing it again.
      const rendersBefore = t.ctx.thumbnails.rendered;
      const imageId = (await db.selectFrom('images').select('id').where('hash', '=', hashes[0]!).executeTakeFirstOrThrow()).id;
      assert.equal((await get(`/v2/images/${imageId}/thumbnail`)).statusCode, 200);
      assert.equal(t.ctx.thumbnails.rendered, rendersBefore);
    });
  });
}
