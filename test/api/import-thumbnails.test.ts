// An import makes its images' grid thumbnails as it goes: when its task has finished they are there,
// before any thumbnails task has run (this runner has no handler for those). On both databases.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { uploadProject, waitForTask, withImportRunner } from '../helpers/importing.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, json } from '../helpers/test-app.ts';

for (const dialect of dialects) {
  describe(`an import's thumbnails on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    withImportRunner(dialect, (app) => (t = app));

    test('every image of a finished import has its grid thumbnail and thumbhash', async () => {
      const images = await Promise.all(Array.from({ length: 40 }, async (_, i) => ({ path: `frames/f${i}.png`, type: 'image' as const, content: await picture(320, 240, { seed: 700 + i }) })));
      const files = await uploadProject(t, images);
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'Thumbnails alongside' }, preset: 2, files } });
      assert.equal(res.statusCode, 200, res.body);
      const task = await waitForTask(t, json<{ taskId: number }>(res).taskId);
      assert.equal(task.status, 'finished', JSON.stringify(task.meta));
      const db = t.ctx.db.kysely;
      const lacking = await db
        .selectFrom('images')
        .innerJoin('blobs', 'blobs.hash', 'images.hash')
        .leftJoin('thumbnails', (join) => join.onRef('thumbnails.hash', '=', 'images.hash').on('thumbnails.size', '=', 256))
        .select('images.name')
        .where('images.project_id', '=', task.meta.project.id as number)
        .where((eb) => eb.or([eb('thumbnails.key', 'is', null), eb('blobs.thumbhash', 'is', null)]))
        .execute();
      assert.deepEqual(lacking, []);
      const count = await db.selectFrom('images').select((eb) => eb.fn.countAll().as('n')).where('project_id', '=', task.meta.project.id as number).executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 40);
    });
  });
}
