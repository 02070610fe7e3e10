// GET /projects and DELETE /projects/:id, on both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isoNow } from '../../src/clock.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface ProjectBody {
  id: number;
  title: string;
  size: string;
  createdAt: string;
  updatedAt: string;
  classes: { id: number; title: string; shape: string; color: string }[];
  tags: { id: number; title: string }[];
}

for (const dialect of dialects) {
  describe(`projects on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(async () => t?.close());

    test('lists the team’s projects in id order with classes, tags and byte size', async () => {
      const first = await newProject(t.ctx, { title: 'cars', classes: [{ title: 'car', shape: 'polygon', color: '#00FF00' }] });
      const second = await newProject(t.ctx, { title: 'people' });
      await newProject(t.ctx, { team: 'beta', title: 'secret' });
      const ds = await newDataset(t.ctx, first);
      const a = await newImage(t.ctx, ds, { objects: [polygon('car', [[1, 1], [5, 1], [5, 5]])] });
      const b = await newImage(t.ctx, ds);

      const res = await t.request({ method: 'GET', url: '/v1/projects' });
      assert.equal(res.statusCode, 200);
      const body = json<ProjectBody[]>(res);
      assert.deepEqual(body.map((p) => p.title), ['cars', 'people']);
      assert.deepEqual(body.map((p) => p.id), [first, second]);
      const cars = body[0]!;
      assert.equal(cars.size, String(a.size + b.size));
      assert.equal(body[1]!.size, '0');
      assert.deepEqual(cars.classes.map(({ title, shape, color }) => ({ title, shape, color })), [
        { title: 'car', shape: 'polygon', color: '#00FF00' },
      ]);
      assert.match(cars.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(cars.tags, []);
    });

    test('projectId filters; an unknown or foreign id gives []', async () => {
      const mine = await newProject(t.ctx, { title: 'mine' });
      const theirs = await newProject(t.ctx, { team: 'beta', title: 'theirs' });
      const one = json<ProjectBody[]>(await t.request({ method: 'GET', url: `/v1/projects?projectId=${mine}` }));
      assert.deepEqual(one.map((p) => p.id), [mine]);
      assert.deepEqual(json(await t.request({ method: 'GET', url: `/v1/projects?projectId=${theirs}` })), []);
      assert.deepEqual(json(await t.request({ method: 'GET', url: '/v1/projects?projectId=999999' })), []);
      const other = json<ProjectBody[]>(await t.request({ method: 'GET', url: `/v1/projects?projectId=${theirs}`, key: t.otherKey }));
      assert.deepEqual(other.map((p) => p.title), ['theirs']);
    });

    test('the list follows every change, whether this server or another process made it', async () => {
      const titles = async () => json<ProjectBody[]>(await t.request({ method: 'GET', url: '/v1/projects' })).map((p) => p.title);
      const before = await titles();
      assert.deepEqual(await titles(), before);

      const here = await newProject(t.ctx, { title: 'made here' });
      assert.deepEqual(await titles(), [...before, 'made here']);

      await t.inAnotherProcess(async (other) => {
        await newProject(other, { title: 'made elsewhere' });
        await other.db.kysely
          .insertInto('classes')
          .values({ project_id: here, title: 'late class', shape: 'polygon', color: '#00FF00', created_at: isoNow() })
          .execute();
      });
      assert.deepEqual(await titles(), [...before, 'made here', 'made elsewhere']);
      const [listed] = json<ProjectBody[]>(await t.request({ method: 'GET', url: `/v1/projects?projectId=${here}` }));
      assert.deepEqual(listed!.classes.map((c) => c.title), ['late class']);

      assert.equal((await t.request({ method: 'DELETE', url: `/v1/projects/${here}` })).statusCode, 200);
      assert.deepEqual(await titles(), [...before, 'made elsewhere']);
    });

    test('delete removes the project with its datasets and images; a second delete is 404', async () => {
      const id = await newProject(t.ctx, { title: 'doomed' });
      const ds = await newDataset(t.ctx, id);
      const image = await newImage(t.ctx, ds);
      const res = await t.request({ method: 'DELETE', url: `/v1/projects/${id}` });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(json(res), { success: true });
      assert.deepEqual(json(await t.request({ method: 'GET', url: `/v1/projects?projectId=${id}` })), []);
      assert.deepEqual(json(await t.request({ method: 'GET', url: `/v1/datasets?projectId=${id}` })), []);
      const left = await t.ctx.db.kysely.selectFrom('images').select('id').where('id', '=', image.id).execute();
      assert.equal(left.length, 0);
      const again = await t.request({ method: 'DELETE', url: `/v1/projects/${id}` });
      assert.equal(again.statusCode, 404);
      assert.equal(json<{ error: string }>(again).error, 'NOT_FOUND');
    });

    test('another team’s project cannot be deleted and answers like a missing one', async () => {
      const theirs = await newProject(t.ctx, { team: 'beta', title: 'keep out' });
      const res = await t.request({ method: 'DELETE', url: `/v1/projects/${theirs}` });
      const missing = await t.request({ method: 'DELETE', url: '/v1/projects/999999' });
      assert.equal(res.statusCode, 404);
      assert.equal(json<{ error: string }>(res).error, json<{ error: string }>(missing).error);
      const still = json<ProjectBody[]>(await t.request({ method: 'GET', url: `/v1/projects?projectId=${theirs}`, key: t.otherKey }));
      assert.equal(still.length, 1);
    });
  });
}
