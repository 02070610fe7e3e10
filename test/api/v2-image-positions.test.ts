// GET /v2/images?offset=…: a page that starts at a position of the list, as a gallery's scrollbar
// asks for it, on both databases: the same images as walking the cursors there, for datasets and
// projects, by id (through the id blocks' counts) and by name or filtered (by OFFSET), and the counts
// kept right by inserts, moves and deletes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Static } from 'typebox';
import type { ImageMetadata } from '../../src/http/schemas/v2-images.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { type List, assertProblem } from '../helpers/v2.ts';

type Page = List<Static<typeof ImageMetadata>>;

for (const dialect of dialects) {
  describe(`v2 image positions on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let project: number;
    let first: number;
    let second: number;
    before(async () => {
      t = await startTestApp(dialect);
      project = await newProject(t.ctx, { title: 'positions' });
      first = await newDataset(t.ctx, project, 'first');
      second = await newDataset(t.ctx, project, 'second');
      // Ids far apart (several blocks of 4,096 ids), the two datasets interleaved, names out of id order.
      const template = await newImage(t.ctx, first, { name: 'template.png' });
      const stored = await t.ctx.db.kysely.selectFrom('images').selectAll().where('id', '=', template.id).executeTakeFirstOrThrow();
      const row = { ...stored, size: Number(stored.size) };
      const rows = Array.from({ length: 90 }, (_, k) => ({
        ...row,
        id: 50_000_000 + k * 997 + (k % 7) * 13,
        dataset_id: k % 3 === 0 ? second : first,
        name: `n${String((k * 37) % 90).padStart(2, '0')}.png`,
      }));
      await t.ctx.db.kysely.insertInto('images').values(rows).execute();
      // Another project's images in the same blocks count for nothing here.
      const otherProject = await newProject(t.ctx, { title: 'elsewhere' });
      const elsewhere = await newDataset(t.ctx, otherProject);
      await t.ctx.db.kysely
        .insertInto('images')
        .values(Array.from({ length: 20 }, (_, k) => ({ ...row, id: 50_000_500 + k * 2001, dataset_id: elsewhere, project_id: otherProject, name: `e${k}.png` })))
        .execute();
    });
    after(async () => t?.close());

    const list = async (query: string): Promise<Page> => {
      const res = await t.request({ method: 'GET', url: `/v2/images?${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return json<Page>(res);
    };
    /** Every id of the list, walked by its cursors. */
    const walk = async (query: string): Promise<number[]> => {
      const ids: number[] = [];
      let cursor: string | null = null;
      do {
        const page: Page = await list(`${query}&limit=13${cursor ? `&cursor=${cursor}` : ''}`);
        ids.push(...page.items.map((i) => i.id));
        cursor = page.nextCursor;
      } while (cursor);
      return ids;
    };

    test('a page at an offset holds the images a walk by cursor finds there, and continues by its cursor', async () => {
      for (const scope of [`datasetId=${first}`, `datasetId=${second}`, `projectId=${project}`]) {
        for (const sort of ['id', 'name']) {
          for (const filter of ['', '&namePrefix=n1', '&nameContains=1']) {
            const query = `${scope}&sort=${sort}${filter}`;
            const all = await walk(query);
            assert.ok(all.length >= 3, query);
            for (const offset of [0, 1, 2, Math.floor(all.length / 2), all.length - 3, all.length - 1, all.length, all.length + 5]) {
              const page = await list(`${query}&offset=${offset}&limit=4&count=true`);
              assert.deepEqual(page.items.map((i) => i.id), all.slice(offset, offset + 4), `${query} at ${offset}`);
              assert.equal(page.total, all.length, `${query} total`);
              if (offset + 4 < all.length) {
                assert.ok(page.nextCursor, `${query} at ${offset} has a next page`);
                const next = await list(`${query}&cursor=${page.nextCursor}&limit=4`);
                assert.deepEqual(next.items.map((i) => i.id), all.slice(offset + 4, offset + 8), `${query} after ${offset}`);
              } else {
                assert.equal(page.nextCursor, null, `${query} at ${offset} is the last page`);
              }
            }
          }
        }
      }
    });

    test('the positions follow inserts, moves to another dataset and deletes', async () => {
      const before = await walk(`projectId=${project}`);
      const added = await newImage(t.ctx, second, { name: 'late.png' });
      const moved = before[10]!;
      const res = await t.request({ method: 'PATCH', url: `/v2/images/${moved}`, payload: { datasetId: second } });
      assert.equal(res.statusCode, 200, res.body);
      const gone = before[20]!;
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/images/${gone}` })).statusCode, 204);
      for (const scope of [`datasetId=${first}`, `datasetId=${second}`, `projectId=${project}`]) {
        const all = await walk(scope);
        assert.ok(scope.startsWith('project') ? all.includes(added.id) && !all.includes(gone) : true);
        for (let offset = 0; offset < all.length; offset += 5) {
          const page = await list(`${scope}&offset=${offset}&limit=5&count=true`);
          assert.deepEqual(page.items.map((i) => i.id), all.slice(offset, offset + 5), `${scope} at ${offset}`);
          assert.equal(page.total, all.length, `${scope} total`);
        }
      }
      // A deleted dataset's images leave the project's positions.
      const third = await newDataset(t.ctx, project, 'third');
      await newImage(t.ctx, third);
      const withThird = await walk(`projectId=${project}`);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/datasets/${third}` })).statusCode, 204);
      const left = await walk(`projectId=${project}`);
      assert.equal(left.length, withThird.length - 1);
      for (const offset of [0, left.length - 2]) {
        const page = await list(`projectId=${project}&offset=${offset}&limit=5&count=true`);
        assert.equal(page.total, left.length);
        assert.deepEqual(page.items.map((i) => i.id), left.slice(offset, offset + 5));
      }
    });

    test('an offset with a cursor, or out of range, is a 400; another team’s dataset a 404', async () => {
      const page = await list(`datasetId=${first}&limit=2`);
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?datasetId=${first}&offset=3&cursor=${page.nextCursor}` }), 400, 'VALIDATION');
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?datasetId=${first}&offset=-1` }), 400, 'VALIDATION');
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?datasetId=${first}&offset=1000000001` }), 400, 'VALIDATION');
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?datasetId=${first}&offset=x` }), 400, 'VALIDATION');
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?datasetId=${first}&offset=3`, key: t.otherKey }), 404, 'NOT_FOUND');
    });
  });
}
