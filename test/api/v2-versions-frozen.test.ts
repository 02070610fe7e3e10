// A property of versions on both databases: whatever edits follow (annotations replaced, some to the
// same content as another image's, descriptions, names, image tags, classes renamed, images deleted
// and added), and whatever the revisions' retention removes, every version made before them reads
// exactly as it did when it was made: its resource, its images page by page, and the diff between
// any two of them. The edits are drawn from a seeded generator, so a failure repeats.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { mulberry32 } from '../../src/seeded-random.ts';
import { expireRevisions } from '../../src/services/annotation-revisions.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon, tagImage } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import type { List } from '../helpers/v2.ts';

const STEPS = 60;
const VERSION_EVERY = 8;
const SEED = 20_261_129;

interface Frozen {
  id: number;
  resource: unknown;
  images: unknown[];
}

for (const dialect of dialects) {
  describe(`versions never change on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let projectId: number;
    let datasetId: number;
    let tagId: number;
    const live: number[] = [];

    before(async () => {
      t = await startTestApp(dialect);
      projectId = await newProject(t.ctx, { title: 'frozen', classes: [{ title: 'car', shape: 'polygon' }, { title: 'person', shape: 'polygon' }] });
      datasetId = await newDataset(t.ctx, projectId, 'all');
      tagId = await newTag(t.ctx, projectId, { title: 'night' });
      for (let i = 0; i < 12; i += 1) live.push((await newImage(t.ctx, datasetId, { name: `f${i}.png`, objects: i % 3 === 0 ? [] : [polygon('car', [[i, 0], [i + 4, 0], [i + 4, 4]])] })).id);
    });
    after(async () => t?.close());

    const read = async (versionId: number): Promise<Omit<Frozen, 'id'>> => {
      const resource = json(await t.request({ method: 'GET', url: `/v2/versions/${versionId}` }));
      const images: unknown[] = [];
      for (let cursor: string | null = ''; cursor !== null; ) {
        const res = await t.request({ method: 'GET', url: `/v2/versions/${versionId}/images?limit=5${cursor ? `&cursor=${cursor}` : ''}` });
        assert.equal(res.statusCode, 200, res.body);
        const page = json<List<unknown>>(res);
        images.push(...page.items);
        cursor = page.nextCursor;
      }
      return { resource, images };
    };
    const diff = async (from: number, to: number) => json(await t.request({ method: 'GET', url: `/v2/versions/${to}/diff?from=${from}` }));

    test('a version copies no annotation: it names each by the hash of its content, stored once for equal contents', async () => {
      const db = t.ctx.db.kysely;
      const empty = await newImage(t.ctx, datasetId, { name: 'empty-a.png' });
      const alsoEmpty = await newImage(t.ctx, datasetId, { name: 'empty-b.png' });
      const hashes = await db.selectFrom('images').select(['id', 'annotation_hash']).where('id', 'in', [empty.id, alsoEmpty.id]).execute();
      assert.equal(hashes.length, 2);
      assert.ok(hashes[0]!.annotation_hash);
      assert.equal(hashes[0]!.annotation_hash, hashes[1]!.annotation_hash, 'equal contents, one hash');
      const snapshots = async () => Number((await db.selectFrom('annotation_snapshots').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const stored = await snapshots();
      const res = await t.request({ method: 'POST', url: `/v2/projects/${projectId}/versions`, payload: { name: 'by hash' } });
      assert.equal(res.statusCode, 201, res.body);
      const versionId = json<{ id: number }>(res).id;
      assert.equal(await snapshots(), stored, 'a version stores no snapshot');
      const rows = await db.selectFrom('version_images').innerJoin('images', 'images.id', 'version_images.image_id').select(['version_images.annotation_hash as frozen', 'images.annotation_hash as current']).where('version_id', '=', versionId).execute();
      assert.ok(rows.length > 0 && rows.every((r) => r.frozen === r.current));
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/versions/${versionId}` })).statusCode, 204);
      for (const id of [empty.id, alsoEmpty.id]) assert.equal((await t.request({ method: 'DELETE', url: `/v2/images/${id}` })).statusCode, 204);
    });

    test('edits after a version never change it, nor the diff between versions', async () => {
      const random = mulberry32(SEED);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      // A small pool of annotations, so that images often share a content (and its hash).
      const pool = [[], [polygon('car', [[1, 1], [5, 1], [5, 5]])], [polygon('person', [[2, 2], [6, 2], [6, 6]]), polygon('car', [[0, 0], [3, 0], [3, 3]])]];
      const frozen: Frozen[] = [];
      const diffs = new Map<string, unknown>();
      let classTitles = ['car', 'person'];

      for (let step = 0; step < STEPS; step += 1) {
        if (step % VERSION_EVERY === 0) {
          const res = await t.request({ method: 'POST', url: `/v2/projects/${projectId}/versions`, payload: { name: `v${step}`, split: { method: 'random', ratios: { train: 2, val: 1 }, seed: step, stratify: true } } });
          assert.equal(res.statusCode, 201, res.body);
          const id = json<{ id: number }>(res).id;
          frozen.push({ id, ...(await read(id)) });
          if (frozen.length > 1) diffs.set(`${frozen.at(-2)!.id}-${id}`, await diff(frozen.at(-2)!.id, id));
        }
        const imageId = pick(live);
        const what = Math.floor(random() * 7);
        if (what === 0 || what === 1) {
          const objects = pick(pool).map((o) => ({ ...o, classTitle: pick(classTitles) }));
          const res = await t.request({ method: 'PUT', url: `/v2/images/${imageId}/annotation`, payload: { objects, description: random() < 0.5 ? '' : `step ${step}` } });
          assert.equal(res.statusCode, 200, res.body);
        } else if (what === 2) {
          const res = await t.request({ method: 'PATCH', url: `/v2/images/${imageId}`, payload: { description: `described at ${step}`, name: `n${step}.png` } });
          assert.equal(res.statusCode, 200, res.body);
        } else if (what === 3) {
          await tagImage(t.ctx, imageId, tagId).catch(() => undefined);
        } else if (what === 4) {
          const classes = json<List<{ id: number; title: string }>>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/classes` })).items;
          const c = pick(classes);
          const title = `${c.title.split('-')[0]}-${step}`;
          assert.equal((await t.request({ method: 'PATCH', url: `/v2/classes/${c.id}`, payload: { title } })).statusCode, 200);
          classTitles = classTitles.map((x) => (x === c.title ? title : x));
        } else if (what === 5 && live.length > 4) {
          assert.equal((await t.request({ method: 'DELETE', url: `/v2/images/${imageId}` })).statusCode, 204);
          live.splice(live.indexOf(imageId), 1);
        } else {
          live.push((await newImage(t.ctx, datasetId, { name: `new${step}.png`, objects: pick(pool).map((o) => ({ ...o, classTitle: pick(classTitles) })) })).id);
        }
        // The retention of revisions removes what no one names, and never a version's content.
        if (step % 10 === 9) await expireRevisions(t.ctx, new Date(Date.now() + t.config.operations.revisionRetentionMs + 60_000));

        for (const f of frozen) assert.deepEqual(await read(f.id), { resource: f.resource, images: f.images }, `version ${f.id} after step ${step} (edit ${what})`);
      }
      for (const [pair, expected] of diffs) {
        const [from, to] = pair.split('-').map(Number) as [number, number];
        assert.deepEqual(await diff(from, to), expected, `diff ${pair}`);
      }
      assert.ok(frozen.length >= STEPS / VERSION_EVERY);
    });
  });
}
