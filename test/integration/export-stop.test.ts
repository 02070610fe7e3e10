// The export handler looks for a stop after every archive entry, not once a page: a page of large
// photos takes seconds to write, and a stop must reach the task within seconds. Driven through the
// handler with a run whose checkpoint asks it to stop, so no timing decides the outcome.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
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

/** A queued export of a small project (no worker runs in this app) and a run of it driven by hand. */
async function queuedExport(title: string, hooks: Pick<TaskRun, 'checkpoint' | 'fenceLease'>): Promise<{ run: TaskRun; key: string }> {
  const project = await newProject(t.ctx, { title, classes: [{ title: 'car', shape: 'rectangle' }] });
  const dataset = await newDataset(t.ctx, project);
  for (let i = 0; i < 20; i += 1) await newImage(t.ctx, dataset, { name: `${i}.png` });
  const res = await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId: project, format: 'supervisely' } });
  assert.equal(res.statusCode, 201, res.body);
  const { id, meta } = json<{ task: { id: number; meta: Record<string, unknown> } }>(res).task;
  const row = await t.ctx.db.kysely.selectFrom('tasks').select(['team_id', 'created_by']).where('id', '=', id).executeTakeFirstOrThrow();
  const run: TaskRun = {
    ctx: t.ctx,
    taskId: id,
    teamId: row.team_id,
    userId: row.created_by,
    attempt: 2,
    input: await tasks.loadInput(t.ctx.db.kysely, id),
    meta: { ...meta },
    async updateMeta() {},
    ...hooks,
  };
  return { run, key: (meta.path as { objectName: string }).objectName };
}

test('a stop asked while a page is being written ends the export before the page is done, leaving no archive', async () => {
  const checkpoints: (number | undefined)[] = [];
  const { run, key } = await queuedExport('stop mid-page', {
    async checkpoint(progress) {
      checkpoints.push(progress?.done);
      // The stop arrives while the first page's entries are being written.
      if (checkpoints.length === 5) throw new TaskInterrupted('stop-requested');
    },
    async fenceLease() {},
  });
  await assert.rejects(exportHandler(run), (error) => error instanceof TaskInterrupted && error.reason === 'stop-requested');
  assert.deepEqual(checkpoints, [undefined, undefined, undefined, undefined, undefined], 'looked for after each entry, before any page was counted done');
  assert.equal(await t.ctx.archives.stat(key), null, 'no archive');
});

test("a failed attempt removes an earlier attempt's archive only while it still holds the task", async () => {
  for (const holdsLease of [false, true]) {
    const { run, key } = await queuedExport(`lease ${holdsLease}`, {
      async checkpoint() {
        throw new Error('the blob store failed');
      },
      async fenceLease() {
        if (!holdsLease) throw new TaskInterrupted('lease-lost');
      },
    });
    // What another worker finished meanwhile (or an earlier attempt of this one left).
    await t.ctx.archives.put(key, Readable.from([Buffer.from('a whole archive')]));
    await assert.rejects(exportHandler(run), /the blob store failed/);
    if (holdsLease) assert.equal(await t.ctx.archives.stat(key), null, 'its own earlier archive is removed');
    else assert.ok(await t.ctx.archives.stat(key), 'another worker’s archive is left alone');
  }
});
