// Versions under /v2 on both databases: a snapshot that editing the project afterwards never changes,
// classes with stable indices across versions, subsets by seed, ratio, class and dataset, images
// paged with their annotations as they were, a diff between two versions, blobs kept for a version,
// and the team's walls.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sweepBlobs } from '../../src/services/blob-sweep.service.ts';
import { dominantClass, randomSplit } from '../../src/services/version-split.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon, tagImage } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { type List, assertProblem } from '../helpers/v2.ts';

interface Version {
  id: number;
  projectId: number;
  name: string;
  split: Record<string, unknown>;
  imageCount: number;
  objectCount: number;
  subsets: Record<string, number>;
  classes: { index: number; classId: number; title: string; shape: string }[];
  tags: { title: string; scope: string }[];
}

interface VersionImage {
  imageId: number;
  dataset: string;
  name: string;
  hash: string;
  subset: string;
  tags: { title: string; value: unknown }[];
  objects: { id: number; classTitle: string; points: { exterior: number[][] } }[];
}

const box = (classTitle: string, x: number): ReturnType<typeof polygon> => polygon(classTitle, [[x, 0], [x + 4, 0], [x + 4, 4], [x, 4]]);

for (const dialect of dialects) {
  describe(`versions on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let projectId: number;
    let train: number;
    let val: number;
    const imageIds: number[] = [];

    before(async () => {
      t = await startTestApp(dialect);
      projectId = await newProject(t.ctx, { title: 'streets', classes: [{ title: 'car', shape: 'polygon' }, { title: 'person', shape: 'polygon' }] });
      train = await newDataset(t.ctx, projectId, 'train');
      val = await newDataset(t.ctx, projectId, 'val');
      const night = await newTag(t.ctx, projectId, { title: 'night' });
      for (let i = 0; i < 40; i++) {
        const objects = i % 4 === 0 ? [] : i % 2 === 0 ? [box('car', 1), box('car', 9)] : [box('person', 2)];
        const image = await newImage(t.ctx, i < 30 ? train : val, { name: `f${String(i).padStart(3, '0')}.png`, objects });
        imageIds.push(image.id);
        if (i % 10 === 0) await tagImage(t.ctx, image.id, night);
      }
    });
    after(async () => t?.close());

    const create = (body: Record<string, unknown>, key?: string) => t.request({ method: 'POST', url: `/v2/projects/${projectId}/versions`, payload: body, key });
    const images = async (versionId: number, query = ''): Promise<VersionImage[]> => {
      const all: VersionImage[] = [];
      for (let cursor: string | null = ''; cursor !== null; ) {
        const res = await t.request({ method: 'GET', url: `/v2/versions/${versionId}/images?limit=7${query}${cursor ? `&cursor=${cursor}` : ''}` });
        assert.equal(res.statusCode, 200, res.body);
        const page = json<List<VersionImage>>(res);
        all.push(...page.items);
        cursor = page.nextCursor;
      }
      return all;
    };

    test('a version freezes the images, annotations, tags and classes; editing the project afterwards changes none of it', async () => {
      const res = await create({ name: 'v1', description: 'first' });
      assert.equal(res.statusCode, 201, res.body);
      const v1 = json<Version>(res);
      assert.equal(res.headers.location, `/v2/versions/${v1.id}`);
      assert.equal(v1.imageCount, 40);
      assert.equal(v1.objectCount, 10 * 2 + 20 * 1);
      assert.deepEqual(v1.classes.map((c) => [c.index, c.title]), [[1, 'car'], [2, 'person']]);
      assert.deepEqual(v1.subsets, { '': 40 });
      const before = await images(v1.id);
      assert.deepEqual(before.map((i) => i.imageId), imageIds, 'every image once, in id order, across pages of 7');
      assert.deepEqual(before[0]!.tags, [{ title: 'night', value: null }]);
      assert.deepEqual(before[2]!.objects.map((o) => [o.id, o.classTitle, o.points.exterior[0]]), [[1, 'car', [1, 0]], [2, 'car', [9, 0]]]);

      // Edit everything a version holds: an annotation, a name, a deletion, a class rename, a new image.
      const put = await t.request({ method: 'PUT', url: `/v2/images/${imageIds[2]}/annotation`, payload: { objects: [box('person', 20)] } });
      assert.equal(put.statusCode, 200, put.body);
      assert.equal((await t.request({ method: 'PATCH', url: `/v2/images/${imageIds[3]}`, payload: { name: 'renamed.png' } })).statusCode, 200);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/images/${imageIds[5]}` })).statusCode, 204);
      const car = v1.classes.find((c) => c.title === 'car')!;
      assert.equal((await t.request({ method: 'PATCH', url: `/v2/classes/${car.classId}`, payload: { title: 'vehicle' } })).statusCode, 200);
      const late = await newImage(t.ctx, val, { name: 'late.png', objects: [box('person', 0)] });

      const again = json<Version>(await t.request({ method: 'GET', url: `/v2/versions/${v1.id}` }));
      assert.deepEqual(again, v1);
      assert.deepEqual(await images(v1.id), before, 'the version reads exactly as it did');

      // A deleted image's bytes stay while a version names them; those of an image no version holds go.
      const unversioned = await newImage(t.ctx, val, { name: 'gone.png' });
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/images/${unversioned.id}` })).statusCode, 204);
      const removed = await sweepBlobs(t.ctx, new Date(Date.now() + 2 * 60 * 60 * 1000));
      assert.equal(removed.blobsRemoved, 1);
      assert.ok(await t.ctx.blobs.has(before[5]!.hash), 'the blob of an image the version holds is kept');
      assert.ok(!(await t.ctx.blobs.has(unversioned.hash)));

      // The version serves those bytes by the hash it holds, though the image itself is gone.
      assertProblem(await t.request({ method: 'GET', url: `/v2/images/${imageIds[5]}/file` }), 404, 'NOT_FOUND');
      const file = await t.request({ method: 'GET', url: `/v2/versions/${v1.id}/images/${imageIds[5]}/file` });
      assert.equal(file.statusCode, 200, file.body);
      assert.equal(createHash('sha256').update(file.rawPayload).digest('base64'), before[5]!.hash);
      assert.equal(file.headers.etag, `"${before[5]!.hash}"`);
      assert.match(String(file.headers['cache-control']), /immutable/);
      const unchanged = await t.request({ method: 'GET', url: `/v2/versions/${v1.id}/images/${imageIds[5]}/file`, headers: { 'if-none-match': `"${before[5]!.hash}"` } });
      assert.equal(unchanged.statusCode, 304);
      assertProblem(await t.request({ method: 'GET', url: `/v2/versions/${v1.id}/images/${late.id}/file` }), 404, 'NOT_FOUND');
    });

    test('a later version keeps the index of every class it shares; new classes come after', async () => {
      const person = json<{ id: number }>(await t.request({ method: 'POST', url: `/v2/projects/${projectId}/classes`, payload: { title: 'bike', shape: 'polygon', color: '#00FF00' } }));
      assert.ok(person.id);
      const v2 = json<Version>(await create({ name: 'v2' }));
      assert.deepEqual(v2.classes.map((c) => [c.index, c.title]), [[1, 'vehicle'], [2, 'person'], [3, 'bike']]);
      const vehicle = v2.classes.find((c) => c.title === 'vehicle')!;
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/classes/${vehicle.classId}?cascade=true` })).statusCode, 204);
      const v3 = json<Version>(await create({ name: 'v3' }));
      assert.deepEqual(v3.classes.map((c) => [c.index, c.title]), [[2, 'person'], [3, 'bike']], 'a class gone leaves its index unused');
    });

    test('a random split gives each subset its share, the same for the same seed, and a stratified one spreads each class', async () => {
      const split = { method: 'random', ratios: { train: 0.75, val: 0.25 }, seed: 7 };
      const a = json<Version>(await create({ name: 'split-a', split }));
      const b = json<Version>(await create({ name: 'split-b', split }));
      const total = a.imageCount;
      assert.deepEqual(a.subsets, { train: Math.round(total * 0.75), val: total - Math.round(total * 0.75) });
      const subsetsOf = async (v: Version) => new Map((await images(v.id)).map((i) => [i.imageId, i.subset]));
      assert.deepEqual(await subsetsOf(a), await subsetsOf(b), 'same seed, same subsets');
      const c = json<Version>(await create({ name: 'split-c', split: { ...split, seed: 8 } }));
      assert.notDeepEqual(await subsetsOf(a), await subsetsOf(c), 'another seed, other subsets');
      const valOnly = await images(a.id, '&subset=val');
      assert.equal(valOnly.length, a.subsets.val);
      assert.ok(valOnly.every((i) => i.subset === 'val'));

      const stratified = json<Version>(await create({ name: 'split-s', split: { ...split, stratify: true } }));
      const rows = await images(stratified.id);
      for (const cls of ['person', '']) {
        const members = rows.filter((i) => (i.objects[0]?.classTitle ?? '') === cls);
        const inTrain = members.filter((i) => i.subset === 'train').length;
        assert.ok(Math.abs(inTrain - members.length * 0.75) <= 1, `${cls || 'no class'}: ${inTrain} of ${members.length} in train`);
      }
    });

    test("a stratified split puts each image in the stratum of the class most of its objects have, a tie going to the first title", async () => {
      // Classes made in the opposite of their titles' order, so a tie broken by id would differ.
      const tied = await newProject(t.ctx, { title: 'ties', classes: [{ title: 'zebra', shape: 'polygon' }, { title: 'ant', shape: 'polygon' }] });
      const dataset = await newDataset(t.ctx, tied, 'all');
      const kinds = [[box('zebra', 1), box('ant', 2)], [box('zebra', 1)], [box('ant', 1), box('zebra', 2), box('zebra', 3)], [box('ant', 1)], []];
      for (let i = 0; i < 45; i++) await newImage(t.ctx, dataset, { name: `t${String(i).padStart(3, '0')}.png`, objects: kinds[i % kinds.length]! });
      const split = { method: 'random', ratios: { train: 3, val: 1, test: 1 }, seed: 11, stratify: true } as const;
      const res = await t.request({ method: 'POST', url: `/v2/projects/${tied}/versions`, payload: { name: 'ties', split } });
      assert.equal(res.statusCode, 201, res.body);
      const rows = await images(json<Version>(res).id);
      const strata = new Map<number, string>();
      for (const row of rows) {
        const counts = new Map<string, number>();
        for (const o of row.objects) counts.set(o.classTitle, (counts.get(o.classTitle) ?? 0) + 1);
        strata.set(row.imageId, dominantClass(counts));
      }
      assert.equal(strata.get(rows[0]!.imageId), 'ant', 'a tie of zebra and ant goes to ant');
      const expected = randomSplit(rows.map((r) => r.imageId), split.ratios, split.seed, strata);
      assert.deepEqual(
        new Map(rows.map((r) => [r.imageId, r.subset])),
        new Map([...expected].flatMap(([subset, ids]) => ids.map((id) => [id, subset] as const))),
      );
    });

    test('a split by datasets names each subset after its dataset; datasetIds keep some datasets only', async () => {
      const byDataset = json<Version>(await create({ name: 'by-dataset', split: { method: 'datasets' } }));
      assert.deepEqual(Object.keys(byDataset.subsets), ['train', 'val']);
      assert.ok((await images(byDataset.id)).every((i) => i.subset === i.dataset));
      const valOnly = json<Version>(await create({ name: 'val-only', datasetIds: [val] }));
      assert.ok((await images(valOnly.id)).every((i) => i.dataset === 'val'));
      assert.equal(valOnly.imageCount, byDataset.subsets.val);
    });

    test('a diff says which images and objects were added, removed and changed', async () => {
      const fresh = await newProject(t.ctx, { title: 'diffed', classes: [{ title: 'a', shape: 'polygon' }, { title: 'b', shape: 'polygon' }] });
      const ds = await newDataset(t.ctx, fresh);
      const one = await newImage(t.ctx, ds, { objects: [box('a', 0), box('b', 5)] });
      const two = await newImage(t.ctx, ds, { objects: [box('a', 0)] });
      const three = await newImage(t.ctx, ds, { objects: [] });
      const first = json<Version>(await t.request({ method: 'POST', url: `/v2/projects/${fresh}/versions`, payload: { name: 'before' } }));
      const annotation = json<{ objects: { id: number; classTitle: string; points: unknown }[] }>(await t.request({ method: 'GET', url: `/v2/images/${one.id}/annotation` }));
      const moved = { ...annotation.objects[0]!, points: { exterior: [[1, 1], [6, 1], [6, 6], [1, 6]], interior: [] } };
      const put = await t.request({ method: 'PUT', url: `/v2/images/${one.id}/annotation`, payload: { objects: [moved, box('b', 20)] } });
      assert.equal(put.statusCode, 200, put.body);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/images/${two.id}` })).statusCode, 204);
      await newImage(t.ctx, ds, { objects: [box('b', 1)] });
      const second = json<Version>(await t.request({ method: 'POST', url: `/v2/projects/${fresh}/versions`, payload: { name: 'after' } }));
      const diff = json<{ images: Record<string, number>; classes: { title: string; added: number; removed: number; changed: number }[] }>(
        await t.request({ method: 'GET', url: `/v2/versions/${second.id}/diff?from=${first.id}` }),
      );
      assert.deepEqual(diff.images, { added: 1, removed: 1, changed: 1, unchanged: 1 });
      assert.deepEqual(diff.classes, [
        { title: 'a', added: 0, removed: 1, changed: 1 },
        { title: 'b', added: 2, removed: 1, changed: 0 },
      ]);
      assert.ok(three.id);
    });

    test('names are unique per project, bad splits are refused, and another team sees nothing', async () => {
      assertProblem(await create({ name: 'v1' }), 409, 'CONFLICT');
      assertProblem(await create({ name: 'x', split: { method: 'random', ratios: {}, seed: 1 } }), 400, 'VALIDATION');
      assertProblem(await create({ name: 'x', split: { method: 'random', ratios: { train: -1 }, seed: 1 } }), 400, 'VALIDATION');
      assertProblem(await create({ name: 'x', datasetIds: [999_999] }), 404, 'NOT_FOUND');
      assertProblem(await create({ name: 'x' }, t.readOnlyKey), 403, 'FORBIDDEN');
      const listed = json<List<Version>>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/versions?limit=2` }));
      assert.equal(listed.items.length, 2);
      assert.ok(listed.nextCursor);
      const id = listed.items[0]!.id;
      assertProblem(await t.request({ method: 'GET', url: `/v2/versions/${id}`, key: t.otherKey }), 404, 'NOT_FOUND');
      assertProblem(await t.request({ method: 'GET', url: `/v2/versions/${id}/images`, key: t.otherKey }), 404, 'NOT_FOUND');
      const image = json<List<{ imageId: number }>>(await t.request({ method: 'GET', url: `/v2/versions/${id}/images?limit=1` })).items[0]!.imageId;
      assert.equal((await t.request({ method: 'GET', url: `/v2/versions/${id}/images/${image}/file` })).statusCode, 200);
      assertProblem(await t.request({ method: 'GET', url: `/v2/versions/${id}/images/${image}/file`, key: t.otherKey }), 404, 'NOT_FOUND');
      assertProblem(await t.request({ method: 'DELETE', url: `/v2/versions/${id}`, key: t.otherKey }), 404, 'NOT_FOUND');
      assertProblem(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/versions`, key: t.otherKey }), 404, 'NOT_FOUND');
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/versions/${id}` })).statusCode, 204);
      assertProblem(await t.request({ method: 'GET', url: `/v2/versions/${id}` }), 404, 'NOT_FOUND');
    });

    test("a deleted project's versions let go of its images' bytes", async () => {
      const gone = await newProject(t.ctx, { title: 'gone', classes: [{ title: 'a', shape: 'polygon' }] });
      const dataset = await newDataset(t.ctx, gone);
      const made = [await newImage(t.ctx, dataset, { objects: [box('a', 1)] }), await newImage(t.ctx, dataset, { objects: [] })];
      for (const name of ['plain', 'split']) {
        const split = name === 'split' ? { method: 'random', ratios: { train: 1, val: 1 }, seed: 5, stratify: true } : undefined;
        const res = await t.request({ method: 'POST', url: `/v2/projects/${gone}/versions`, payload: { name, split } });
        assert.equal(res.statusCode, 201, res.body);
      }
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/projects/${gone}` })).statusCode, 204);
      await sweepBlobs(t.ctx, new Date(Date.now() + 2 * 60 * 60 * 1000));
      for (const image of made) assert.ok(!(await t.ctx.blobs.has(image.hash)), 'no version of the deleted project keeps its bytes');
    });
  });
}
