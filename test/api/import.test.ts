// POST /tasks/import end to end: upload a Supervisely project, import it, read it back; on both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TaskRunner } from '../../src/tasks/runner.ts';
import { dialects } from '../helpers/dialects.ts';
import { type StoreSetup, storeCases } from '../helpers/s3.ts';
import { hashOf } from '../helpers/factories.ts';
import { type ProjectFile, startImportRunner, withImportRunner, uploadProject, waitForTask } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface Record_ {
  imageId: number;
  data: {
    description: string;
    tags: string[];
    name: string;
    size: { width: number; height: number };
    objects: { classTitle: string; description: string; tags: string[]; bitmap: unknown; points: { exterior: number[][]; interior: number[][][] } }[];
  };
}

const meta = {
  classes: [
    { title: 'car', shape: 'polygon', color: '#FF0000' },
    { title: 'sign', shape: 'rectangle', color: '#00FF00' },
    { title: 'spot', shape: 'point', color: '#0000FF' },
  ],
  tags_images: ['daytime'],
  tags_objects: ['occluded'],
};

const carPolygon = {
  classTitle: 'car',
  description: 'a red one',
  tags: ['occluded'],
  bitmap: null,
  points: { exterior: [[1, 1], [30.5, 1], [30.5, 20], [1, 20]], interior: [[[5, 5], [10, 5], [10, 10]]] },
};

const json_ = (value: unknown) => Buffer.from(JSON.stringify(value));

async function sampleProject(seed: number): Promise<ProjectFile[]> {
  return [
    { path: 'meta.json', type: 'class', content: json_(meta) },
    { path: 'city/img/a.png', type: 'image', content: await pngImage(64, 48, seed) },
    {
      path: 'city/ann/a.png.json',
      type: 'annotation',
      content: json_({
        description: 'first',
        tags: ['daytime'],
        size: { width: 64, height: 48 },
        objects: [
          carPolygon,
          { classTitle: 'sign', description: '', tags: [], bitmap: null, points: { exterior: [[40, 30], [2, 3]], interior: [] } },
        ],
      }),
    },
    { path: 'city/img/b.png', type: 'image', content: await pngImage(20, 10, seed + 1) },
    { path: 'road/c.png', type: 'image', content: await pngImage(8, 8, seed + 2) },
  ];
}

