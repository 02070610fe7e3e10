// An import whose annotation files are prepared on annotation threads stores exactly what an import
// on the task's own thread stores: the same project imported both ways, on fresh databases, reads
// back byte for byte the same, with the same warnings.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { decodeContent, encodeContent } from '../../src/formats/annotation-snapshot.ts';
import type { TaskRunner } from '../../src/tasks/runner.ts';
import { dialects } from '../helpers/dialects.ts';
import { type ProjectFile, startImportRunner, uploadProject, waitForTask } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const meta = {
  classes: [
    { title: 'car', shape: 'polygon', color: '#FF0000' },
    { title: 'sign', shape: 'rectangle', color: '#00FF00' },
  ],
  tags: [
    { name: 'weather', value_type: 'any_string', color: '#000000' },
    { name: 'occluded', value_type: 'none', color: '#000000', applicable_type: 'objectsOnly' },
  ],
};
const asJson = (value: unknown) => Buffer.from(JSON.stringify(value));

/**
 * 40 images in two datasets; every seventh annotation has a polygon of two points, so it fails, and
 * every fourth has no tags.
 */
async function project(): Promise<ProjectFile[]> {
  const files: ProjectFile[] = [{ path: 'meta.json', type: 'class', content: asJson(meta) }];
  for (let i = 0; i < 40; i += 1) {
    const dataset = i % 2 === 0 ? 'north' : 'south';
    const name = `frame-${String(i).padStart(3, '0')}.png`;
    files.push({ path: `${dataset}/img/${name}`, type: 'image', content: await pngImage(20 + i, 10 + i, 7000 + i) });
    const exterior = i % 7 === 3 ? [[1, 1], [2, 2]] : [[1, 1], [9.5, 1], [9.5, 8.25], [1, 8.25]];
    files.push({
      path: `${dataset}/ann/${name}.json`,
      type: 'annotation',
      content: asJson({
        description: `image ${i} ☃`,
        // Every fourth image has no tag at all, nor has its car.
        tags: i % 4 === 2 ? [] : [{ name: 'weather', value: i % 3 === 0 ? 'rain' : 'sun' }],
        size: { width: 20 + i, height: 10 + i },
        objects: [
          { classTitle: 'car', description: 'a "car"', tags: i % 2 ? [{ name: 'occluded', value: null }] : [], bitmap: null, points: { exterior, interior: [] } },
          { classTitle: 'sign', description: '', tags: [], bitmap: null, points: { exterior: [[8, 6], [2, 3]], interior: [] } },
        ],
      }),
    });
  }
  return files;
}

/** The rows an import derives from its annotations, by image name and class title (ids differ between databases). */
async function derivedRows(t: TestApp, projectId: number) {
  const db = t.ctx.db.kysely;
  const images = await db
    .selectFrom('images')
    .leftJoin('annotation_snapshots', 'annotation_snapshots.hash', 'images.annotation_hash')
    .select(['images.name', 'images.annotation_hash', 'images.object_count', 'images.description', 'images.objects_json', 'images.object_tag_values', 'annotation_snapshots.body'])
    .where('images.project_id', '=', projectId)
    .orderBy('images.name')
    .execute();
  const classes = await db
    .selectFrom('image_classes')
    .innerJoin('images', 'images.id', 'image_classes.image_id')
    .innerJoin('classes', 'classes.id', 'image_classes.class_id')
    .selectAll('image_classes')
    .select(['images.name', 'classes.title'])
    .where('images.project_id', '=', projectId)
    .orderBy('images.name')
    .orderBy('classes.title')
    .execute();
  const totals = await db
    .selectFrom('dataset_class_totals')
    .innerJoin('classes', 'classes.id', 'dataset_class_totals.class_id')
    .innerJoin('datasets', 'datasets.id', 'dataset_class_totals.dataset_id')
    .selectAll('dataset_class_totals')
    .select(['classes.title', 'datasets.title as dataset'])
    .where('dataset_class_totals.project_id', '=', projectId)
    .execute();
  const byKey = new Map<string, Record<string, unknown>>();
  for (const row of totals) {
    // PostgreSQL spreads a dataset's totals over stripes: summed here.
    const sums: Record<string, unknown> = { ...row };
    for (const id of ['dataset_id', 'class_id', 'project_id', 'stripe']) delete sums[id];
    const key = `${String(sums.dataset)}/${String(sums.title)}`;
    const sum = byKey.get(key);
    if (!sum) byKey.set(key, sums);
    else for (const [k, v] of Object.entries(sums)) if (typeof v === 'number' || typeof v === 'string') sum[k] = k === 'dataset' || k === 'title' ? v : Number(sum[k]) + Number(v);
  }
  return {
    images: images.map(({ body, ...image }) => ({
      ...image,
      snapshot: body ? decodeContent(Buffer.from(body)) : null,
      hashOfStored: encodeContent({ description: image.description, objectsJson: image.objects_json, objectIds: null, objectTagValues: image.object_tag_values }).hash,
    })),
    classes: classes.map(({ image_id: _i, class_id: _c, project_id: _p, ...row }) => row),
    totals: [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, sums]) => ({ key, ...Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, k === 'dataset' || k === 'title' ? v : Number(v)])) })),
  };
}

