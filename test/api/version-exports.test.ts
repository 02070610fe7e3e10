// Exports of a version on both databases: every format writes the version's images, annotations,
// classes and subsets as they were frozen; editing the project afterwards (a class renamed, an image
// deleted, an object moved) leaves a second export of the version identical to the first. Classes
// keep their stable index as COCO category ids and YOLO class numbers; unknown and other teams'
// versions are 404s.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { sweepBlobs } from '../../src/services/blob-sweep.service.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { listFiles, readJson, readText } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { exportedFolder } from '../helpers/export-round-trip.ts';
import { newDataset, newImage, newProject, newTag, polygon, tagImage } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const FORMATS = ['supervisely', 'coco', 'yolo', 'pascal_voc'] as const;

/** Every file of an unpacked archive by path: JSON parsed, text as text, anything else by its digest. */
function contentOf(dir: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const rel of listFiles(dir).sort()) {
    if (rel.endsWith('.json')) out[rel] = readJson(dir, rel);
    else if (/\.(txt|yaml|xml)$/.test(rel)) out[rel] = readText(dir, rel);
    else out[rel] = createHash('sha256').update(fs.readFileSync(path.join(dir, ...rel.split('/')))).digest('hex');
  }
  return out;
}

const box = (classTitle: string, x: number) => polygon(classTitle, [[x, 2], [x + 10, 2], [x + 10, 12], [x, 12]]);

