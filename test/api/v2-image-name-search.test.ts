// The name search of image lists (`nameContains`): a substring anywhere in the name, without regard to
// case, Unicode case too; with every other filter, both sorts and paging; kept in step with renames,
// moves, copies and deletes. On both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Static } from 'typebox';
import type { ImageMetadata } from '../../src/http/schemas/v2-images.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { type List, assertProblem } from '../helpers/v2.ts';

type Page = List<Static<typeof ImageMetadata>>;

const SQUARE: [number, number][] = [[1, 1], [9, 1], [9, 9], [1, 9], [1, 1]];

for (const dialect of dialects) {
  describe(`image name search on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(async () => t?.close());

    const list = (query: string) => t.request({ method: 'GET', url: `/v2/images?${query}` });
    const names = async (query: string) => {
      const res = await list(query);
      assert.equal(res.statusCode, 200, res.body);
      return json<Page>(res).items.map((i) => i.name);
    };
    const search = (scope: string, text: string, more = '') => names(`${scope}&nameContains=${encodeURIComponent(text)}&sort=name${more}`);

    /** A dataset of images of these names, in this order. */
    async function datasetOf(imageNames: string[]): Promise<{ project: number; dataset: number }> {
      const project = await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }] });
      const dataset = await newDataset(t.ctx, project);
      for (const name of imageNames) await newImage(t.ctx, dataset, { name });
      return { project, dataset };
    }

    test('a substring anywhere in the name, whatever its case', async () => {
      const { dataset } = await datasetOf(['clip-mp4-1-frame.png', 'MP4-10.png', 'mp4-2.png', 'xmp4-1', 'mp4.png', 'other.png']);
      const scope = `datasetId=${dataset}`;
      assert.deepEqual(await search(scope, 'mp4-1'), ['MP4-10.png', 'clip-mp4-1-frame.png', 'xmp4-1']);
      assert.deepEqual(await search(scope, 'MP4-1'), ['MP4-10.png', 'clip-mp4-1-frame.png', 'xmp4-1']);
      assert.deepEqual(await search(scope, '-FRAME.PNG'), ['clip-mp4-1-frame.png']);
      assert.deepEqual(await search(scope, 'clip-mp4-1-frame.png'), ['clip-mp4-1-frame.png'], 'the whole name');
      assert.deepEqual(await search(scope, 'mp4-1-frame.png!'), [], 'longer than any name');
      assert.deepEqual(await search(scope, 'nothing'), []);
    });

    test('Unicode case folds both ways; accents count', async () => {
      const { dataset } = await datasetOf(['CAFÉ-1.jpg', 'café-2.jpg', 'cafe-3.jpg', 'ΣΊΣΥΦΟΣ.png', 'Größe.png']);
      const scope = `datasetId=${dataset}`;
      assert.deepEqual(await search(scope, 'café'), ['CAFÉ-1.jpg', 'café-2.jpg']);
      assert.deepEqual(await search(scope, 'CAFÉ'), ['CAFÉ-1.jpg', 'café-2.jpg']);
      assert.deepEqual(await search(scope, 'cafe'), ['cafe-3.jpg'], 'café is not cafe');
      assert.deepEqual(await search(scope, 'σίσυ'), ['ΣΊΣΥΦΟΣ.png']);
      assert.deepEqual(await search(scope, 'GRÖ'), ['Größe.png']);
    });

    test('texts shorter than three characters match the same way', async () => {
      const { dataset } = await datasetOf(['CAFÉ.jpg', 'abc.png', 'xyz.png', 'é', 'Ab']);
      const scope = `datasetId=${dataset}`;
      assert.deepEqual(await search(scope, 'é'), ['CAFÉ.jpg', 'é']);
      assert.deepEqual(await search(scope, 'FÉ'), ['CAFÉ.jpg']);
      assert.deepEqual(await search(scope, 'ab'), ['Ab', 'abc.png']);
      assert.deepEqual(await search(scope, 'Z'), ['xyz.png']);
      assert.deepEqual(await search(scope, 'ab', '&count=true&limit=1'), ['Ab']);
      assert.equal(json<Page>(await list(`${scope}&nameContains=ab&count=true&limit=1`)).total, 2);
    });

    test('%, _, \\ and " are plain characters', async () => {
      const { dataset } = await datasetOf(['100%_done.png', '100x-done.png', 'a_b.png', 'axb.png', 'back\\slash.png', 'say "hi".png', 'say hi.png']);
      const scope = `datasetId=${dataset}`;
      assert.deepEqual(await search(scope, '%'), ['100%_done.png']);
      assert.deepEqual(await search(scope, '0%_d'), ['100%_done.png']);
      assert.deepEqual(await search(scope, '_'), ['100%_done.png', 'a_b.png']);
      assert.deepEqual(await search(scope, 'a_b'), ['a_b.png']);
      assert.deepEqual(await search(scope, 'k\\s'), ['back\\slash.png']);
      assert.deepEqual(await search(scope, '"hi"'), ['say "hi".png']);
      assert.deepEqual(await search(scope, 'y "'), ['say "hi".png']);
      assert.deepEqual(await search(scope, 'hi OR say'), [], 'no query syntax');
    });

    test('with the other filters, the total, and paging by id and by name', async () => {
      const project = await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }] });
      const one = await newDataset(t.ctx, project, 'one');
      const two = await newDataset(t.ctx, project, 'two');
      const tag = await newTag(t.ctx, project, { title: 'night' });
      const car = await t.ctx.db.kysely.selectFrom('classes').select('id').where('project_id', '=', project).executeTakeFirstOrThrow();
      const expected: string[] = [];
      for (let i = 0; i < 9; i += 1) {
        const name = `Drive_${i % 2 ? 'CAM' : 'cam'}_${String(9 - i).padStart(2, '0')}.png`;
        const image = await newImage(t.ctx, i < 5 ? one : two, { name, objects: i % 3 === 0 ? [polygon('car', SQUARE)] : [] });
        if (i % 4 === 0) await t.ctx.db.kysely.insertInto('image_tags').values({ image_id: image.id, tag_id: tag, value: null }).execute();
        expected.push(name);
        await newImage(t.ctx, i < 5 ? one : two, { name: `other_${i}.png` });
      }
      const scope = `projectId=${project}&nameContains=_cam_`;
      assert.deepEqual(await names(scope), expected);
      assert.deepEqual(await names(`${scope}&sort=name`), [...expected].sort());
      assert.deepEqual(await names(`datasetId=${two}&nameContains=_CAM_`), expected.slice(5));
      assert.deepEqual(await names(`${scope}&classId=${car.id}`), [expected[0], expected[3], expected[6]]);
      assert.deepEqual(await names(`${scope}&tagId=${tag}`), [expected[0], expected[4], expected[8]]);
      assert.deepEqual(await names(`${scope}&annotated=false&tagId=${tag}`), [expected[4], expected[8]]);
      assert.deepEqual(await names(`${scope}&namePrefix=Drive_CAM`), expected.filter((n) => n.startsWith('Drive_CAM')));
      assert.equal(json<Page>(await list(`${scope}&count=true&limit=1`)).total, 9);

      for (const sort of ['id', 'name'] as const) {
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let pages = 0; pages < 10; pages += 1) {
          const page: Page = json<Page>(await list(`${scope}&sort=${sort}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
          seen.push(...page.items.map((i) => i.name));
          cursor = page.nextCursor;
          if (!cursor) break;
        }
        assert.deepEqual(seen, sort === 'id' ? expected : [...expected].sort(), `pages by ${sort}`);
      }
    });

    test('renames, moves, copies and deletes are found at once', async () => {
      const { project, dataset } = await datasetOf(['alpha.png', 'beta.png']);
      const other = await newDataset(t.ctx, project, 'other');
      const [alpha, beta] = json<Page>(await list(`datasetId=${dataset}`)).items;
      const patch = (id: number, payload: object) => t.request({ method: 'PATCH', url: `/v2/images/${id}`, payload });
      const scope = `projectId=${project}`;

      assert.equal((await patch(alpha!.id, { name: 'GAMMA-ray.png' })).statusCode, 200);
      assert.deepEqual(await search(scope, 'alpha'), []);
      assert.deepEqual(await search(scope, 'gamma'), ['GAMMA-ray.png']);
      assert.equal((await patch(alpha!.id, { datasetId: other })).statusCode, 200);
      assert.deepEqual(await search(`datasetId=${other}`, 'ray'), ['GAMMA-ray.png']);
      assert.deepEqual(await search(`datasetId=${dataset}`, 'ray'), []);
      const copied = await t.request({ method: 'POST', url: `/v2/images/${beta!.id}/copy`, payload: { datasetId: other, name: 'beta-copy.png' } });
      assert.equal(copied.statusCode, 201, copied.body);
      assert.deepEqual(await search(scope, 'BETA'), ['beta-copy.png', 'beta.png']);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/images/${beta!.id}` })).statusCode, 204);
      assert.deepEqual(await search(scope, 'beta'), ['beta-copy.png']);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/datasets/${other}` })).statusCode, 204);
      assert.deepEqual(await search(scope, 'a'), []);
    });

    test('bad input is a problem', async () => {
      const { dataset } = await datasetOf(['a.png']);
      assertProblem(await list(`datasetId=${dataset}&nameContains=`), 400, 'VALIDATION', { label: 'empty' });
      assertProblem(await list(`datasetId=${dataset}&nameContains=${'x'.repeat(1025)}`), 400, 'VALIDATION', { label: 'too long' });
    });
  });
}
