// GET /annotations: the record each image reads back as, ordering, paging, dataset filters and team
// scoping, on both databases (each assembles the page's JSON text itself, so each is held to
// exactly what JSON.stringify would write).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { currentSnapshot } from '../../src/db/pg-snapshot.ts';
import { postgresAnnotationPage } from '../../src/repositories/annotations.repository.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon, tagImage } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface AnnotationRecord {
  imageId: number;
  data: { description: string; tags: string[]; name: string; size: { width: number; height: number }; objects: unknown[] };
}

for (const dialect of dialects) {
  describe(`GET /annotations on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let projectId: number;
    let city: number;
    let road: number;
    /** Image ids in creation (= id) order, alternating between the two datasets. */
    const ids: number[] = [];

    before(async () => {
      t = await startTestApp(dialect);
      projectId = await newProject(t.ctx, { team: 'alpha', title: 'streets', classes: [{ title: 'car', shape: 'polygon' }] });
      city = await newDataset(t.ctx, projectId, 'city');
      road = await newDataset(t.ctx, projectId, 'road');
      for (let i = 0; i < 5; i += 1) {
        const image = await newImage(t.ctx, i % 2 === 0 ? city : road, { name: `frame-${i}.png`, width: 10 + i, height: 20 + i });
        ids.push(image.id);
      }
    });
    after(async () => {
      await t?.close();
    });

    const get = async (query: string, key?: string) => t.request({ method: 'GET', url: `/v1/annotations?${query}`, ...(key ? { key } : {}) });
    const records = async (query: string, key?: string) => {
      const res = await get(query, key);
      assert.equal(res.statusCode, 200, res.body);
      return json<AnnotationRecord[]>(res);
    };

    test('a record carries the stored text exactly, with text that needs escaping', async () => {
      const awkward = 'quote " backslash \\ newline \n tab \t bell \u0007 snowman ☃ emoji 🚗 </script>';
      const objects = [
        { ...polygon('car', [[0.5, 1], [2.25, 3], [4, 5e-7]], ['occluded']), description: awkward },
        polygon('car', [[1, 1], [2, 2], [3, 1]]),
      ];
      const dataset = await newDataset(t.ctx, projectId, 'escapes');
      const image = await newImage(t.ctx, dataset, { name: `n "${awkward}".png`, description: awkward, width: 7, height: 9, objects });
      const sunny = await newTag(t.ctx, projectId, { title: 'sunny ☀ "quoted"' });
      const busy = await newTag(t.ctx, projectId, { title: 'busy' });
      await tagImage(t.ctx, image.id, busy);
      await tagImage(t.ctx, image.id, sunny);

      const res = await get(`projectId=${projectId}&datasetIds=${dataset}`);
      assert.equal(res.statusCode, 200, res.body);
      const expected = [
        {
          imageId: image.id,
          data: { description: awkward, tags: ['sunny ☀ "quoted"', 'busy'], name: `n "${awkward}".png`, size: { width: 7, height: 9 }, objects },
        },
      ];
      // Byte for byte: member order and escapes as JSON.stringify writes them, tags in tag id order.
      assert.equal(res.body, JSON.stringify(expected));
      assert.match(String(res.headers['content-type']), /^application\/json/);
    });

    test('records come in image id order across datasets, and pages are stable', async () => {
      const all = (await records(`projectId=${projectId}&datasetIds=${city},${road}`)).map((r) => r.imageId);
      assert.deepEqual(all, ids);
      const pages = [];
      for (let page = 1; page <= 3; page += 1) {
        pages.push((await records(`projectId=${projectId}&datasetIds=${city},${road}&perPage=2&page=${page}`)).map((r) => r.imageId));
      }
      assert.deepEqual(pages, [ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);
      assert.deepEqual(await records(`projectId=${projectId}&datasetIds=${city},${road}&perPage=2&page=4`), []);
      assert.deepEqual(await records(`projectId=${projectId}&page=1000`), []);
    });

    test('pages follow images removed between requests, by this server or by another process', async () => {
      const project = await newProject(t.ctx, { title: 'shifting' });
      const dataset = await newDataset(t.ctx, project, 'd');
      const mine: number[] = [];
      for (let i = 0; i < 6; i += 1) mine.push((await newImage(t.ctx, dataset)).id);
      const [a, b, c, d, e, f] = mine;
      const pageIds = async (page: number, filter = '') =>
        (await records(`projectId=${project}${filter}&perPage=2&page=${page}`)).map((r) => r.imageId);

      // Walked in order, then asked again: each page starts where the one before ended.
      for (let round = 0; round < 2; round += 1) {
        assert.deepEqual([await pageIds(1), await pageIds(2), await pageIds(3)], [[a, b], [c, d], [e, f]]);
      }
      assert.deepEqual(await pageIds(2, `&datasetIds=${dataset}`), [c, d]);
      assert.deepEqual(await records(`projectId=${project}&perPage=2&page=2`, t.otherKey), []);

      await t.ctx.db.kysely.deleteFrom('images').where('id', '=', b!).execute();
      assert.deepEqual([await pageIds(2), await pageIds(3)], [[d, e], [f]]);
      assert.deepEqual(await pageIds(2, `&datasetIds=${dataset}`), [d, e]);

      await t.inAnotherProcess((other) => other.db.kysely.deleteFrom('images').where('id', '=', d!).execute());
      // Latest page first, so no start is learnt afresh before it is asked for.
      assert.deepEqual([await pageIds(3), await pageIds(2), await pageIds(1)], [[], [e, f], [a, c]]);
    });

    test('a page asked for again shows every change to its records, by this server or by another process', async () => {
      const project = await newProject(t.ctx, { title: 'kept' });
      const dataset = await newDataset(t.ctx, project, 'd');
      const image = await newImage(t.ctx, dataset, { name: 'a.png', objects: [polygon('car', [[1, 1], [2, 2], [3, 1]])] });
      await newImage(t.ctx, dataset, { name: 'b.png' });
      const first = async () => (await records(`projectId=${project}&perPage=1`))[0]!.data;
      const again = async () => {
        const [one, two] = [await first(), await first()];
        assert.deepEqual(two, one);
        return one;
      };

      assert.equal((await again()).description, '');
      await t.ctx.db.kysely.updateTable('images').set({ description: 'checked' }).where('id', '=', image.id).execute();
      assert.equal((await again()).description, 'checked');

      const tag = await newTag(t.ctx, project, { title: 'night' });
      await tagImage(t.ctx, image.id, tag);
      assert.deepEqual((await again()).tags, ['night']);

      await t.inAnotherProcess((other) => other.db.kysely.updateTable('project_tags').set({ title: 'dusk' }).where('id', '=', tag).execute());
      assert.deepEqual((await again()).tags, ['dusk']);

      await t.inAnotherProcess((other) => other.db.kysely.updateTable('images').set({ objects_json: '[]' }).where('id', '=', image.id).execute());
      assert.deepEqual((await again()).objects, []);
    });

    test('on PostgreSQL a kept start is used while the snapshot it was learnt in holds, and only then', { skip: dialect.name !== 'postgres' }, async () => {
      const project = await newProject(t.ctx, { title: 'snapshots' });
      const dataset = await newDataset(t.ctx, project, 'd');
      const [a, , c] = [await newImage(t.ctx, dataset), await newImage(t.ctx, dataset), await newImage(t.ctx, dataset)];
      const teamId = await ensureTeam(t.ctx.db.kysely, 'alpha');
      const query = { projectId: project, limit: 1, offset: 0 };
      // A start that is deliberately not where offset 0 starts shows whether it was used.
      const firstWith = async (snapshot: string) => (await postgresAnnotationPage(t.ctx.db, teamId, query, { id: c!.id, snapshot })).firstId;

      // Other databases of the server may commit in between; a quiet moment comes soon.
      let used = false;
      for (let attempt = 0; attempt < 20 && !used; attempt += 1) used = (await firstWith(await currentSnapshot(t.ctx.db.kysely))) === c!.id;
      assert.ok(used, 'a start kept in the current snapshot was not used');

      const before = await currentSnapshot(t.ctx.db.kysely);
      await t.ctx.db.kysely.updateTable('images').set({ description: 'moved on' }).where('id', '=', a!.id).execute();
      assert.equal(await firstWith(before), a!.id);
    });

    test('a record reports the name and the size of its image', async () => {
      const [first] = await records(`projectId=${projectId}&perPage=1`);
      assert.deepEqual(first, { imageId: ids[0], data: { description: '', tags: [], name: 'frame-0.png', size: { width: 10, height: 20 }, objects: [] } });
    });

    test('datasetIds filters in each array form', async () => {
      const cityIds = [ids[0], ids[2], ids[4]];
      for (const form of [`datasetIds=${city}`, `datasetIds[]=${city}`, `datasetIds=${city}&datasetIds=${city}`]) {
        assert.deepEqual((await records(`projectId=${projectId}&${form}`)).map((r) => r.imageId), cityIds, form);
      }
      assert.deepEqual((await records(`projectId=${projectId}&datasetIds[]=${road}&datasetIds[]=${city}`)).map((r) => r.imageId).slice(0, 5), ids);
    });

    test('another team’s project or dataset matches nothing', async () => {
      assert.deepEqual(await records(`projectId=${projectId}`, t.otherKey), []);
      const theirs = await newProject(t.ctx, { team: 'beta', title: 'theirs' });
      const theirDataset = await newDataset(t.ctx, theirs, 'd');
      await newImage(t.ctx, theirDataset);
      assert.deepEqual(await records(`projectId=${theirs}`), []);
      assert.deepEqual(await records(`projectId=${projectId}&datasetIds=${theirDataset}`), []);
      assert.equal((await records(`projectId=${theirs}`, t.otherKey)).length, 1);
    });

    test('bad paging and a missing projectId are 400 with the contract body', async () => {
      for (const query of ['', `projectId=${projectId}&page=0`, `projectId=${projectId}&perPage=0`, `projectId=${projectId}&perPage=1001`, 'projectId=abc']) {
        const res = await get(query);
        assert.equal(res.statusCode, 400, query);
        const body = json<{ error: string; details: { message: string } }>(res);
        assert.equal(body.error, 'VALIDATION', query);
        assert.ok(body.details.message.length > 0);
      }
    });
  });
}