for (const dialect of dialects) {
  describe(`annotation threads on ${dialect.name}`, { skip: dialect.skip }, () => {
    const apps: { t: TestApp; runner: TaskRunner }[] = [];
    before(async () => {
      const { tasks } = loadConfig({});
      for (const threads of [2, 0]) {
        const t = await startTestApp(dialect, { tasks: { ...tasks, importBatchSize: 7, importThreads: threads, importThreadMinImages: 0 } });
        apps.push({ t, runner: startImportRunner(t) });
      }
    });
    after(async () => {
      for (const { t, runner } of apps) {
        await runner.stop();
        await t.close();
      }
    });

    test('the same project imported with and without threads reads back the same', async () => {
      const files = await project();
      const outcomes = [];
      for (const { t } of apps) {
        const refs = await uploadProject(t, files);
        const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'Both ways' }, preset: 1, onConflict: 'ignore', files: refs } });
        assert.equal(res.statusCode, 200, res.body);
        const task = await waitForTask(t, json<{ taskId: number }>(res).taskId);
        assert.equal(task.status, 'finished', JSON.stringify(task.meta));
        const projectId = task.meta.project.id as number;
        const page = await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` });
        assert.equal(page.statusCode, 200);
        outcomes.push({ meta: { imported: task.meta.imported, failed: task.meta.failed, warnings: task.meta.warnings }, page: page.body, derived: await derivedRows(t, projectId) });
      }
      const [threaded, inline] = outcomes;
      assert.deepEqual(threaded!.meta, inline!.meta);
      assert.equal(threaded!.meta.imported, 34);
      assert.equal(threaded!.meta.failed, 6);
      assert.match(threaded!.meta.warnings[0].message, /^annotation: objects\[0\]\.points\.exterior: a polygon needs at least 3 points/);
      assert.equal(threaded!.page, inline!.page);
      // What the threads derive (content snapshots, class summaries, running totals) is what the
      // task's thread derives, and the hash names the content as stored.
      assert.deepEqual(threaded!.derived, inline!.derived);
      for (const image of threaded!.derived.images) assert.equal(image.annotation_hash, image.hashOfStored, image.name);
      assert.equal(threaded!.derived.classes.length, 34 * 2, "a car and a sign on every image imported");
      const records = JSON.parse(threaded!.page) as { data: { tags: string[]; objects: { tags: string[]; points: { exterior: number[][] } }[] } }[];
      assert.equal(records.length, 34);
      assert.deepEqual(records[1]!.data.objects[1]!.points.exterior, [[2, 3], [8, 6]], 'rectangle corners put in order');
    });

    test('an annotation file gone from the store fails its import, and the threads go on with the next', async () => {
      const { t } = apps[0]!;
      const files = await project();
      const refs = await uploadProject(t, files);
      const gonePath = 'north/ann/frame-030.png.json';
      await t.ctx.blobs.delete(createHash('sha256').update(files.find((f) => f.path === gonePath)!.content).digest('base64'));
      const start = async (title: string, list: typeof refs) => {
        const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title }, preset: 1, onConflict: 'ignore', files: list } });
        assert.equal(res.statusCode, 200, res.body);
        return waitForTask(t, json<{ taskId: number }>(res).taskId);
      };
      const failed = await start('Missing a file', refs);
      assert.equal(failed.status, 'error');
      assert.equal(failed.meta.error.code, 'INTERNAL');
      assert.doesNotMatch(JSON.stringify(failed.meta), /objects\//, 'no path of the store reaches the task');

      // Without that file its image comes without objects, and the same threads import all the rest.
      const task = await start('Without it', refs.filter((r) => r.path !== gonePath));
      assert.equal(task.status, 'finished', JSON.stringify(task.meta));
      assert.deepEqual([task.meta.imported, task.meta.failed], [34, 6]);
    });
  });
}
