// The task runner against a real database, on both dialects: exclusive claims across runners with
// their own connections, stop, progress, expired leases, failures and the hand-back on shutdown.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, test } from 'node:test';
import pino from 'pino';
import { type Context, createContext } from '../../src/context.ts';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { type TaskHandler, TaskFailure, TaskInterrupted, type TaskRun } from '../../src/tasks/handler.ts';
import { type TaskRunner, type TaskRunnerOptions, startTaskRunner } from '../../src/tasks/runner.ts';
import { dialects } from '../helpers/dialects.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { waitFor } from '../helpers/wait.ts';

const log = pino({ level: 'silent' });

interface SleepInput {
  units: number;
  unitMs: number;
}

interface TaskBody {
  id: number;
  status: string;
  meta: Record<string, unknown>;
  startedAt: string | null;
  finishedAt: string | null;
}

for (const dialect of dialects) {
  describe(`task runner on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let teamId: number;
    const runners: TaskRunner[] = [];
    const extraContexts: Context[] = [];
    /** Every start of a handler: which task, which attempt, and what meta it found. */
    let starts: { taskId: number; attempt: number; meta: Record<string, unknown> }[];
    let interruptions: { taskId: number; reason: string }[];

    const handlers: Record<string, TaskHandler> = {
      'test-sleep': async (run: TaskRun) => {
        starts.push({ taskId: run.taskId, attempt: run.attempt, meta: structuredClone(run.meta) });
        const { units, unitMs } = run.input as SleepInput;
        try {
          for (let done = 1; done <= units; done += 1) {
            await sleep(unitMs);
            await run.checkpoint({ done, total: units });
          }
        } catch (error) {
          if (error instanceof TaskInterrupted) interruptions.push({ taskId: run.taskId, reason: error.reason });
          throw error;
        }
      },
      'test-fail': async (run) => {
        await run.updateMeta({ stage: 'reading' });
        throw new TaskFailure('INVALID_CONTENT', 'file a.json is not an annotation');
      },
      'test-crash': async () => {
        throw new Error('connection string postgres://user:hunter2@db leaked');
      },
    };

    const runner = (options: Partial<TaskRunnerOptions> = {}, ctx: Context = t.ctx) => {
      const started = startTaskRunner(ctx, log, { handlers, pollMs: 20, leaseMs: 600, ...options });
      runners.push(started);
      return started;
    };

    const newTask = (type: string, input: unknown = {}) =>
      tasks.createTask(t.ctx.db.kysely, { teamId, userId: null, type, size: 10, meta: { kind: 'test' }, input });

    const row = (id: number) => t.ctx.db.kysely.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    const apiTask = async (id: number) => {
      const [task] = json<TaskBody[]>(await t.request({ method: 'GET', url: `/v1/tasks?id=${id}` }));
      assert.ok(task, `task ${id} is listed`);
      return task;
    };

    const untilStatus = (id: number, status: string, timeoutMs = 5000) =>
      waitFor(`task ${id} to be ${status}`, async () => {
        const task = await apiTask(id);
        return task.status === status ? task : undefined;
      }, timeoutMs);

    beforeEach(async () => {
      starts = [];
      interruptions = [];
      t = await startTestApp(dialect);
      teamId = await ensureTeam(t.ctx.db.kysely, 'alpha');
    });

    afterEach(async () => {
      await Promise.all(runners.splice(0).map((r) => r.stop()));
      await Promise.all(extraContexts.splice(0).map((c) => c.close()));
      await t.close();
    });

    test('refuses to start without handlers', () => {
      assert.throws(() => startTaskRunner(t.ctx, log, { handlers: {} }), /at least one task handler/);
    });

    test('concurrent claims from two connections never take the same task', async () => {
      const other = await createContext(t.config);
      extraContexts.push(other);
      const ids = new Set<number>();
      for (let i = 0; i < 20; i += 1) ids.add(await newTask('test-sleep'));
      const claims = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          tasks.claimTask((i % 2 ? other : t.ctx).db.kysely, { owner: `claimer-${i}`, leaseMs: 60_000 }),
        ),
      );
      const claimed = claims.filter((c) => c !== undefined).map((c) => c.id);
      assert.equal(claimed.length, 20);
      assert.deepEqual(new Set(claimed), ids);
      for (const c of claims.filter((c) => c !== undefined)) {
        assert.equal(c.status, 'started');
        assert.equal(c.attempts, 1);
      }
    });

    test('two runners with their own connections run each of many tasks exactly once', async () => {
      const other = await createContext(t.config);
      extraContexts.push(other);
      const ids: number[] = [];
      for (let i = 0; i < 30; i += 1) ids.push(await newTask('test-sleep', { units: 2, unitMs: 5 }));
      const a = runner({ owner: 'runner-a' });
      const b = runner({ owner: 'runner-b' }, other);
      await waitFor('every task to finish', async () => {
        const left = await t.ctx.db.kysely.selectFrom('tasks').select('id').where('status', '!=', 'finished').execute();
        return left.length === 0;
      }, 15_000);
      await Promise.all([a.stop(), b.stop()]);
      assert.deepEqual(starts.map((s) => s.taskId).sort((x, y) => x - y), ids);
      assert.ok(starts.every((s) => s.attempt === 1));
      for (const id of ids) {
        const task = await apiTask(id);
        assert.deepEqual(task.meta, { kind: 'test', progress: { done: 2, total: 2 } });
        assert.ok(task.startedAt && task.finishedAt && task.startedAt <= task.finishedAt);
      }
    });

    test('progress is visible while the task runs, and the final count stays when it finishes', async () => {
      const id = await newTask('test-sleep', { units: 20, unitMs: 40 });
      runner();
      const running = await waitFor('progress', async () => {
        const task = await apiTask(id);
        const progress = task.meta.progress as { done: number } | undefined;
        return task.status === 'started' && progress && progress.done > 0 ? task : undefined;
      });
      assert.equal((running.meta.progress as { total: number }).total, 20);
      assert.ok(running.startedAt);
      assert.equal(running.finishedAt, null);
      const finished = await untilStatus(id, 'finished');
      assert.deepEqual(finished.meta, { kind: 'test', progress: { done: 20, total: 20 } });
      assert.ok(finished.finishedAt);
      const stored = await row(id);
      assert.equal(stored.lease_owner, null);
      assert.equal(stored.lease_expires_at, null);
    });

    test('a stopped queued task is never run', async () => {
      const stopped = await newTask('test-sleep', { units: 1, unitMs: 1 });
      const res = await t.request({ method: 'POST', url: `/v1/tasks/${stopped}/stop` });
      assert.deepEqual(json(res), { status: 'terminating' });
      const next = await newTask('test-sleep', { units: 1, unitMs: 1 });
      runner();
      await untilStatus(next, 'finished');
      const task = await apiTask(stopped);
      assert.equal(task.status, 'stopped');
      assert.equal(task.startedAt, null);
      assert.ok(task.finishedAt);
      assert.deepEqual(starts.map((s) => s.taskId), [next]);
    });

    test('a started task asked to stop is stopped at its next checkpoint', async () => {
      const id = await newTask('test-sleep', { units: 1000, unitMs: 20 });
      runner();
      await waitFor('the task to start', async () => (await row(id)).status === 'started');
      const res = await t.request({ method: 'POST', url: `/v1/tasks/${id}/stop` });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(json(res), { status: 'terminating' });
      const asked = Date.now();
      // Well before the task's 20 s, with room for a loaded machine.
      const stopped = await untilStatus(id, 'stopped', 5000);
      assert.ok(Date.now() - asked < 5000);
      assert.ok(stopped.finishedAt);
      assert.ok((stopped.meta.progress as { done: number }).done < 1000);
      assert.deepEqual(interruptions, [{ taskId: id, reason: 'stop-requested' }]);
    });

    test('a task whose worker died is taken up again as attempt 2 and finishes', async () => {
      const id = await newTask('test-sleep', { units: 2, unitMs: 5 });
      const dead = await tasks.claimTask(t.ctx.db.kysely, { owner: 'dead-worker', leaseMs: 50 });
      assert.equal(dead?.id, id);
      assert.equal(dead?.attempts, 1);
      const firstStart = dead?.started_at;
      await sleep(80);
      runner();
      const finished = await untilStatus(id, 'finished');
      assert.deepEqual(starts.map((s) => [s.taskId, s.attempt]), [[id, 2]]);
      assert.equal(finished.startedAt, firstStart, 'startedAt is the first claim');
    });

    test('after MAX_ATTEMPTS lost workers the task ends as error WORKER_LOST', async () => {
      const id = await newTask('test-sleep', { units: 1, unitMs: 1 });
      for (let attempt = 1; attempt <= tasks.MAX_ATTEMPTS; attempt += 1) {
        const claimed = await tasks.claimTask(t.ctx.db.kysely, { owner: `dead-${attempt}`, leaseMs: 60_000 });
        assert.equal(claimed?.id, id);
        assert.equal(claimed?.attempts, attempt);
        // A live lease is not taken.
        assert.equal(await tasks.claimTask(t.ctx.db.kysely, { owner: 'eager', leaseMs: 300 }), undefined);
        // The worker is gone and its lease runs out: moved into the past here, where waiting for a short
        // lease to end let a busy machine's late claim above find it ended already.
        const ended = new Date(Date.now() - 1000).toISOString();
        await t.ctx.db.kysely.updateTable('tasks').set({ lease_expires_at: ended }).where('id', '=', id).execute();
      }
      assert.equal(await tasks.claimTask(t.ctx.db.kysely, { owner: 'last', leaseMs: 30 }), undefined);
      const task = await apiTask(id);
      assert.equal(task.status, 'error');
      assert.ok(task.finishedAt);
      assert.equal((task.meta.error as { code: string }).code, 'WORKER_LOST');
      assert.equal(typeof (task.meta.error as { message: string }).message, 'string');
      assert.equal(task.meta.kind, 'test', 'the rest of the meta is kept');
      assert.equal((await row(id)).lease_owner, null);
    });

    test('a task being stopped whose worker died ends as stopped', async () => {
      const id = await newTask('test-sleep', { units: 1, unitMs: 1 });
      await tasks.claimTask(t.ctx.db.kysely, { owner: 'dead-worker', leaseMs: 30 });
      await t.request({ method: 'POST', url: `/v1/tasks/${id}/stop` });
      assert.equal((await apiTask(id)).status, 'terminating');
      await sleep(60);
      assert.equal(await tasks.claimTask(t.ctx.db.kysely, { owner: 'next', leaseMs: 30 }), undefined);
      const task = await apiTask(id);
      assert.equal(task.status, 'stopped');
      assert.ok(task.finishedAt);
    });

    test('a TaskFailure ends the task as error with its code and message', async () => {
      const id = await newTask('test-fail');
      runner();
      const task = await untilStatus(id, 'error');
      assert.deepEqual(task.meta, { kind: 'test', stage: 'reading', error: { code: 'INVALID_CONTENT', message: 'file a.json is not an annotation' } });
      assert.ok(task.finishedAt);
    });

    test('any other failure ends as error INTERNAL without the internal message', async () => {
      const id = await newTask('test-crash');
      runner();
      const task = await untilStatus(id, 'error');
      const error = task.meta.error as { code: string; message: string };
      assert.equal(error.code, 'INTERNAL');
      assert.doesNotMatch(error.message, /hunter2|postgres/);
    });

    test('a task of a type without a handler ends as error UNKNOWN_TASK_TYPE', async () => {
      const id = await newTask('no-such-type');
      runner();
      const task = await untilStatus(id, 'error');
      assert.equal((task.meta.error as { code: string }).code, 'UNKNOWN_TASK_TYPE');
    });

    test('a worker that lost its lease writes nothing more', async () => {
      const id = await newTask('test-sleep', { units: 1000, unitMs: 10 });
      runner();
      await waitFor('the task to start', async () => (await row(id)).status === 'started');
      // The thief holds a live lease of its own: with the runner's short one left in place, a busy
      // machine let it run out and the runner claim the task back before the row was read.
      const thiefLease = new Date(Date.now() + 60_000).toISOString();
      await t.ctx.db.kysely.updateTable('tasks').set({ lease_owner: 'thief', lease_expires_at: thiefLease }).where('id', '=', id).execute();
      await waitFor('the interruption', async () => interruptions.length > 0, 5000);
      assert.deepEqual(interruptions, [{ taskId: id, reason: 'lease-lost' }]);
      await sleep(100);
      const stored = await row(id);
      assert.equal(stored.status, 'started');
      assert.equal(stored.lease_owner, 'thief');
      assert.equal(stored.finished_at, null);
    });

    test('stop() hands the running task back and another runner resumes it at once', async () => {
      const id = await newTask('test-sleep', { units: 40, unitMs: 20 });
      const first = runner({ owner: 'first' });
      await waitFor('some progress', async () => {
        const progress = (await apiTask(id)).meta.progress as { done: number } | undefined;
        return progress && progress.done >= 3;
      });
      const asked = Date.now();
      await first.stop();
      assert.ok(Date.now() - asked < 1000, 'stop() waits for one checkpoint, not for the task');
      const released = await row(id);
      assert.equal(released.status, 'queued');
      assert.equal(released.lease_owner, null);
      assert.ok(released.started_at);
      const progressAtHandBack = (tasks.parseDocument(released.meta).progress as { done: number }).done;
      assert.ok(progressAtHandBack >= 3);
      assert.deepEqual(interruptions, [{ taskId: id, reason: 'lease-lost' }]);

      runner({ owner: 'second' });
      await untilStatus(id, 'finished');
      assert.deepEqual(starts.map((s) => s.attempt), [1, 2]);
      assert.equal((starts[1]!.meta.progress as { done: number }).done, progressAtHandBack, 'the resumed run sees the earlier progress');
    });

    test('an idle runner claims a task queued in its process at once, and one queued elsewhere at its next look', async () => {
      runner({ pollMs: 3000 });
      await sleep(100);
      const signalled = await newTask('test-sleep', { units: 1, unitMs: 1 });
      const asked = Date.now();
      t.ctx.tasksQueued.notify();
      await untilStatus(signalled, 'finished');
      // Before the runner's next look (3 s): the signal woke it.
      assert.ok(Date.now() - asked < 2500, `claimed after ${Date.now() - asked} ms`);

      await sleep(100);
      const unsignalled = await newTask('test-sleep', { units: 1, unitMs: 1 });
      await sleep(1000);
      assert.equal((await row(unsignalled)).status, 'queued', 'without the signal the runner waits for its poll');
      await untilStatus(unsignalled, 'finished', 5000);
    });

    test('stop() of an idle runner returns at once', async () => {
      const idle = runner({ pollMs: 5000 });
      await sleep(50);
      const asked = Date.now();
      await idle.stop();
      assert.ok(Date.now() - asked < 2000, 'not a wait for the next look (5 s)');
    });
  });
}
