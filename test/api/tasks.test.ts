// GET /tasks and POST /tasks/:id/stop through the real app, on both databases. Tasks are created and
// moved through the repository, as a worker would move them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { dialects } from '../helpers/dialects.ts';
import { newProject } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface TaskBody {
  id: number;
  type: string;
  size: string;
  status: string;
  meta: Record<string, unknown>;
  startedAt: string | null;
  finishedAt: string | null;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

for (const dialect of dialects) {
  describe(`tasks API on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let alpha: number;
    let beta: number;
    before(async () => {
      t = await startTestApp(dialect);
      alpha = await ensureTeam(t.ctx.db.kysely, 'alpha');
      beta = await ensureTeam(t.ctx.db.kysely, 'beta');
    });
    after(async () => t?.close());

    const newTask = (teamId: number, meta: Record<string, unknown> = {}, size = 0) =>
      tasks.createTask(t.ctx.db.kysely, { teamId, userId: null, type: 'import', size, meta, input: { secret: 'input' } });

    /** Claims every queued task for a pretend worker; answers the claimed ids. */
    const claimAll = async (owner: string) => {
      const ids: number[] = [];
      for (;;) {
        const row = await tasks.claimTask(t.ctx.db.kysely, { owner, leaseMs: 60_000 });
        if (!row) return ids;
        ids.push(row.id);
      }
    };

    const list = async (query = '', key?: string) => {
      const res = await t.request({ method: 'GET', url: `/v1/tasks${query}`, ...(key ? { key } : {}) });
      assert.equal(res.statusCode, 200);
      return json<TaskBody[]>(res);
    };

    const stop = (id: number, key?: string) => t.request({ method: 'POST', url: `/v1/tasks/${id}/stop`, ...(key ? { key } : {}) });

    test('lists the team’s tasks in id order with the contract fields; input stays hidden', async () => {
      assert.deepEqual(await list(), []);
      const project = { id: 7, isNew: true, title: 'cars' };
      const first = await newTask(alpha, { project, datasets: [], path: null }, 123_456);
      const second = await newTask(alpha);
      await newTask(beta, { project: { id: 8, isNew: false, title: 'secret' } });

      const body = await list();
      assert.deepEqual(body.map((task) => task.id), [first, second]);
      assert.deepEqual(body[0], {
        id: first,
        type: 'import',
        size: '123456',
        status: 'queued',
        meta: { project, datasets: [], path: null },
        startedAt: null,
        finishedAt: null,
      });
      assert.deepEqual(body[1]!.meta, {});
    });

    test('`id` filters; a foreign, unknown or malformed id', async () => {
      const mine = await newTask(alpha);
      const theirs = await newTask(beta);
      assert.deepEqual((await list(`?id=${mine}`)).map((task) => task.id), [mine]);
      assert.deepEqual(await list(`?id=${theirs}`), []);
      assert.deepEqual(await list('?id=999999'), []);
      assert.deepEqual((await list(`?id=${theirs}`, t.otherKey)).map((task) => task.id), [theirs]);
      const bad = await t.request({ method: 'GET', url: '/v1/tasks?id=abc' });
      assert.equal(bad.statusCode, 400);
      assert.equal(json<{ error: string }>(bad).error, 'VALIDATION');
    });

    test('a started task shows its start time and progress; a failed one its error', async () => {
      await claimAll('bystander');
      const id = await newTask(alpha);
      const [claimed] = await claimAll('worker-a');
      assert.equal(claimed, id);
      assert.ok(await tasks.renewLease(t.ctx.db.kysely, { id, owner: 'worker-a', leaseMs: 60_000, meta: { progress: { done: 2, total: 5 } } }));
      const [running] = await list(`?id=${id}`);
      assert.equal(running!.status, 'started');
      assert.match(running!.startedAt ?? '', ISO);
      assert.equal(running!.finishedAt, null);
      assert.deepEqual(running!.meta, { progress: { done: 2, total: 5 } });

      const error = { code: 'INVALID_CONTENT', message: 'not an annotation' };
      assert.ok(await tasks.finishTask(t.ctx.db.kysely, { id, owner: 'worker-a', status: 'error', meta: { progress: { done: 2, total: 5 }, error } }));
      const [failed] = await list(`?id=${id}`);
      assert.equal(failed!.status, 'error');
      assert.match(failed!.finishedAt ?? '', ISO);
      assert.deepEqual(failed!.meta.error, error);
    });

    test('stop on a queued task answers terminating and the task is stopped at once', async () => {
      const id = await newTask(alpha);
      const res = await stop(id);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(json(res), { status: 'terminating' });
      const [task] = await list(`?id=${id}`);
      assert.equal(task!.status, 'stopped');
      assert.equal(task!.startedAt, null);
      assert.match(task!.finishedAt ?? '', ISO);
      // A worker never takes it up.
      assert.deepEqual(await claimAll('worker-b'), []);
    });

    test('stop on a started task answers terminating and leaves it terminating for its worker', async () => {
      await claimAll('bystander');
      const id = await newTask(alpha);
      await claimAll('worker-c');
      const res = await stop(id);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(json(res), { status: 'terminating' });
      const [task] = await list(`?id=${id}`);
      assert.equal(task!.status, 'terminating');
      assert.equal(task!.finishedAt, null);
      assert.deepEqual(await tasks.renewLease(t.ctx.db.kysely, { id, owner: 'worker-c', leaseMs: 60_000 }), { stopRequested: true });
    });

    test('stop on a terminating, stopped, finished or failed task is 409', async () => {
      await claimAll('bystander');
      const terminating = await newTask(alpha);
      const stopped = await newTask(alpha);
      const finished = await newTask(alpha);
      const failed = await newTask(alpha);
      assert.equal((await stop(stopped)).statusCode, 200);
      await claimAll('worker-d');
      assert.equal((await stop(terminating)).statusCode, 200);
      await tasks.finishTask(t.ctx.db.kysely, { id: finished, owner: 'worker-d', status: 'finished', meta: {} });
      await tasks.finishTask(t.ctx.db.kysely, { id: failed, owner: 'worker-d', status: 'error', meta: {} });
      for (const id of [terminating, stopped, finished, failed]) {
        const res = await stop(id);
        assert.equal(res.statusCode, 409, `task ${id}`);
        assert.equal(json<{ error: string }>(res).error, 'CONFLICT');
      }
    });

    test('another team’s task answers stop exactly like a missing one and is left alone', async () => {
      const theirs = await newTask(beta);
      const foreign = await stop(theirs);
      const missing = await stop(999_999);
      assert.equal(foreign.statusCode, 404);
      assert.equal(missing.statusCode, 404);
      assert.equal(json<{ error: string }>(foreign).error, 'NOT_FOUND');
      assert.equal(json<{ error: string }>(missing).error, 'NOT_FOUND');
      const [task] = await list(`?id=${theirs}`, t.otherKey);
      assert.equal(task!.status, 'queued');
    });

    test('a read-only key may list but not stop', async () => {
      // A task of a project its user has a role in (a member sees no task of no project but their own).
      const projectId = await newProject(t.ctx);
      const id = await tasks.createTask(t.ctx.db.kysely, { teamId: alpha, userId: null, type: 'import', size: 0, meta: {}, input: {}, projectId });
      assert.equal((await list(`?id=${id}`, t.readOnlyKey)).length, 1);
      const res = await stop(id, t.readOnlyKey);
      assert.equal(res.statusCode, 403);
      assert.equal((await list(`?id=${id}`))[0]!.status, 'queued');
    });
  });
}
