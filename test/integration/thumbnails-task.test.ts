// The thumbnails task makes what its images lack, makes way for other work queued behind it, and
// finishes the rest afterwards. On both dialects, with a real task runner.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import type { Config } from '../../src/config.ts';
import { type Context, createContext } from '../../src/context.ts';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import { queueImportThumbnails, queueThumbnails } from '../../src/services/thumbnail-tasks.ts';
import { thumbnailsHandler } from '../../src/tasks/handlers/thumbnails.handler.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { waitFor } from '../helpers/wait.ts';

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

for (const dialect of dialects) {
  describe(`the thumbnails task on ${dialect.name}`, { skip: dialect.skip }, () => {
    let config: Config;
    let ctx: Context;
    let runner: TaskRunner | undefined;
    let teamId: number;
    let datasetId: number;
    /** When each task of type `other` ran, and how many thumbnails existed then. */
    const otherRuns: { taskId: number; thumbnails: number }[] = [];
    before(async () => {
      config = dialect.freshConfig();
      ctx = await createContext(config);
      const projectId = await newProject(ctx, { title: 'task' });
      datasetId = await newDataset(ctx, projectId);
      teamId = (await ctx.db.kysely.selectFrom('projects').select('team_id').where('id', '=', projectId).executeTakeFirstOrThrow()).team_id;
      runner = startTaskRunner(ctx, silent, {
        pollMs: 20,
        leaseMs: 5000,
        handlers: {
          thumbnails: thumbnailsHandler,
          other: async (run) => {
            otherRuns.push({ taskId: run.taskId, thumbnails: await countThumbnails() });
          },
        },
      });
    });
    after(async () => {
      await runner?.stop();
      await ctx?.close();
      await dialect.cleanup(config);
    });

    const countThumbnails = async () => Number((await ctx.db.kysely.selectFrom('thumbnails').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const statusOf = async (id: number) => (await ctx.db.kysely.selectFrom('tasks').select(['status', 'meta']).where('id', '=', id).executeTakeFirstOrThrow());

    test('a task queued behind it runs before the thumbnails are all made; the rest follow', async () => {
      const hashes: string[] = [];
      for (let i = 0; i < 48; i += 1) hashes.push((await newImage(ctx, datasetId, { bytes: await picture(400, 300, { seed: 100 + i }) })).hash);
      // One that cannot be drawn is counted as failed, and does not stop the others.
      hashes.push((await newImage(ctx, datasetId, { bytes: Buffer.from('no picture') })).hash);
      const [thumbnailsId] = await ctx.db.kysely.transaction().execute((trx) => queueThumbnails(trx, { teamId, userId: null }, { hashes }));
      ctx.tasksQueued.notify();
      await waitFor('the thumbnails task to start', async () => (await countThumbnails()) > 0);
      const otherId = await tasks.createTask(ctx.db.kysely, { teamId, userId: null, type: 'other', size: 0, meta: {}, input: {} });
      ctx.tasksQueued.notify();

      await waitFor('the other task to run', () => otherRuns.find((r) => r.taskId === otherId), 10_000);
      assert.ok(otherRuns.find((r) => r.taskId === otherId)!.thumbnails < 48, 'it did not wait for every thumbnail');
      const first = await statusOf(thumbnailsId!);
      assert.equal(first.status, 'finished');
      const continuedBy = (JSON.parse(first.meta) as { continuedBy?: number }).continuedBy;
      assert.ok(continuedBy && continuedBy > otherId, 'the rest was queued behind the other task');

      await waitFor('the rest to be made', async () => (await statusOf(continuedBy)).status === 'finished', 20_000);
      assert.equal(await countThumbnails(), 48);
      const made = [first, await statusOf(continuedBy)].map((s) => JSON.parse(s.meta) as { made: number; failed: number });
      assert.equal(made[0]!.made + made[1]!.made, 48);
      assert.equal(made[0]!.failed + made[1]!.failed, 1);
      const nulls = await ctx.db.kysely.selectFrom('blobs').select('hash').where('hash', 'in', hashes.slice(0, 48)).where('thumbhash', 'is', null).execute();
      assert.deepEqual(nulls, []);
    });

    test('run again, it finds everything made and draws nothing', async () => {
      const hashes = (await ctx.db.kysely.selectFrom('thumbnails').select('hash').execute()).map((r) => r.hash);
      const before = ctx.thumbnails.rendered;
      const [id] = await ctx.db.kysely.transaction().execute((trx) => queueThumbnails(trx, { teamId, userId: null }, { hashes }));
      ctx.tasksQueued.notify();
      await waitFor('the task to finish', async () => (await statusOf(id!)).status === 'finished', 10_000);
      assert.equal(ctx.thumbnails.rendered, before);
      assert.equal((JSON.parse((await statusOf(id!)).meta) as { made: number }).made, 0);
    });

    test('an import resumed after its end queues its thumbnails once', async () => {
      const importTask = await tasks.createTask(ctx.db.kysely, { teamId, userId: null, type: 'import-done', size: 0, meta: {}, input: {} });
      const owner = { taskId: importTask, teamId, userId: null };
      await queueImportThumbnails(ctx, owner, async () => undefined);
      await queueImportThumbnails(ctx, owner, async () => undefined);
      const queued = await ctx.db.kysely
        .selectFrom('task_inputs')
        .select('input')
        .where('input', '=', JSON.stringify({ importTaskId: importTask }))
        .execute();
      assert.equal(queued.length, 1);
    });
  });
}
