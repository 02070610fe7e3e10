// Filters that combine and sorts of GET /v2/images, and GET /v2/projects/:projectId/stats with the
// same filters, answered from the per image and class summary of the objects: kept in step by every
// write of an image's objects and filled for existing images by the migration. On both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Static } from 'typebox';
import type { ImageMetadata } from '../../src/http/schemas/v2-images.ts';
import type { ProjectStats } from '../../src/http/schemas/v2-stats.ts';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import { backfillImageSummaries } from '../../src/repositories/image-summary.repository.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { type List, assertProblem } from '../helpers/v2.ts';

type Page = List<Static<typeof ImageMetadata>>;
type Stats = Static<typeof ProjectStats>;

/** A box of class `title` from (l, t), w × h, as a polygon. */
const boxOf = (title: string, l: number, t: number, w: number, h: number): AnnotationObject =>
  polygon(title, [[l, t], [l + w, t], [l + w, t + h], [l, t + h]]);

for (const dialect of dialects) {
  describe(`v2 image filters and project statistics on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let project: number;
    let dsA: number;
    let dsB: number;
    let review: number;
    const ids: Record<string, number> = {};
    const classIds: Record<string, number> = {};
    before(async () => {
      t = await startTestApp(dialect);
      project = await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }, { title: 'person', shape: 'polygon' }, { title: 'tiny', shape: 'polygon' }] });
      dsA = await newDataset(t.ctx, project, 'A');
      dsB = await newDataset(t.ctx, project, 'B');
      review = await newTag(t.ctx, project, { title: 'review' });
      const rows = await t.ctx.db.kysely.selectFrom('classes').select(['id', 'title']).where('project_id', '=', project).execute();
      for (const r of rows) classIds[r.title] = r.id;
      ids.a1 = (await newImage(t.ctx, dsA, { name: 'a1', objects: [boxOf('car', 1, 1, 10, 10), boxOf('car', 0, 0, 100, 50), boxOf('person', 5, 5, 30, 30)], width: 200, height: 100 })).id;
      ids.a2 = (await newImage(t.ctx, dsA, { name: 'a2' })).id;
      ids.a3 = (await newImage(t.ctx, dsA, { name: 'a3', objects: [boxOf('person', 10, 4, 40, 40)] })).id;
      ids.b1 = (await newImage(t.ctx, dsB, { name: 'b1', objects: [boxOf('tiny', 0, 0, 4, 4)] })).id;
      const cars = Array.from({ length: 5 }, (_, i) => boxOf('car', i * 10, 0, 60, 60));
      ids.b2 = (await newImage(t.ctx, dsB, { name: 'b2', objects: cars })).id;
      await t.ctx.db.kysely.insertInto('image_tags').values({ image_id: ids.b1, tag_id: review, value: JSON.stringify('red') }).execute();
    });
    after(async () => t?.close());

    const names = async (query: string) => {
      const res = await t.request({ method: 'GET', url: `/v2/images?projectId=${project}&${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return json<Page>(res).items.map((i) => i.name);
    };
    const stats = async (query = '') => {
      const res = await t.request({ method: 'GET', url: `/v2/projects/${project}/stats?${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return json<Stats>(res);
    };

    test('classes combine with any, all and none', async () => {
      assert.deepEqual(await names(`classAny=${classIds.car},${classIds.person}`), ['a1', 'a3', 'b2']);
      assert.deepEqual(await names(`classAll=${classIds.car}&classAll=${classIds.person}`), ['a1']);
      assert.deepEqual(await names(`classNone=${classIds.car}`), ['a2', 'a3', 'b1']);
      assert.deepEqual(await names(`classAny[]=${classIds.tiny}`), ['b1']);
      const many = Array.from({ length: 101 }, () => classIds.car).join(',');
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?projectId=${project}&classAny=${many}` }), 400, 'VALIDATION');
      assert.deepEqual(await names(`classAny=${classIds.person}&classNone=${classIds.car}`), ['a3']);
    });

    test('images without objects, and an object count range', async () => {
      assert.deepEqual(await names('annotated=false'), ['a2']);
      assert.deepEqual(await names('maxObjects=0'), ['a2']);
      assert.deepEqual(await names('minObjects=2&maxObjects=3'), ['a1']);
      const res = await t.request({ method: 'GET', url: `/v2/images?projectId=${project}&classAny=${classIds.car}` });
      assert.deepEqual(json<Page>(res).items.map((i) => [i.name, i.objectCount]), [['a1', 3], ['b2', 5]]);
    });

    test('box bounds: each alone is exact, of one class or of any', async () => {
      // A car of 10 × 10 fits in 32 × 32; the cars of b2 are 60 × 60.
      assert.deepEqual(await names(`boxClassId=${classIds.car}&boxMaxSide=32`), ['a1']);
      assert.deepEqual(await names('boxMaxSide=32'), ['a1', 'b1']);
      assert.deepEqual(await names('boxMinArea=2000'), ['a1', 'b2']);
      assert.deepEqual(await names(`boxClassId=${classIds.person}&boxMinSide=35`), ['a3']);
      assert.deepEqual(await names('boxMaxArea=16'), ['b1']);
      // Bounds together are met by the class's objects on the image, not by one: a1's cars are 100 and 5,000 px².
      assert.deepEqual(await names(`boxClassId=${classIds.car}&boxMinArea=150&boxMaxArea=200`), ['a1']);
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?projectId=${project}&boxClassId=${classIds.car}` }), 400, 'VALIDATION');
    });

    test('tags, tag values and several datasets', async () => {
      assert.deepEqual(await names(`tagAny=${review}`), ['b1']);
      assert.deepEqual(await names(`tagNone=${review}&datasetIds=${dsB}`), ['b2']);
      assert.deepEqual(await names(`tagValue=${review}:red`), ['b1']);
      assert.deepEqual(await names(`tagValue=${review}:blue`), []);
      assert.deepEqual(await names(`datasetIds=${dsA}`), ['a1', 'a2', 'a3']);
      assert.deepEqual(await names(`datasetIds=${dsA},${dsB}&classAny=${classIds.tiny}`), ['b1']);
    });

    test('ids of another project are a 404', async () => {
      const other = await newProject(t.ctx, { title: 'other', classes: [{ title: 'car', shape: 'polygon' }] });
      const otherClass = await t.ctx.db.kysely.selectFrom('classes').select('id').where('project_id', '=', other).executeTakeFirstOrThrow();
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?projectId=${project}&classAny=${otherClass.id}` }), 404, 'NOT_FOUND');
      assertProblem(await t.request({ method: 'GET', url: `/v2/projects/${project}/stats?datasetIds=${await newDataset(t.ctx, other)}` }), 404, 'NOT_FOUND');
    });

    test('sorts by object count and newest first, paged by cursor and by offset', async () => {
      assert.deepEqual(await names('sort=-objects'), ['b2', 'a1', 'b1', 'a3', 'a2']);
      assert.deepEqual(await names('sort=objects'), ['a2', 'a3', 'b1', 'a1', 'b2']);
      assert.deepEqual(await names('sort=-id'), ['b2', 'b1', 'a3', 'a2', 'a1']);
      const seen: string[] = [];
      let url = `/v2/images?projectId=${project}&sort=-objects&limit=2`;
      for (;;) {
        const page = json<Page>(await t.request({ method: 'GET', url }));
        seen.push(...page.items.map((i) => i.name));
        if (!page.nextCursor) break;
        url = `/v2/images?projectId=${project}&sort=-objects&limit=2&cursor=${page.nextCursor}`;
      }
      assert.deepEqual(seen, ['b2', 'a1', 'b1', 'a3', 'a2']);
      assert.deepEqual(await names('sort=-objects&offset=2&limit=2'), ['b1', 'a3']);
      assert.deepEqual(await names(`sort=objects&classAny=${classIds.car},${classIds.tiny}&offset=1`), ['a1', 'b2']);
      const page = json<Page & { total: number }>(await t.request({ method: 'GET', url: `/v2/images?projectId=${project}&minObjects=1&count=true&limit=1` }));
      assert.equal(page.total, 4);
    });

    test('statistics of the whole project', async () => {
      const s = await stats();
      assert.equal(s.images, 5);
      assert.equal(s.objects, 10);
      assert.equal(s.imagesWithoutObjects, 1);
      const car = s.classes.find((c) => c.title === 'car')!;
      assert.deepEqual([car.images, car.objects], [2, 7]);
      assert.deepEqual(s.datasets.map((d) => [d.title, d.images, d.objects, d.imagesWithoutObjects]), [['A', 3, 4, 1], ['B', 2, 6, 0]]);
      assert.equal(s.objectsPerImage.length, 21);
      assert.deepEqual(s.objectsPerImage.slice(0, 6), [1, 2, 0, 1, 0, 1]);
      // Boxes by the side of a square of their area: 4 (tiny), 10 (car), 30 and 40 (people), 60 (five cars), 71 (the 100 × 50 car).
      assert.deepEqual(s.area.edges, [8, 16, 32, 64, 96, 128, 256, 512]);
      assert.deepEqual(s.area.counts, [1, 1, 1, 6, 1, 0, 0, 0, 0]);
      // Width ÷ height: the 100 × 50 car is 2, every other box square.
      assert.deepEqual(s.aspect.counts, [0, 0, 0, 9, 0, 1, 0]);
      const tiny = s.classes.find((c) => c.title === 'tiny')!;
      assert.equal(s.grid, 4);
      assert.equal(tiny.heatmap[0], 1, 'the tiny box sits in the top left cell');
      assert.deepEqual(s.imageSizes, [{ width: 64, height: 48, images: 4 }, { width: 200, height: 100, images: 1 }]);
    });

    test('statistics of a filter', async () => {
      const s = await stats(`datasetIds=${dsB}`);
      assert.deepEqual([s.images, s.objects], [2, 6]);
      assert.deepEqual(s.datasets.map((d) => d.title), ['B']);
      const person = await stats(`classAny=${classIds.person}`);
      assert.deepEqual([person.images, person.objects], [2, 4]);
      assert.equal(person.classes.find((c) => c.title === 'car')!.objects, 2);
    });

    test('the summary follows annotation saves and class deletes', async () => {
      const put = await t.request({ method: 'PUT', url: `/v2/images/${ids.a2}/annotation`, payload: { objects: [{ classTitle: 'car', points: { exterior: [[1, 1], [5, 1], [5, 5]] } }] } });
      assert.equal(put.statusCode, 200, put.body);
      assert.deepEqual(await names(`classAny=${classIds.car}`), ['a1', 'a2', 'b2']);
      assert.equal((await stats()).imagesWithoutObjects, 0);
      const removed = await t.request({ method: 'DELETE', url: `/v2/classes/${classIds.tiny}?cascade=true` });
      assert.ok(removed.statusCode < 300, removed.body);
      const s = await stats();
      assert.equal(s.classes.find((c) => c.title === 'tiny'), undefined);
      assert.deepEqual(await names('annotated=false'), ['b1']);
      assert.deepEqual(await names('maxObjects=0'), ['b1']);
    });

    test('objects of a title the project has no class of count in objectCount only', async () => {
      const other = await newProject(t.ctx, { title: 'loose' });
      const image = await newImage(t.ctx, await newDataset(t.ctx, other), { objects: [boxOf('ghost', 0, 0, 5, 5)] });
      const meta = json<Static<typeof ImageMetadata>>(await t.request({ method: 'GET', url: `/v2/images/${image.id}` }));
      assert.deepEqual([meta.objectCount, meta.objectCounts], [1, []]);
      const s = json<Stats>(await t.request({ method: 'GET', url: `/v2/projects/${other}/stats` }));
      assert.deepEqual([s.objects, s.classes, s.imagesWithoutObjects], [1, [], 0]);
    });

    test('the migration fills the summary of existing images', async () => {
      const db = t.ctx.db.kysely;
      const before = await stats(`datasetIds=${dsA},${dsB}`);
      await db.deleteFrom('image_classes').where('project_id', '=', project).execute();
      await db.updateTable('images').set({ object_count: 0 }).where('project_id', '=', project).execute();
      await backfillImageSummaries(db);
      assert.deepEqual(await stats(`datasetIds=${dsB},${dsA}`), before);
    });

    test('a total is the number of images listed, whether the running totals or a count answer it', async () => {
      const p = await newProject(t.ctx, { title: 'totals', classes: [{ title: 'car', shape: 'polygon' }, { title: 'dog', shape: 'polygon' }] });
      const [a, b, hidden] = [await newDataset(t.ctx, p, 'A'), await newDataset(t.ctx, p, 'B'), await newDataset(t.ctx, p, 'honeypot')];
      const boxes = (title: string, n: number) => Array.from({ length: n }, (_, i) => boxOf(title, i, i, 5, 5));
      // Object counts 0, 1, 3 and 25 (past the totals' cap of 20, which counts 20 and more together).
      await newImage(t.ctx, a, { name: 'none' });
      await newImage(t.ctx, a, { name: 'one car', objects: boxes('car', 1) });
      await newImage(t.ctx, b, { name: 'three', objects: [...boxes('car', 2), ...boxes('dog', 1)] });
      await newImage(t.ctx, b, { name: 'many dogs', objects: boxes('dog', 25) });
      await newImage(t.ctx, hidden, { name: 'hidden car', objects: boxes('car', 3) });
      await newImage(t.ctx, hidden, { name: 'hidden none' });
      await t.ctx.db.kysely.updateTable('datasets').set({ hidden: 1 }).where('id', '=', hidden).execute();
      const classOf = Object.fromEntries((await t.ctx.db.kysely.selectFrom('classes').select(['id', 'title']).where('project_id', '=', p).execute()).map((r) => [r.title, r.id]));
      const listed = async (query: string) => {
        const res = await t.request({ method: 'GET', url: `/v2/images?projectId=${p}&limit=1000&count=true&${query}` });
        assert.equal(res.statusCode, 200, res.body);
        const page = json<Page & { total: number }>(res);
        if (!query.includes('offset=')) assert.equal(page.total, page.items.length, query);
        return page.items.map((i) => i.name);
      };
      assert.deepEqual(await listed(`classAny=${classOf.car}`), ['one car', 'three']);
      assert.deepEqual(await listed(`classAll=${classOf.dog}`), ['three', 'many dogs']);
      assert.deepEqual(await listed(`classAny=${classOf.car},${classOf.dog}`), ['one car', 'three', 'many dogs']);
      assert.deepEqual(await listed(`classAny=${classOf.car}&datasetIds=${b}`), ['three']);
      assert.deepEqual(await listed(`classAny=${classOf.car}&datasetIds=${hidden}`), []);
      assert.deepEqual(await listed('maxObjects=0'), ['none']);
      assert.deepEqual(await listed('minObjects=1&maxObjects=1'), ['one car']);
      assert.deepEqual(await listed('minObjects=1&maxObjects=3'), ['one car', 'three']);
      assert.deepEqual(await listed('minObjects=3&maxObjects=0'), []);
      assert.deepEqual(await listed('minObjects=20'), ['many dogs']);
      assert.deepEqual(await listed('minObjects=21'), ['many dogs']);
      assert.deepEqual(await listed('minObjects=2&maxObjects=24'), ['three']);
      assert.deepEqual(await listed('minObjects=2&maxObjects=25'), ['three', 'many dogs']);
      assert.deepEqual(await listed(`minObjects=1&datasetIds=${a}`), ['one car']);
      // Every position of a sort is the image a whole list shows there.
      for (const sort of ['-objects', 'objects', 'name']) {
        const all = await listed(`sort=${sort}`);
        for (let offset = 1; offset < all.length; offset += 1) assert.deepEqual(await listed(`sort=${sort}&offset=${offset}`), all.slice(offset), `${sort} at ${offset}`);
      }
    });
  });
}
