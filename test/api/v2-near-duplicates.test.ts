// GET /v2/images/:id/similar and GET /v2/projects/:id/near-duplicates on real pictures and their
// copies: the hashes made by the thumbnails task (queued by POST …/near-duplicates/hashes for images
// from before), groups with their cross-dataset flag, paging, and team isolation. On both dialects.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import sharp from 'sharp';
import type { NearDuplicateReport, SimilarImages } from '../../src/services/near-duplicates.service.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { distinctPicture } from '../helpers/near-duplicate-corpus.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';
import { waitFor } from '../helpers/wait.ts';

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

for (const dialect of dialects) {
  describe(`v2 near-duplicates on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner;
    let projectId: number;
    let train: number;
    let val: number;
    const ids: Record<string, number> = {};
    before(async () => {
      t = await startTestApp(dialect);
      runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
      projectId = await newProject(t.ctx, { title: 'splits' });
      train = await newDataset(t.ctx, projectId, 'train');
      val = await newDataset(t.ctx, projectId, 'val');
      const [a, b, c] = await Promise.all([distinctPicture(10), distinctPicture(11), distinctPicture(12)]);
      const add = async (name: string, datasetId: number, bytes: Buffer) => (ids[name] = (await newImage(t.ctx, datasetId, { name: `${name}.png`, bytes })).id);
      // a in train, a smaller recompressed copy of it in val: the leak the report is for.
      await add('a', train, a!);
      await add('a-copy', val, await sharp(a).resize(300).jpeg({ quality: 60 }).toBuffer());
      // b and a brightened copy, both in train.
      await add('b', train, b!);
      await add('b-bright', train, await sharp(b).linear(1.1, 0).png().toBuffer());
      // c in train and the very same bytes in val.
      await add('c', train, c!);
      await add('c-same', val, c!);
      await add('lone', train, await distinctPicture(13));
      await add('broken', train, Buffer.from('not a picture'));
      // Team beta holds a copy of a, which alpha must never see.
      const beta = await newDataset(t.ctx, await newProject(t.ctx, { team: 'beta', title: 'theirs' }), 'theirs');
      ids['beta-a'] = (await newImage(t.ctx, beta, { name: 'a.png', bytes: await sharp(a).jpeg({ quality: 90 }).toBuffer() })).id;
      await t.ctx.thumbnails.make((await t.ctx.db.kysely.selectFrom('images').select('hash').where('id', '=', ids['beta-a']!).executeTakeFirstOrThrow()).hash, 256);
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    const report = async (query = '', key?: string) => {
      const res = await t.request({ method: 'GET', url: `/v2/projects/${projectId}/near-duplicates${query}`, ...(key ? { key } : {}) });
      assert.equal(res.statusCode, 200, res.body);
      return json<NearDuplicateReport>(res);
    };
    const similar = async (name: string, query = '') => {
      const res = await t.request({ method: 'GET', url: `/v2/images/${ids[name]}/similar${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return json<SimilarImages>(res);
    };
    const names = (group: { images: { id: number }[] }) => group.images.map((image) => Object.keys(ids).find((k) => ids[k] === image.id));

    test('images from before hashes are pending until POST …/hashes queues the thumbnails task that makes them', async () => {
      const first = await report();
      assert.deepEqual([first.images, first.pending, first.groupCount], [8, 8, 0], 'images without hashes are left out, even exact copies');
      assert.equal((await similar('a')).hashed, false);
      assertProblem(await t.request({ method: 'POST', url: `/v2/projects/${projectId}/near-duplicates/hashes`, key: t.readOnlyKey }), 403, 'FORBIDDEN');
      const res = await t.request({ method: 'POST', url: `/v2/projects/${projectId}/near-duplicates/hashes` });
      assert.equal(res.statusCode, 202, res.body);
      const queued = json<{ blobs: number; taskIds: number[] }>(res);
      assert.equal(queued.blobs, 7, 'c and c-same share their bytes');
      assert.equal(queued.taskIds.length, 1);
      // The bytes that are no picture stay pending: they have no thumbnail either.
      await waitFor('hashes', async () => (await report()).pending === 1, 60_000);
    });

    test('the report groups each picture with its copies and flags the groups that span datasets', async () => {
      const answer = await report();
      assert.equal(answer.distance, 12);
      assert.deepEqual([answer.groupCount, answer.crossDatasetGroups, answer.imagesInGroups], [3, 1 + 1, 6]);
      assert.deepEqual(answer.groups.map(names), [['a', 'a-copy'], ['b', 'b-bright'], ['c', 'c-same']]);
      assert.deepEqual(answer.groups.map((g) => g.crossDataset), [true, false, true]);
      assert.deepEqual(answer.groups[0]!.datasets, [{ id: train, title: 'train', count: 1 }, { id: val, title: 'val', count: 1 }]);
      assert.deepEqual(answer.groups[0]!.images[1], { id: ids['a-copy'], name: 'a-copy.png', datasetId: val, datasetTitle: 'val' });
      const leaks = await report('?crossDataset=true');
      assert.deepEqual([leaks.groupCount, leaks.groups.map(names)], [2, [['a', 'a-copy'], ['c', 'c-same']]]);
      // Same bytes are distance 0: they group even when nothing else may differ.
      assert.deepEqual((await report('?distance=0')).groups.map(names), [['c', 'c-same']]);
    });

    test('groups come a page at a time', async () => {
      const first = await report('?limit=2');
      assert.deepEqual([first.groupCount, first.offset, first.groups.map(names)], [3, 0, [['a', 'a-copy'], ['b', 'b-bright']]]);
      const second = await report('?limit=2&offset=2');
      assert.deepEqual([second.offset, second.groups.map(names)], [2, [['c', 'c-same']]]);
      assert.equal((await report('', t.readOnlyKey)).groupCount, 3, 'a read-only key may read it');
    });

    test('similar images: nearest first, the same bytes at distance 0, never another team’s', async () => {
      const forA = await similar('a');
      assert.equal(forA.hashed, true);
      assert.deepEqual(forA.items.map((i) => i.id), [ids['a-copy']]);
      const copy = forA.items[0]!;
      assert.deepEqual([copy.datasetId, copy.datasetTitle, copy.projectId, copy.sameBytes], [val, 'val', projectId, false]);
      assert.ok(copy.phashDistance <= 12 && copy.dhashDistance <= 18);
      const forC = await similar('c');
      assert.deepEqual(forC.items.map((i) => [i.id, i.phashDistance, i.dhashDistance, i.sameBytes]), [[ids['c-same'], 0, 0, true]]);
      assert.deepEqual((await similar('lone')).items, []);
      assert.deepEqual(await similar('broken'), { distance: 12, hashed: false, items: [] });
      // Beta sees its own copy of a near nothing of alpha's, and alpha's image is not found for it.
      const theirs = await t.request({ method: 'GET', url: `/v2/images/${ids['beta-a']}/similar`, key: t.otherKey });
      assert.deepEqual(json<SimilarImages>(theirs).items, []);
      assertProblem(await t.request({ method: 'GET', url: `/v2/images/${ids.a}/similar`, key: t.otherKey }), 404, 'NOT_FOUND');
    });

    test('a thumbnail asked for makes the hashes; a group lists its first 100 images; nothing left to hash queues nothing', async () => {
      const copies = await newProject(t.ctx, { title: 'copies' });
      const dataset = await newDataset(t.ctx, copies, 'burst');
      const bytes = await distinctPicture(20);
      const made: number[] = [];
      for (let i = 0; i < 101; i += 1) made.push((await newImage(t.ctx, dataset, { name: `frame-${i}.png`, bytes })).id);
      const other = (await newImage(t.ctx, dataset, { name: 'other.png', bytes: await sharp(bytes).resize(200).png().toBuffer() })).id;
      for (const id of [made[0], other]) assert.equal((await t.request({ method: 'GET', url: `/v2/images/${id}/thumbnail` })).statusCode, 200);
      const res = await t.request({ method: 'GET', url: `/v2/projects/${copies}/near-duplicates` });
      const answer = json<NearDuplicateReport>(res);
      assert.deepEqual([answer.pending, answer.groupCount, answer.groups[0]!.size, answer.groups[0]!.images.length], [0, 1, 102, 100]);
      assert.deepEqual(answer.groups[0]!.images.map((image) => image.id), made.slice(0, 100));
      const queued = await t.request({ method: 'POST', url: `/v2/projects/${copies}/near-duplicates/hashes` });
      assert.deepEqual([queued.statusCode, json(queued)], [202, { blobs: 0, taskIds: [] }]);
      // limit cuts the similar images, nearest (the same bytes) first; a read-only key may ask.
      const some = await t.request({ method: 'GET', url: `/v2/images/${made[0]}/similar?limit=3`, key: t.readOnlyKey });
      assert.deepEqual(json<SimilarImages>(some).items.map((i) => [i.id, i.sameBytes]), made.slice(1, 4).map((id) => [id, true]));
      const all = json<SimilarImages>(await t.request({ method: 'GET', url: `/v2/images/${made[0]}/similar?limit=200` }));
      assert.deepEqual([all.items.length, all.items.at(-1)!.id, all.items.at(-1)!.sameBytes], [101, other, false]);
    });

    test('another team’s project is not found; a distance out of range is a 400', async () => {
      for (const [method, url] of [['GET', `/v2/projects/${projectId}/near-duplicates`], ['POST', `/v2/projects/${projectId}/near-duplicates/hashes`]] as const) {
        assertProblem(await t.request({ method, url, key: t.otherKey }), 404, 'NOT_FOUND', { label: url });
      }
      assertProblem(await t.request({ method: 'GET', url: '/v2/projects/999999/near-duplicates' }), 404, 'NOT_FOUND');
      for (const query of ['distance=17', 'distance=-1', 'distance=x', 'limit=0', 'limit=201', 'offset=-1']) {
        assertProblem(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/near-duplicates?${query}` }), 400, 'VALIDATION', { label: query });
      }
      for (const query of ['distance=99', 'limit=0', 'limit=201']) assertProblem(await t.request({ method: 'GET', url: `/v2/images/${ids.a}/similar?${query}` }), 400, 'VALIDATION', { label: query });
    });
  });
}
