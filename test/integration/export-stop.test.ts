// The export handler looks for a stop after every archive entry, not once a page: a page of large
// photos takes seconds to write, and a stop must reach the task within seconds. Driven through the
// handler with a run whose checkpoint asks it to stop, so no timing decides the outcome.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import { type TaskRun, TaskInterrupted } from '../../src/tasks/handler.ts';
import { exportHandler } from '../../src/tasks/handlers/export.handler.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const [sqlite] = dialects;
let t: TestApp;

before(async () => {
  t = await startTestApp(sqlite!);
});
after(async () => {
  await t?.close();
});

test('a stop asked while a page is being written ends the export before the page is done, leaving no archive', async () => {
  const project = await newProject(t.ctx, { title: 'stop mid-page', classes: [{ title: 'car', shape: 'rectangle' }] });
  const dataset = await newDataset(t.ctx, project);
  for (let i = 0; i < 20; i += 1) await newImage(t.ctx, dataset, { name: `${i}.png` });
  // No worker runs in this app: the task stays queued and the handler is driven by hand.
  const res = await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId: project, format: 'supervisely' } });
  assert.equal(res.statusCode, 201, res.body);
  const { id, meta } = json<{ task: { id: number; meta: Record<string, unknown> } }>(res).task;
  const row = await t.ctx.db.kysely.selectFrom('tasks').select(['team_id', 'created_by']).where('id', '=', id).executeTakeFirstOrThrow();

  const checkpoints: (number | undefined)[] = [];
  const run: TaskRun = {
    ctx: t.ctx,
    taskId: id,
    teamId: row.team_id,
    userId: row.created_by,
    attempt: 1,
    input: await tasks.loadInput(t.ctx.db.kysely, id),
    meta: { ...meta },
    async checkpoint(progress) {
      checkpoints.push(progress?.done);
      // The stop arrives while the first page's entries are being written.
      if (checkpoints.length === 5) throw new TaskInterrupted('stop-requested');
    },
    async updateMeta() {},
    async fenceLease() {},
  };
  await assert.rejects(exportHandler(run), (error) => error instanceof TaskInterrupted && error.reason === 'stop-requested');
  assert.deepEqual(checkpoints, [undefined, undefined, undefined, undefined, undefined], 'looked for after each entry, before any page was counted done');
  const key = (meta.path as { objectName: string }).objectName;
  assert.equal(await t.ctx.archives.stat(key), null, 'no archive');
});