for (const dialect of dialects) {
  for (const store of storeCases) describe(`import on ${dialect.name} with the ${store.name} store`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let storage: StoreSetup;
    let runner: TaskRunner;
    before(async () => {
      storage = await store.setup();
      t = await startTestApp(dialect, storage.overrides);
      runner = startImportRunner(t);
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
      await storage?.cleanup();
    });

    const startImport = (body: unknown, key?: string) =>
      t.request({ method: 'POST', url: '/v1/tasks/import', payload: body as object, ...(key ? { key } : {}) });

    test('a Supervisely project is imported whole and reads back as it was written', async () => {
      const files = await uploadProject(t, await sampleProject(100));
      const res = await startImport({ project: { id: null, title: 'Streets' }, preset: 1, onConflict: 'ignore', files });
      assert.equal(res.statusCode, 200, res.body);
      const { taskId } = json<{ taskId: number }>(res);
      assert.ok(Number.isInteger(taskId));
      const task = await waitForTask(t, taskId);
      assert.equal(task.status, 'finished', JSON.stringify(task.meta));
      assert.equal(task.type, 'import');
      assert.match(task.size, /^[1-9][0-9]*$/);
      assert.ok(task.startedAt && task.finishedAt);
      assert.equal(task.meta.project.isNew, true);
      assert.equal(task.meta.project.title, 'Streets');
      assert.deepEqual(task.meta.datasets.map((d: { title: string; isNew: boolean }) => [d.title, d.isNew]), [['city', true], ['road', true]]);
      assert.deepEqual(task.meta.progress, { done: 3, total: 3 });

      const projectId = task.meta.project.id as number;
      const [project] = json<{ title: string; classes: { title: string; shape: string }[]; tags: { title: string }[]; size: string }[]>(
        await t.request({ method: 'GET', url: `/v1/projects?projectId=${projectId}` }),
      );
      assert.deepEqual(project!.classes.map((c) => [c.title, c.shape]), [['car', 'polygon'], ['sign', 'rectangle'], ['spot', 'point']]);
      assert.deepEqual(project!.tags.map((x) => x.title).sort(), ['daytime', 'occluded']);
      const sample = await sampleProject(100);
      const imageBytes = sample.filter((f) => f.type === 'image').reduce((n, f) => n + f.content.length, 0);
      assert.equal(project!.size, String(imageBytes));
      // The task's size: every file it reads, images and uploaded documents alike.
      assert.equal(task.size, String(sample.reduce((n, f) => n + f.content.length, 0)));

      const records = json<Record_[]>(await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` }));
      assert.deepEqual(records.map((r) => r.data.name), ['a.png', 'b.png', 'c.png']);
      const a = records[0]!.data;
      assert.equal(a.description, 'first');
      assert.deepEqual(a.tags, ['daytime']);
      assert.deepEqual(a.size, { width: 64, height: 48 });
      assert.deepEqual(a.objects[0], carPolygon);
      // A rectangle is stored as [[left, top], [right, bottom]].
      assert.deepEqual(a.objects[1]!.points.exterior, [[2, 3], [40, 30]]);
      assert.deepEqual(records[1]!.data, { description: '', tags: [], name: 'b.png', size: { width: 20, height: 10 }, objects: [] });
      assert.deepEqual(records[2]!.data.size, { width: 8, height: 8 });
    });

    test('onConflict ignore, rename and replace into an existing project', async () => {
      const files = await uploadProject(t, await sampleProject(200));
      const first = await waitForTask(t, json<{ taskId: number }>(await startImport({ project: { id: null, title: 'Again' }, preset: 1, files })).taskId);
      const projectId = first.meta.project.id as number;
      const names = async () =>
        json<Record_[]>(await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` })).map((r) => r.data.name).sort();

      const ignored = await waitForTask(t, json<{ taskId: number }>(await startImport({ project: { id: projectId }, preset: 1, onConflict: 'ignore', files })).taskId);
      assert.equal(ignored.status, 'finished');
      assert.equal(ignored.meta.project.isNew, false);
      assert.deepEqual(ignored.meta.datasets.map((d: { isNew: boolean }) => d.isNew), [false, false]);
      assert.deepEqual(await names(), ['a.png', 'b.png', 'c.png']);

      const renamed = await waitForTask(t, json<{ taskId: number }>(await startImport({ project: { id: projectId }, preset: 1, onConflict: 'rename', files })).taskId);
      assert.equal(renamed.status, 'finished');
      assert.deepEqual(await names(), ['a (1).png', 'a.png', 'b (1).png', 'b.png', 'c (1).png', 'c.png']);

      // Replace with an edited annotation for a.png.
      const edited = (await sampleProject(200)).map((f) =>
        f.path === 'city/ann/a.png.json' ? { ...f, content: json_({ description: 'edited', tags: [], size: { width: 64, height: 48 }, objects: [] }) } : f,
      );
      const replaced = await waitForTask(t, json<{ taskId: number }>(await startImport({ project: { id: projectId }, preset: 1, onConflict: 'replace', files: await uploadProject(t, edited) })).taskId);
      assert.equal(replaced.status, 'finished');
      const records = json<Record_[]>(await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` }));
      assert.equal(records.length, 6);
      assert.equal(records.find((r) => r.data.name === 'a.png')!.data.description, 'edited');
    });

    test('a bad annotation fails its image only; all bad fails the task with meta.error', async () => {
      const files: ProjectFile[] = [
        { path: 'meta.json', type: 'class', content: json_(meta) },
        { path: 'ds/img/good.png', type: 'image', content: await pngImage(10, 10, 301) },
        { path: 'ds/img/bad.png', type: 'image', content: await pngImage(10, 10, 302) },
        {
          path: 'ds/ann/bad.png.json',
          type: 'annotation',
          content: json_({ tags: [], size: { width: 10, height: 10 }, objects: [{ ...carPolygon, points: { exterior: [[1, 1], [2, 2]], interior: [] } }] }),
        },
      ];
      const task = await waitForTask(t, json<{ taskId: number }>(await startImport({ project: { id: null, title: 'Half' }, preset: 1, files: await uploadProject(t, files) })).taskId);
      assert.equal(task.status, 'finished');
      assert.equal(task.meta.imported, 1);
      assert.equal(task.meta.failed, 1);
      assert.equal(task.meta.warnings[0].path, 'ds/img/bad.png');
      assert.match(task.meta.warnings[0].message, /exterior/);
      const records = json<Record_[]>(await t.request({ method: 'GET', url: `/v1/annotations?projectId=${task.meta.project.id}` }));
      assert.deepEqual(records.map((r) => r.data.name), ['good.png']);

      const allBad = files.filter((f) => f.path !== 'ds/img/good.png');
      const failed = await waitForTask(t, json<{ taskId: number }>(await startImport({ project: { id: null, title: 'Nothing' }, preset: 1, files: await uploadProject(t, allBad) })).taskId);
      assert.equal(failed.status, 'error');
      assert.equal(failed.meta.error.code, 'IMPORT_FAILED');
      assert.match(failed.meta.error.message, /bad\.png/);
    });

    test('preset 2 imports images only, plain folders become datasets', async () => {
      const files = await uploadProject(t, [
        { path: 'one/x.png', type: 'image', content: await pngImage(5, 5, 401) },
        { path: 'two/img/y.png', type: 'image', content: await pngImage(6, 6, 402) },
      ]);
      const task = await waitForTask(t, json<{ taskId: number }>(await startImport({ project: { id: null, title: 'Plain' }, preset: 2, files })).taskId);
      assert.equal(task.status, 'finished');
      assert.deepEqual(task.meta.datasets.map((d: { title: string }) => d.title), ['one', 'two']);
    });

    test('the whole request is checked before a task exists', async () => {
      const files = await uploadProject(t, await sampleProject(500));
      const tasksBefore = json<unknown[]>(await t.request({ method: 'GET', url: '/v1/tasks' })).length;
      const projectsBefore = json<unknown[]>(await t.request({ method: 'GET', url: '/v1/projects' })).length;
      const image = files.find((f) => 'hash' in f)!;
      const cases: [string, unknown, number][] = [
        ['traversal', { project: { id: null, title: 'x' }, preset: 1, files: [...files, { ...image, path: 'city/../../etc/passwd' }] }, 400],
        ['absolute path', { project: { id: null, title: 'x' }, preset: 1, files: [{ ...image, path: '/city/img/z.png' }] }, 400],
        ['backslash', { project: { id: null, title: 'x' }, preset: 2, files: [{ ...image, path: 'city\\z.png' }] }, 400],
        ['NUL', { project: { id: null, title: 'x' }, preset: 2, files: [{ ...image, path: 'city/z\u0000.png' }] }, 400],
        ['unknown hash', { project: { id: null, title: 'x' }, preset: 2, files: [{ hash: hashOf(Buffer.from('never uploaded')), path: 'd/z.png' }] }, 400],
        ['malformed hash', { project: { id: null, title: 'x' }, preset: 2, files: [{ hash: 'abc', path: 'd/z.png' }] }, 400],
        ['one path twice', { project: { id: null, title: 'x' }, preset: 2, files: [{ ...image, path: 'd/z.png' }, { ...image, path: 'd/z.png' }] }, 400],
        ['one name twice in a dataset', { project: { id: null, title: 'x' }, preset: 2, files: [{ ...image, path: 'd/z.png' }, { ...image, path: 'd/img/z.png' }] }, 400],
        ['unknown fileId', { project: { id: null, title: 'x' }, preset: 1, files: [...files.filter((f) => f.path !== 'meta.json'), { fileId: 'f_nope', path: 'meta.json' }] }, 400],
        ['preset 9', { project: { id: null, title: 'x' }, preset: 9, files }, 400],
        ['preset 3 not yet', { project: { id: null, title: 'x' }, preset: 3, files }, 400],
        ['onConflict merge', { project: { id: null, title: 'x' }, preset: 1, onConflict: 'merge', files }, 400],
        ['unknown member', { project: { id: null, title: 'x' }, preset: 1, files, owner: 'me' }, 400],
        ['no title', { project: { id: null }, preset: 1, files }, 400],
        ['missing project', { project: { id: 999999 }, preset: 1, files }, 404],
      ];
      for (const [name, body, status] of cases) {
        const res = await startImport(body);
        assert.equal(res.statusCode, status, `${name}: ${res.body}`);
        assert.equal(json<{ error: string }>(res).error, status === 400 ? 'VALIDATION' : 'NOT_FOUND', name);
      }
      assert.equal(json<unknown[]>(await t.request({ method: 'GET', url: '/v1/tasks' })).length, tasksBefore);
      assert.equal(json<unknown[]>(await t.request({ method: 'GET', url: '/v1/projects' })).length, projectsBefore);
    });

    test('another team’s hashes, files and projects are out of reach', async () => {
      const files = await uploadProject(t, await sampleProject(600));
      const theirs = await startImport({ project: { id: null, title: 'stolen' }, preset: 1, files }, t.otherKey);
      assert.equal(theirs.statusCode, 400);
      const mine = await waitForTask(t, json<{ taskId: number }>(await startImport({ project: { id: null, title: 'Mine' }, preset: 1, files })).taskId);
      const intoMine = await startImport({ project: { id: mine.meta.project.id }, preset: 2, files: [] }, t.otherKey);
      assert.equal(intoMine.statusCode, 400); // an empty files list
      const ownFiles = await uploadProject(t, [{ path: 'd/z.png', type: 'image', content: await pngImage(3, 3, 601) }], t.otherKey);
      const foreignProject = await startImport({ project: { id: mine.meta.project.id }, preset: 2, files: ownFiles }, t.otherKey);
      assert.equal(foreignProject.statusCode, 404);
      assert.equal(json<unknown[]>(await t.request({ method: 'GET', url: `/v1/tasks?id=${mine.id}`, key: t.otherKey })).length, 0);
    });
  });
}

for (const dialect of dialects) {
  describe(`import/local on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    withImportRunner(dialect, (app) => (t = app));

    test('copies datasets into a new project, sharing the image bytes, with annotations and tags', async () => {
      const files = await uploadProject(t, await sampleProject(700));
      const source = await waitForTask(
        t,
        json<{ taskId: number }>(await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'Source' }, preset: 1, files } })).taskId,
      );
      const sourceProject = source.meta.project.id as number;
      const city = source.meta.datasets.find((d: { title: string }) => d.title === 'city').id as number;
      const blobsBefore = (await t.ctx.db.kysely.selectFrom('blobs').select('hash').execute()).length;

      const res = await t.request({ method: 'POST', url: '/v1/tasks/import/local', payload: { id: null, title: 'Copy', datasetsIds: [city] } });
      assert.equal(res.statusCode, 200, res.body);
      const task = await waitForTask(t, json<{ taskId: number }>(res).taskId);
      assert.equal(task.status, 'finished', JSON.stringify(task.meta));
      assert.equal(task.type, 'import');
      assert.equal(task.meta.project.isNew, true);
      assert.deepEqual(task.meta.datasets.map((d: { title: string; isNew: boolean }) => [d.title, d.isNew]), [['city', true]]);

      const read = async (projectId: number) =>
        json<Record_[]>(await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` })).map((r) => r.data);
      const original = (await read(sourceProject)).filter((d) => d.name !== 'c.png');
      assert.deepEqual(await read(task.meta.project.id), original);
      assert.equal((await t.ctx.db.kysely.selectFrom('blobs').select('hash').execute()).length, blobsBefore, 'no bytes are copied');

      // Into an existing project: the same names get free ones.
      const again = await waitForTask(
        t,
        json<{ taskId: number }>(await t.request({ method: 'POST', url: '/v1/tasks/import/local', payload: { id: task.meta.project.id, datasetsIds: [city] } })).taskId,
      );
      assert.equal(again.meta.project.isNew, false);
      assert.deepEqual((await read(task.meta.project.id)).map((d) => d.name).sort(), ['a (1).png', 'a.png', 'b (1).png', 'b.png']);
    });

    test('another team’s datasets and projects answer 404; nothing is created', async () => {
      const files = await uploadProject(t, await sampleProject(800));
      const source = await waitForTask(
        t,
        json<{ taskId: number }>(await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'Private' }, preset: 1, files } })).taskId,
      );
      const datasetId = source.meta.datasets[0].id as number;
      const projectsBefore = json<unknown[]>(await t.request({ method: 'GET', url: '/v1/projects', key: t.otherKey })).length;
      const stolen = await t.request({ method: 'POST', url: '/v1/tasks/import/local', payload: { id: null, title: 'Stolen', datasetsIds: [datasetId] }, key: t.otherKey });
      assert.equal(stolen.statusCode, 404);
      assert.equal(json<unknown[]>(await t.request({ method: 'GET', url: '/v1/projects', key: t.otherKey })).length, projectsBefore);
      const missing = await t.request({ method: 'POST', url: '/v1/tasks/import/local', payload: { id: 999999, datasetsIds: [datasetId] } });
      assert.equal(missing.statusCode, 404);
      const bad = await t.request({ method: 'POST', url: '/v1/tasks/import/local', payload: { id: null, datasetsIds: [datasetId] } });
      assert.equal(bad.statusCode, 400);
    });
  });
}
