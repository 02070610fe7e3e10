// The running totals behind the statistics (migration 0037) stay equal to a full recount after a
// random sequence of every kind of write: images inserted one at a time and by an import, annotation
// saves, moves between datasets and projects, image and dataset deletes, class renames, creates and
// cascading deletes. On both databases, in two projects at once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.ts';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import { imageStats } from '../../src/repositories/project-stats.repository.ts';
import * as images from '../../src/repositories/images.repository.ts';
import { serializeObjects } from '../../src/formats/canonical.ts';
import { mulberry32 } from '../../src/seeded-random.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { type ProjectFile, uploadProject, waitForTask, withImportRunner } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type TestApp, json } from '../helpers/test-app.ts';

const asJson = (value: unknown) => Buffer.from(JSON.stringify(value));

for (const dialect of dialects) {
  describe(`statistics totals on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    withImportRunner(dialect, (app) => (t = app));

    test('a random sequence of writes leaves the totals equal to a recount', async () => {
      const random = mulberry32(37);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
      const db = t.ctx.db.kysely;
      const projects = [
        await newProject(t.ctx, { classes: ['car', 'person', 'tiny'].map((title) => ({ title, shape: 'polygon' })) }),
        await newProject(t.ctx, { classes: ['car', 'tree'].map((title) => ({ title, shape: 'polygon' })) }),
      ];
      const datasets = [await newDataset(t.ctx, projects[0]!, 'a'), await newDataset(t.ctx, projects[0]!, 'b'), await newDataset(t.ctx, projects[1]!, 'c')];
      const sizes = [
        [64, 48],
        [640, 480],
        [100, 100],
      ] as const;
      const classTitles = async (projectId: number) => (await db.selectFrom('classes').select('title').where('project_id', '=', projectId).execute()).map((r) => r.title);
      const objectsFor = async (projectId: number): Promise<AnnotationObject[]> => {
        // Sometimes more objects than the histogram counts one by one, sometimes an unknown class.
        const count = random() < 0.1 ? 22 + Math.floor(random() * 3) : Math.floor(random() * 5);
        const titles = [...(await classTitles(projectId)), 'ghost'];
        return Array.from({ length: count }, () => {
          const [l, t0, w, h] = [random() * 50, random() * 40, 1 + random() * 300, 1 + random() * 200];
          return polygon(pick(titles), [[l, t0], [l + w, t0], [l + w, t0 + h], [l, t0 + h]]);
        });
      };
      const projectOf = async (datasetId: number) => (await db.selectFrom('datasets').select('project_id').where('id', '=', datasetId).executeTakeFirstOrThrow()).project_id;
      const imagesOf = async () => (await db.selectFrom('images').select(['id', 'project_id']).where('project_id', 'in', projects).orderBy('id').execute());
      const ok = (res: { statusCode: number; body: string }, status = 200) => assert.equal(res.statusCode, status, res.body);

      const check = async (step: string) => {
        for (const projectId of projects) {
          assert.deepEqual(await imageStats(db, { projectId }), await imageStats(db, { projectId }, { recount: true }), `project ${projectId} after ${step}`);
        }
        for (const datasetId of datasets) {
          assert.deepEqual(await imageStats(db, { datasetId }), await imageStats(db, { datasetId }, { recount: true }), `dataset ${datasetId} after ${step}`);
        }
      };

      let importNo = 0;
      const ops: Record<string, () => Promise<void>> = {
        insert: async () => {
          const datasetId = pick(datasets);
          const [width, height] = pick(sizes);
          await newImage(t.ctx, datasetId, { width, height, objects: await objectsFor(await projectOf(datasetId)) });
        },
        save: async () => {
          const image = pick(await imagesOf());
          if (image) ok(await t.request({ method: 'PUT', url: `/v2/images/${image.id}/annotation`, payload: { objects: (await objectsFor(image.project_id)).filter((o) => o.classTitle !== 'ghost') } }));
        },
        deleteImage: async () => {
          const image = pick(await imagesOf());
          if (image) ok(await t.request({ method: 'DELETE', url: `/v2/images/${image.id}` }), 204);
        },
        move: async () => {
          const image = pick(await imagesOf());
          if (!image) return;
          // Into another project only when it has every class the objects name; a refused move changes nothing.
          const res = await t.request({ method: 'PATCH', url: `/v2/images/${image.id}`, payload: { datasetId: pick(datasets) } });
          assert.ok(res.statusCode === 200 || res.statusCode === 409, res.body);
        },
        deleteDataset: async () => {
          const i = Math.floor(random() * datasets.length);
          ok(await t.request({ method: 'DELETE', url: `/v2/datasets/${datasets[i]}` }), 204);
          datasets[i] = await newDataset(t.ctx, projects[i === 2 ? 1 : 0]!, `d${i}-${Math.floor(random() * 1e9)}`);
        },
        import: async () => {
          importNo += 1;
          const projectId = pick(projects);
          const titles = await classTitles(projectId);
          const meta = { classes: titles.map((title) => ({ title, shape: 'polygon', color: '#FF0000' })), tags: [] };
          const files: ProjectFile[] = [{ path: 'meta.json', type: 'class', content: asJson(meta) }];
          for (let i = 0; i < 4; i += 1) {
            const name = `import-${importNo}-${i}.png`;
            const [width, height] = pick(sizes);
            files.push({ path: `imported/img/${name}`, type: 'image', content: await pngImage(width, height, importNo * 10 + i) });
            const objects = (await objectsFor(projectId)).filter((o) => o.classTitle !== 'ghost');
            files.push({ path: `imported/ann/${name}.json`, type: 'annotation', content: asJson({ description: '', tags: [], size: { width, height }, objects }) });
          }
          const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: projectId }, preset: 0, files: await uploadProject(t, files) } });
          ok(res);
          const task = await waitForTask(t, json<{ taskId: number }>(res).taskId);
          assert.equal(task.status, 'finished', JSON.stringify(task.meta));
          const imported = await db.selectFrom('datasets').select('id').where('project_id', '=', projectId).where('title', '=', 'imported').executeTakeFirstOrThrow();
          if (!datasets.includes(imported.id)) datasets.push(imported.id);
        },
        renameClass: async () => {
          const row = await db.selectFrom('classes').select('id').where('project_id', 'in', projects).orderBy(sql`random()`).executeTakeFirst();
          if (row) ok(await t.request({ method: 'PATCH', url: `/v2/classes/${row.id}`, payload: { title: `class-${Math.floor(random() * 1e9)}` } }));
        },
        deleteClass: async () => {
          const row = await db.selectFrom('classes').select(['id', 'project_id']).where('project_id', 'in', projects).orderBy(sql`random()`).executeTakeFirst();
          if (!row) return;
          ok(await t.request({ method: 'DELETE', url: `/v2/classes/${row.id}?cascade=true` }), 204);
          ok(await t.request({ method: 'POST', url: `/v2/projects/${row.project_id}/classes`, payload: { title: `new-${Math.floor(random() * 1e9)}`, shape: 'polygon' } }), 201);
        },
      };
      // Start with a few images of everything, then write at random.
      for (let i = 0; i < 12; i += 1) await ops.insert!();
      await check('the first images');
      const weights: [string, number][] = [
        ['insert', 6],
        ['save', 6],
        ['deleteImage', 3],
        ['move', 3],
        ['deleteDataset', 1],
        ['import', 2],
        ['renameClass', 1],
        ['deleteClass', 1],
      ];
      const bag = weights.flatMap(([op, w]) => new Array<string>(w).fill(op));
      const seen = new Set<string>();
      for (let step = 0; step < 60; step += 1) {
        const op = pick(bag);
        seen.add(op);
        await ops[op]!();
        await check(`step ${step}: ${op}`);
      }
      assert.equal(seen.size, weights.length, 'every kind of write was tried');
      // The totals hold something: the statistics did not agree on empty tables.
      const { images } = (await db.selectFrom('dataset_image_totals').select((eb) => eb.fn.sum<number | string>('images').as('images')).executeTakeFirstOrThrow());
      assert.ok(Number(images) > 0);

      // The migration fills the totals of the images already stored.
      await migrateTo(t.ctx.db, '0031_annotation_revisions');
      await migrateToLatest(t.ctx.db);
      await check('the migration again');
    });

    test('a bulk insert adds its totals itself, and one that fails leaves none of its own and keeps the triggers of the next', async () => {
      const db = t.ctx.db.kysely;
      const projectId = await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }, { title: 'person', shape: 'polygon' }] });
      const [one, bulk] = [await newDataset(t.ctx, projectId, 'one by one'), await newDataset(t.ctx, projectId, 'in bulk')];
      const blob = await newImage(t.ctx, one, { name: 'blob.png', width: 640, height: 480 });
      await db.deleteFrom('images').where('id', '=', blob.id).execute();
      const objects = (i: number) => serializeObjects(Array.from({ length: i % 4 }, (_, k) => polygon(k % 2 ? 'car' : 'person', [[k, i], [k + 30 * i, i], [k + 30 * i, i + 9 * k + 1]])));
      const image = (datasetId: number, i: number) => ({ datasetId, projectId, name: `${i}.png`, hash: blob.hash, size: blob.size, width: 640, height: 480, objectsJson: objects(i) });
      for (let i = 0; i < 9; i += 1) await db.transaction().execute((trx) => images.insertImage(trx, image(one, i)));
      await db.transaction().execute((trx) => images.insertImages(trx, Array.from({ length: 9 }, (_, i) => image(bulk, i))));
      const stats = async (datasetId: number) => imageStats(db, { datasetId });
      // The same figures, but for the dataset's own id.
      const figures = async (datasetId: number) => {
        const all = (await stats(datasetId)) as unknown as { datasets: Record<string, unknown>[] };
        return { ...all, datasets: all.datasets.map(({ datasetId: _id, ...rest }) => rest) };
      };
      assert.deepEqual(await figures(bulk), await figures(one));
      assert.deepEqual(await stats(bulk), await imageStats(db, { datasetId: bulk }, { recount: true }));
      assert.equal((await stats(bulk)).datasets[0]!.images, 9);

      // A name taken twice fails the second statement's insert, after the first's rows went in.
      const failing = Array.from({ length: 600 }, (_, i) => image(bulk, 100 + i));
      failing[599] = image(bulk, 100);
      await assert.rejects(db.transaction().execute((trx) => images.insertImages(trx, failing)));
      assert.equal((await stats(bulk)).datasets[0]!.images, 9, 'nothing of the failed insert is counted');
      await db.transaction().execute((trx) => images.insertImage(trx, image(bulk, 50)));
      assert.deepEqual(await stats(bulk), await imageStats(db, { datasetId: bulk }, { recount: true }), 'the next insert is counted by the triggers');
      assert.equal((await stats(bulk)).datasets[0]!.images, 10);
      // Outside a transaction it takes one of its own.
      await images.insertImages(db, [image(bulk, 51)]);
      assert.deepEqual(await stats(bulk), await imageStats(db, { datasetId: bulk }, { recount: true }));
      assert.equal((await stats(bulk)).datasets[0]!.images, 11);
    });
  });
}