for (const dialect of dialects) {
  describe(`exports of a version on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner;
    let projectId: number;
    const imageIds: number[] = [];
    const hashes: string[] = [];
    let versionId: number;

    before(async () => {
      t = await startTestApp(dialect);
      runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
      projectId = await newProject(t.ctx, { title: 'roads', classes: [{ title: 'car', shape: 'polygon', color: '#FF0000' }, { title: 'person', shape: 'polygon', color: '#00FF00' }] });
      const a = await newDataset(t.ctx, projectId, 'a');
      const b = await newDataset(t.ctx, projectId, 'b');
      const sunny = await newTag(t.ctx, projectId, { title: 'sunny' });
      for (let i = 0; i < 12; i++) {
        const objects = i % 3 === 0 ? [] : i % 2 === 0 ? [box('car', 1), box('person', 20)] : [box('person', 5)];
        const image = await newImage(t.ctx, i < 8 ? a : b, { name: `p${i}.png`, objects });
        imageIds.push(image.id);
        hashes.push(image.hash);
        if (i % 4 === 0) await tagImage(t.ctx, image.id, sunny);
      }
      const res = await t.request({ method: 'POST', url: `/v2/projects/${projectId}/versions`, payload: { name: 'v1', split: { method: 'random', ratios: { train: 2, val: 1 }, seed: 7 } } });
      assert.equal(res.statusCode, 201, res.body);
      versionId = json<{ id: number }>(res).id;
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    test('every format exports the version as it was frozen, whatever the project became since', async () => {
      const first: Record<string, Record<string, unknown>> = {};
      for (const format of FORMATS) {
        const { dir, task } = await exportedFolder(t, { projectId, version: 'v1', format }, `version-${format}-1`);
        first[format] = contentOf(dir);
        assert.equal(task.meta.name, `roads-v1-${format}`);
        assert.equal(task.meta.progress.total, 12);
      }
      // The split is the formats' split: Supervisely datasets, COCO files, YOLO folders, VOC lists.
      assert.ok('train/ann/p1.png.json' in first.supervisely! || 'val/ann/p1.png.json' in first.supervisely!);
      assert.deepEqual(Object.keys(first.supervisely!).filter((p) => p.endsWith('.png.json')).map((p) => p.split('/')[0]).filter((d, i, all) => all.indexOf(d) === i).sort(), ['train', 'val']);
      assert.deepEqual(Object.keys(first.coco!).filter((p) => p.startsWith('annotations/')).sort(), ['annotations/instances_train.json', 'annotations/instances_val.json']);
      const train = first.coco!['annotations/instances_train.json'] as { images: unknown[]; categories: { id: number; name: string }[] };
      const val = first.coco!['annotations/instances_val.json'] as { images: unknown[] };
      assert.equal(train.images.length, 8);
      assert.equal(val.images.length, 4);
      assert.deepEqual(train.categories.map((c) => [c.id, c.name]), [[1, 'car'], [2, 'person']]);
      const made = json<{ createdAt: string }>(await t.request({ method: 'GET', url: `/v2/versions/${versionId}` })).createdAt;
      assert.equal((first.coco!['annotations/instances_train.json'] as { info: { date_created: string } }).info.date_created, made);
      assert.equal(Object.keys(first.coco!).filter((p) => p.startsWith('images/val/')).length, 4);
      assert.equal(Object.keys(first.yolo!).filter((p) => p.startsWith('labels/val/')).length, 4);
      assert.match(first.yolo!['data.yaml'] as string, /train: images\/train\nval: images\/val\n/);
      assert.equal(Object.keys(first.yolo!).filter((p) => p.startsWith('images/train/')).length, 8);
      assert.deepEqual(Object.keys(first.pascal_voc!).filter((p) => p.startsWith('ImageSets/Main/')).sort(), ['ImageSets/Main/train.txt', 'ImageSets/Main/val.txt']);

      // The project changes: a class renamed, an image deleted (its blob swept if nothing kept it), an object moved.
      const car = await t.ctx.db.kysely.selectFrom('classes').where('project_id', '=', projectId).where('title', '=', 'car').select('id').executeTakeFirstOrThrow();
      assert.equal((await t.request({ method: 'PATCH', url: `/v2/classes/${car.id}`, payload: { title: 'automobile' } })).statusCode, 200);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/images/${imageIds[2]}` })).statusCode, 204);
      const moved = await t.request({ method: 'PUT', url: `/v2/images/${imageIds[1]}/annotation`, payload: { objects: [{ ...box('person', 30), tags: [] }] } });
      assert.equal(moved.statusCode, 200, moved.body);
      await sweepBlobs(t.ctx, new Date(Date.now() + 7 * 24 * 3600_000));

      for (const format of FORMATS) {
        const { dir } = await exportedFolder(t, { projectId, version: versionId, format }, `version-${format}-2`);
        assert.deepEqual(contentOf(dir), first[format], `${format}: the second export of the version differs from the first`);
      }
      const now = await exportedFolder(t, { projectId, format: 'coco' }, 'version-project-now');
      assert.notDeepEqual(contentOf(now.dir), first.coco, 'the project itself did change');
    });

    test('a DTL data layer reads a version with settings.version; a graph without it reads the project as it is', async () => {
      // The project has changed since v1 (the test before renamed car, deleted p2.png, moved an object).
      const data = (settings: Record<string, unknown>, src = ['roads/*']) => ({ action: 'data', src, dst: '$data', settings: { classes_mapping: 'default', ...settings } });
      const graph = (settings: Record<string, unknown>) => [
        data(settings),
        { action: 'if', src: ['$data'], dst: ['$val', '$rest'], settings: { condition: { project_datasets: ['roads/val'] } } },
        { action: 'dataset', src: ['$val'], dst: '$held', settings: { name: 'held-out' } },
        { action: 'dataset', src: ['$rest'], dst: '$kept', settings: { rule: 'save_original' } },
        { action: 'coco', src: ['$held', '$kept'], dst: 'frozen', settings: {} },
      ];
      const byName = contentOf((await exportedFolder(t, { config: graph({ version: 'v1' }) }, 'version-dtl-name')).dir);
      const byId = contentOf((await exportedFolder(t, { config: graph({ version: versionId }) }, 'version-dtl-id')).dir);
      assert.deepEqual(Object.keys(byName).filter((p) => p.startsWith('annotations/')).sort(), ['annotations/instances_held-out.json', 'annotations/instances_train.json'], 'if matched the val subset; save_original named the train subset');
      type Coco = { images: { file_name: string }[]; categories: { name: string }[]; annotations: { attributes?: Record<string, unknown> }[] };
      const train = byName['annotations/instances_train.json'] as Coco;
      const val = byName['annotations/instances_held-out.json'] as Coco;
      assert.equal(train.images.length + val.images.length, 12, 'the image deleted from the project is read from the version');
      assert.ok([...train.images, ...val.images].some((i) => i.file_name === 'p2.png'));
      assert.deepEqual(train.categories.map((c) => c.name), ['car', 'person'], 'the classes as frozen, not renamed');
      assert.equal(val.images.length, 4);
      assert.deepEqual(byId['annotations/instances_held-out.json'], byName['annotations/instances_held-out.json']);
      assert.deepEqual(byId['annotations/instances_train.json'], byName['annotations/instances_train.json']);
      // The same graph without a version reads the project now.
      const now = contentOf((await exportedFolder(t, { config: [data({}), { action: 'coco', src: ['$data'], dst: 'now', settings: {} }] }, 'version-dtl-now')).dir);
      const a = now['annotations/instances_roads__a.json'] as Coco;
      assert.deepEqual(a.categories.map((c) => c.name), ['automobile', 'person']);
      assert.equal(a.images.length, 7);
      // A dataset beside a version, or a version the project lacks, is a 400 at the layer.
      const bad = async (config: unknown[], pointer: string, detail: RegExp) => {
        const res = await t.request({ method: 'POST', url: '/v2/exports', payload: { config } });
        const problem = assertProblem(res, 400, 'VALIDATION');
        assert.match(problem.detail, detail);
        assert.equal((problem as { errors?: { pointer: string }[] }).errors?.[0]?.pointer, pointer, res.body);
      };
      const out = { action: 'coco', src: ['$data'], dst: 'x', settings: {} };
      await bad([data({ version: 'v1' }, ['roads/a']), out], '/config/0/src', /a version is read whole/);
      await bad([data({ version: 'nope' }), out], '/config/0/settings/version', /has no version "nope"/);
      await bad([data({ version: 999_999 }), out], '/config/0/settings/version', /has no version 999999/);
      const elsewhere = await newProject(t.ctx, { title: 'elsewhere-dtl' });
      const theirs = json<{ id: number }>(await t.request({ method: 'POST', url: `/v2/projects/${elsewhere}/versions`, payload: { name: 'v1' } })).id;
      await bad([data({ version: theirs }), out], '/config/0/settings/version', /has no version/);
    });

    test('classes keep their stable index: COCO category ids and YOLO class numbers follow it, gaps and all', async () => {
      const db = t.ctx.db.kysely;
      const other = await newProject(t.ctx, { title: 'gaps', classes: [{ title: 'a', shape: 'polygon' }, { title: 'b', shape: 'polygon' }] });
      const ds = await newDataset(t.ctx, other, 'all');
      await newImage(t.ctx, ds, { name: 'x.png', objects: [box('a', 1)] });
      assert.equal((await t.request({ method: 'POST', url: `/v2/projects/${other}/versions`, payload: { name: 'one' } })).statusCode, 201);
      // "b" goes, "c" comes: the next version keeps a=1 and gives c the index after b's.
      await db.deleteFrom('classes').where('project_id', '=', other).where('title', '=', 'b').execute();
      await db.insertInto('classes').values({ project_id: other, title: 'c', shape: 'polygon', color: '#0000FF', created_at: new Date().toISOString() }).execute();
      await newImage(t.ctx, ds, { name: 'y.png', objects: [box('c', 1)] });
      const two = await t.request({ method: 'POST', url: `/v2/projects/${other}/versions`, payload: { name: 'two' } });
      assert.deepEqual(json<{ classes: { index: number; title: string }[] }>(two).classes.map((c) => [c.index, c.title]), [[1, 'a'], [3, 'c']]);

      const coco = (await exportedFolder(t, { projectId: other, version: 'two', format: 'coco' }, 'version-gaps-coco')).dir;
      const doc = readJson<{ categories: { id: number; name: string }[]; annotations: { category_id: number }[] }>(coco, 'annotations/instances_all.json');
      assert.deepEqual(doc.categories.map((c) => [c.id, c.name]), [[1, 'a'], [3, 'c']]);
      assert.deepEqual(doc.annotations.map((a) => a.category_id).sort(), [1, 3]);
      const yolo = (await exportedFolder(t, { projectId: other, version: 'two', format: 'yolo' }, 'version-gaps-yolo')).dir;
      assert.match(readText(yolo, 'data.yaml'), /names:\n {2}0: a\n {2}2: c\n/);
      assert.match(readText(yolo, 'labels/train/y.txt'), /^2 /);
      // Formats that name classes list them in index order.
      const sly = (await exportedFolder(t, { projectId: other, version: 'two', format: 'supervisely' }, 'version-gaps-sly')).dir;
      assert.deepEqual(readJson<{ classes: { title: string }[] }>(sly, 'meta.json').classes.map((c) => c.title), ['a', 'c']);
      assert.ok(listFiles(sly).includes('all/ann/x.png.json'), 'a version without a split keeps its datasets');
      const voc = (await exportedFolder(t, { projectId: other, version: 'two', format: 'pascal_voc' }, 'version-gaps-voc')).dir;
      assert.deepEqual(readText(voc, 'labelmap.txt').split('\n').slice(1, 4).map((l) => l.split(':')[0]), ['background', 'a', 'c']);
    });

    test('an unknown version, another project’s or another team’s is a 404; a name needs its project; a version is exported whole', async () => {
      assertProblem(await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId, version: 'nope', format: 'coco' } }), 404, 'NOT_FOUND');
      assertProblem(await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId, version: 999_999, format: 'coco' } }), 404, 'NOT_FOUND');
      assertProblem(await t.request({ method: 'POST', url: '/v2/exports', payload: { version: versionId, format: 'coco' }, key: t.otherKey }), 404, 'NOT_FOUND');
      const elsewhere = await newProject(t.ctx, { title: 'elsewhere' });
      assertProblem(await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId: elsewhere, version: versionId, format: 'coco' } }), 404, 'NOT_FOUND');
      assertProblem(await t.request({ method: 'POST', url: '/v2/exports', payload: { version: 'v1', format: 'coco' } }), 400, 'VALIDATION');
      const a = await t.ctx.db.kysely.selectFrom('datasets').where('project_id', '=', projectId).select('id').executeTakeFirstOrThrow();
      assertProblem(await t.request({ method: 'POST', url: '/v2/exports', payload: { version: versionId, datasetIds: [a.id], format: 'coco' } }), 400, 'VALIDATION');
      assertProblem(await t.request({ method: 'POST', url: '/v2/exports', payload: { version: versionId, format: 'coco', options: { classes: ['automobile'] } } }), 400, 'VALIDATION');
      // Without projectId, an id alone is enough.
      const { task } = await exportedFolder(t, { version: versionId, format: 'coco', options: { classes: ['car'] } }, 'version-by-id');
      assert.deepEqual((task.meta.config as { settings: Record<string, unknown> }[])[0]!.settings, { classes_mapping: 'default', version: versionId });
    });
  });
}
