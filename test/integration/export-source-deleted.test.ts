// An export whose project (or one of its datasets) is deleted while it runs ends `error` with the
// reason, and leaves no archive and nothing spooled. The delete is made by the real service from
// inside the export's own checkpoint, so it lands mid-way whatever the machine's speed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { removeDataset } from '../../src/services/datasets.service.ts';
import { deleteProject } from '../../src/services/projects.service.ts';
import type { TaskHandler } from '../../src/tasks/handler.ts';
import { exportHandler } from '../../src/tasks/handlers/export.handler.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface ExportAnswer {
  task: { id: number; status: string; meta: { error?: { code: string; message: string }; progress?: { done: number; total: number } } };
  archive: { size: number } | null;
}

for (const dialect of dialects) {
  describe(`export of a source deleted meanwhile (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner | undefined;
    /** What the export's next checkpoint runs, once. */
    let atCheckpoint: { count: number; action: () => Promise<void> } | null = null;

    // The production export handler; its fifth checkpoint (an archive entry of the first page) first
    // runs the delete the test set up.
    const handler: TaskHandler = (run) => {
      let seen = 0;
      return exportHandler({
        ...run,
        meta: run.meta,
        async checkpoint(progress, patch) {
          seen += 1;
          if (atCheckpoint && seen === atCheckpoint.count) {
            const { action } = atCheckpoint;
            atCheckpoint = null;
            await action();
          }
          return run.checkpoint(progress, patch);
        },
      });
    };

    before(async () => {
      t = await startTestApp(dialect);
      runner = startTaskRunner(t.ctx, t.app.log, { handlers: { export: handler }, pollMs: 20 });
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    async function teamId(): Promise<number> {
      const row = await t.ctx.db.kysely.selectFrom('teams').select('id').where('name', '=', 'alpha').executeTakeFirstOrThrow();
      return row.id;
    }

    async function project(title: string): Promise<{ project: number; datasets: number[] }> {
      const project = await newProject(t.ctx, { title, classes: [{ title: 'car', shape: 'rectangle' }] });
      const datasets = [await newDataset(t.ctx, project, 'a'), await newDataset(t.ctx, project, 'b')];
      for (const dataset of datasets) for (let i = 0; i < 15; i += 1) await newImage(t.ctx, dataset, { name: `${i}.png` });
      return { project, datasets };
    }

    async function ended(id: number): Promise<ExportAnswer> {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const answer = json<ExportAnswer>(await t.request({ method: 'GET', url: `/v2/exports/${id}` }));
        if (['finished', 'error', 'stopped'].includes(answer.task.status)) return answer;
        if (Date.now() > deadline) assert.fail(`export ${id} still ${answer.task.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    async function exportDeletingMidway(body: Record<string, unknown>, remove: () => Promise<void>): Promise<ExportAnswer> {
      atCheckpoint = { count: 5, action: remove };
      const res = await t.request({ method: 'POST', url: '/v2/exports', payload: body });
      assert.equal(res.statusCode, 201, res.body);
      const answer = await ended(json<ExportAnswer>(res).task.id);
      assert.equal(atCheckpoint, null, 'the delete ran mid-export');
      return answer;
    }

    async function assertNothingLeft(answer: ExportAnswer): Promise<void> {
      assert.equal(answer.archive, null);
      const key = `exports/${await teamId()}/${answer.task.id}.zip`;
      assert.equal(await t.ctx.archives.stat(key), null, 'no archive');
      const download = await t.request({ method: 'GET', url: `/v2/exports/${answer.task.id}/archive` });
      assert.equal(download.statusCode, 409);
      const spool = path.join(t.config.dataDir, 'tmp', 'exports');
      assert.deepEqual(fs.existsSync(spool) ? fs.readdirSync(spool) : [], [], 'nothing spooled is left');
    }

    test('the project deleted mid-way: the export ends error, with the reason, and no archive', async () => {
      const { project: id } = await project('deleted midway');
      const answer = await exportDeletingMidway({ projectId: id, format: 'supervisely' }, async () => deleteProject(t.ctx.db.kysely, await teamId(), id));
      assert.equal(answer.task.status, 'error', JSON.stringify(answer.task.meta));
      assert.equal(answer.task.meta.error?.code, 'NOT_FOUND');
      assert.match(answer.task.meta.error?.message ?? '', new RegExp(`project ${id} was deleted while it was being exported`));
      await assertNothingLeft(answer);
    });

    test('a dataset it reads deleted mid-way: the export ends error, naming the dataset', async () => {
      const { project: id, datasets } = await project('dataset deleted midway');
      const gone = datasets[1]!;
      const answer = await exportDeletingMidway({ projectId: id, format: 'coco' }, async () => removeDataset(t.ctx.db.kysely, await teamId(), gone, undefined));
      assert.equal(answer.task.status, 'error', JSON.stringify(answer.task.meta));
      assert.match(answer.task.meta.error?.message ?? '', new RegExp(`dataset ${gone} of project ${id} was deleted`));
      await assertNothingLeft(answer);
    });

    test('the project of a DTL graph deleted mid-way: the export ends error, with no archive', async () => {
      const { project: id } = await project('dtl deleted midway');
      const config = [
        { action: 'data', src: ['dtl deleted midway/*'], dst: '$data', settings: { classes_mapping: 'default' } },
        { action: 'save', src: ['$data'], dst: 'out', settings: { images: true, annotations: true } },
      ];
      const answer = await exportDeletingMidway({ config }, async () => deleteProject(t.ctx.db.kysely, await teamId(), id));
      assert.equal(answer.task.status, 'error', JSON.stringify(answer.task.meta));
      assert.match(answer.task.meta.error?.message ?? '', new RegExp(`project ${id} was deleted while it was being exported`));
      await assertNothingLeft(answer);
    });

    test('an export left alone still finishes whole', async () => {
      const { project: id } = await project('left alone');
      const res = await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId: id, format: 'supervisely' } });
      const answer = await ended(json<ExportAnswer>(res).task.id);
      assert.equal(answer.task.status, 'finished', JSON.stringify(answer.task.meta));
      assert.deepEqual(answer.task.meta.progress, { done: 30, total: 30 });
      assert.ok(answer.archive && answer.archive.size > 0);
    });
  });
}
