// GET /v2/versions/:id/leakage on both databases: pictures of the near-duplicate corpus and their
// copies spread over a version's subsets. Exact copies are found before any perceptual hash exists;
// near-duplicates once the hashes are made; copies within one subset are no leak; maxDistance
// narrows the search; another team's version is a 404.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LeakageReport } from '../../src/services/version-leakage.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { TRANSFORMS, distinctPicture } from '../helpers/near-duplicate-corpus.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';

const shrunk = TRANSFORMS.find((t) => t.name === 'resize 50% and JPEG q60')!;
const brighter = TRANSFORMS.find((t) => t.name === 'brightness +10%')!;

for (const dialect of dialects) {
  describe(`version leakage on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let projectId: number;
    const ids: Record<string, number> = {};
    const hashes: string[] = [];

    before(async () => {
      t = await startTestApp(dialect);
      projectId = await newProject(t.ctx, { title: 'leaky' });
      const train = await newDataset(t.ctx, projectId, 'train');
      const val = await newDataset(t.ctx, projectId, 'val');
      const [a, b, c, lone] = await Promise.all([distinctPicture(20), distinctPicture(21), distinctPicture(22), distinctPicture(23)]);
      const add = async (name: string, datasetId: number, bytes: Buffer) => {
        const image = await newImage(t.ctx, datasetId, { name: `${name}.png`, bytes });
        ids[name] = image.id;
        hashes.push(image.hash);
      };
      await add('a', train, a!);
      await add('a-small', val, await shrunk.apply(a!));
      await add('b', train, b!);
      await add('b-bright', train, await brighter.apply(b!));
      await add('c', train, c!);
      await add('c-same', val, c!);
      await add('lone', val, lone!);
    });
    after(async () => t?.close());

    const leakage = async (versionId: number, query = '', key?: string) => {
      const res = await t.request({ method: 'GET', url: `/v2/versions/${versionId}/leakage${query}`, ...(key ? { key } : {}) });
      assert.equal(res.statusCode, 200, res.body);
      return json<LeakageReport>(res);
    };
    const name = (id: number) => Object.keys(ids).find((k) => ids[k] === id);
    const version = async (versionName: string) => {
      const res = await t.request({ method: 'POST', url: `/v2/projects/${projectId}/versions`, payload: { name: versionName, split: { method: 'datasets' } } });
      assert.equal(res.statusCode, 201, res.body);
      return json<{ id: number }>(res).id;
    };

    test('exact copies in two subsets are a leak before any perceptual hash is made', async () => {
      const v = await version('before-hashes');
      const report = await leakage(v);
      assert.deepEqual([report.images, report.pending, report.groupCount, report.maxDistance], [7, 7, 1, 12]);
      const group = report.groups[0]!;
      assert.deepEqual(group.images.map((i) => [name(i.imageId), i.subset, i.dataset]), [['c', 'train', 'train'], ['c-same', 'val', 'val']]);
      assert.deepEqual(group.subsets, [{ subset: 'train', count: 1 }, { subset: 'val', count: 1 }]);
      assert.deepEqual(group.pairs, [{ a: ids.c, b: ids['c-same'], distance: 0, sameBytes: true }]);
    });

    test('near-duplicates in two subsets are a leak once hashed; copies in one subset are not; maxDistance narrows', async () => {
      for (const hash of new Set(hashes)) await t.ctx.thumbnails.make(hash, 256);
      const v = await version('hashed');
      const report = await leakage(v);
      assert.equal(report.pending, 0);
      assert.equal(report.groupCount, 2);
      assert.equal(report.imagesInGroups, 4);
      const groups = report.groups.map((g) => g.images.map((i) => name(i.imageId)));
      assert.deepEqual(groups, [['a', 'a-small'], ['c', 'c-same']], 'b and its brighter copy share one subset: no leak');
      const near = report.groups[0]!.pairs[0]!;
      assert.deepEqual([name(near.a), name(near.b), near.sameBytes], ['a', 'a-small', false]);
      assert.ok(near.distance <= 12, String(near.distance));
      // At distance 0 only exact copies (and identical hashes) are left.
      const exact = await leakage(v, '?maxDistance=0');
      assert.deepEqual(exact.groups.map((g) => g.images.map((i) => name(i.imageId))), [['c', 'c-same']]);
      // Paging by offset and limit.
      const second = await leakage(v, '?limit=1&offset=1');
      assert.deepEqual([second.groupCount, second.offset, second.groups.length], [2, 1, 1]);
      assert.deepEqual(second.groups[0]!.images.map((i) => name(i.imageId)), ['c', 'c-same']);
      // A version without a split has one subset: nothing leaks.
      const whole = json<{ id: number }>(await t.request({ method: 'POST', url: `/v2/projects/${projectId}/versions`, payload: { name: 'whole' } })).id;
      assert.equal((await leakage(whole)).groupCount, 0);
    });

    test('another team’s version is a 404; a distance or limit past the largest is a 400', async () => {
      const v = await version('walls');
      assertProblem(await t.request({ method: 'GET', url: `/v2/versions/${v}/leakage`, key: t.otherKey }), 404, 'NOT_FOUND');
      assertProblem(await t.request({ method: 'GET', url: '/v2/versions/999999/leakage' }), 404, 'NOT_FOUND');
      assertProblem(await t.request({ method: 'GET', url: `/v2/versions/${v}/leakage?maxDistance=17` }), 400, 'VALIDATION');
      assertProblem(await t.request({ method: 'GET', url: `/v2/versions/${v}/leakage?limit=501` }), 400, 'VALIDATION');
    });
  });
}
