// GET /v2/images/overlays: the objects of a page of gallery tiles in one request, on both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';

interface Overlays {
  items: { id: number; objects: { classTitle: string; bitmap: unknown; points: { exterior: number[][]; interior: number[][][] } }[] }[];
}

for (const dialect of dialects) {
  describe(`v2 image overlays on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(async () => t?.close());

    const overlays = (ids: string, key?: string) => t.request({ method: 'GET', url: `/v2/images/overlays?ids=${ids}`, ...(key ? { key } : {}) });

    test('answers each image’s objects, classes and shapes only, in the order asked', async () => {
      const dataset = await newDataset(t.ctx, await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }] }));
      const square: [number, number][] = [[1, 1], [9, 1], [9, 9], [1, 9]];
      const a = await newImage(t.ctx, dataset, { objects: [{ ...polygon('car', square, ['parked']), description: 'a long description' }] });
      const b = await newImage(t.ctx, dataset);
      const res = await overlays(`${b.id},${a.id},${b.id}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json<Overlays>(res).items, [
        { id: b.id, objects: [] },
        { id: a.id, objects: [{ classTitle: 'car', bitmap: null, points: { exterior: square, interior: [] } }] },
      ]);
    });

    test('another team’s image is a 404 naming it; too many ids or junk a 400', async () => {
      const ours = await newImage(t.ctx, await newDataset(t.ctx, await newProject(t.ctx)));
      const theirs = await newImage(t.ctx, await newDataset(t.ctx, await newProject(t.ctx, { team: 'beta' })));
      const problem = assertProblem(await overlays(`${ours.id},${theirs.id}`), 404, 'NOT_FOUND');
      assert.deepEqual((problem as unknown as { imageIds: number[] }).imageIds, [theirs.id]);
      assert.equal((await overlays(`${theirs.id}`, t.otherKey)).statusCode, 200);
      assertProblem(await overlays(Array.from({ length: 201 }, (_, i) => i + 1).join(',')), 400, 'VALIDATION');
      assert.equal((await overlays(Array.from({ length: 200 }, () => ours.id).join(','))).statusCode, 200);
      for (const junk of ['', 'x', '1,,2', '0', '-1', '1,2,']) assertProblem(await overlays(junk), 400, 'VALIDATION', { label: junk });
    });
  });
}
