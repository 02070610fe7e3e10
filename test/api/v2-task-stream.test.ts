// GET /v2/tasks/events (one stream of all the team's tasks) and the tasks list's filters (type,
// projectId, status, housekeeping) through the real app on both databases. Tasks are moved by another
// connection, as a worker in another process would move them.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { type Context, createContext } from '../../src/context.ts';
import * as members from '../../src/repositories/project-members.repository.ts';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import { createKey } from '../../src/services/keys.service.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { MAX_STREAMS_PER_TEAM, STREAM_RETRY_AFTER_SECONDS } from '../../src/http/v2/tasks.routes.ts';
import { dialects } from '../helpers/dialects.ts';
import { newProject } from '../helpers/factories.ts';
import { listeningPort } from '../helpers/raw-http.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { waitFor } from '../helpers/wait.ts';

interface TaskView {
  id: number;
  type: string;
  status: string;
  meta: Record<string, unknown>;
  project: { id: number; title: string | null } | null;
  format: string | null;
}

interface ServerEvent {
  event: string;
  id: string;
  data: string;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Parses a text/event-stream body (WHATWG HTML §9.2.6): events, comments left out. */
function parseEvents(text: string): ServerEvent[] {
  const events: ServerEvent[] = [];
  for (const block of text.split('\n\n')) {
    const fields = block.split('\n').filter((line) => line !== '' && !line.startsWith(':'));
    if (fields.length === 0) continue;
    const field = (name: string) => fields.find((line) => line.startsWith(`${name}:`))?.slice(name.length + 1).trim() ?? '';
    events.push({ event: field('event'), id: field('id'), data: field('data') });
  }
  return events;
}

/** An open stream over a real connection: what it has read so far, and how to leave. */
interface OpenStream {
  status: number;
  events(): ServerEvent[];
  close(): void;
}

for (const dialect of dialects) {
  describe(`API v2 team task stream and list filters on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let alpha: number;
    let beta: number;
    let worker: Context;
    let port: number;
    before(async () => {
      t = await startTestApp(dialect);
      alpha = await ensureTeam(t.ctx.db.kysely, 'alpha');
      beta = await ensureTeam(t.ctx.db.kysely, 'beta');
      worker = await createContext(t.config, { migrate: false });
      port = await listeningPort(t.app);
    });
    after(async () => {
      await worker?.close();
      await t?.close();
    });

    const newTask = (teamId: number, type = 'import', projectId: number | null = null, meta: Record<string, unknown> = {}) =>
      tasks.createTask(worker.db.kysely, { teamId, userId: null, type, size: 0, meta, input: {}, projectId });
    const start = (id: number) =>
      worker.db.kysely.updateTable('tasks').set({ status: 'started', lease_owner: 'w', lease_expires_at: '2999-01-01T00:00:00.000Z', started_at: new Date().toISOString() }).where('id', '=', id).execute();
    const progress = (id: number, done: number) => worker.db.kysely.updateTable('tasks').set({ meta: JSON.stringify({ progress: { done, total: 3 } }) }).where('id', '=', id).execute();
    const finish = (id: number) => tasks.finishTask(worker.db.kysely, { id, owner: 'w', status: 'finished', meta: { progress: { done: 3, total: 3 } } });

    function openStream(options: { key?: string; query?: string; lastEventId?: string } = {}): Promise<OpenStream> {
      const headers: Record<string, string> = { authorization: `Bearer ${options.key ?? t.key}`, accept: 'text/event-stream' };
      if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
      const request = http.get({ host: '127.0.0.1', port, path: `/v2/tasks/events${options.query ?? ''}`, headers, agent: false });
      return new Promise((resolve, reject) => {
        request.once('error', reject).once('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('error', () => undefined);
          resolve({ status: res.statusCode ?? 0, events: () => parseEvents(text.slice(0, text.lastIndexOf('\n\n') + 2)), close: () => request.destroy() });
        });
      });
    }

    const taskEvents = (stream: OpenStream, id: number) => stream.events().filter((e) => e.event === 'task' && (JSON.parse(e.data) as TaskView).id === id).map((e) => JSON.parse(e.data) as TaskView);

    test('a snapshot of the running tasks first, then each change of each task in order; ended tasks once', async () => {
      const ended = await newTask(alpha);
      await start(ended);
      await finish(ended);
      const running = await newTask(alpha);
      await start(running);
      const stream = await openStream();
      try {
        assert.equal(stream.status, 200);
        const [snapshot] = await waitFor('the snapshot', () => stream.events().length > 0 && stream.events());
        assert.equal(snapshot!.event, 'snapshot');
        assert.match(snapshot!.id, ISO);
        assert.deepEqual((JSON.parse(snapshot!.data) as { tasks: TaskView[] }).tasks.map((x) => x.id), [running], 'running tasks only, not those that ended before');

        const later = await newTask(alpha);
        await waitFor('the new task', () => taskEvents(stream, later).length === 1);
        for (let done = 1; done <= 3; done++) {
          await progress(running, done);
          await waitFor(`progress ${done}`, () => taskEvents(stream, running).some((x) => (x.meta.progress as { done: number }).done === done));
        }
        await finish(running);
        await waitFor('the end', () => taskEvents(stream, running).some((x) => x.status === 'finished'));
        const seen = taskEvents(stream, running);
        assert.deepEqual(seen.map((x) => (x.meta.progress as { done: number }).done), [1, 2, 3, 3], 'every change, in order, none twice');
        assert.equal(seen.at(-1)!.status, 'finished');
        // Events are the time of their read, in order.
        const ids = stream.events().map((e) => e.id);
        assert.deepEqual([...ids].sort(), ids);

        await progress(later, 1);
        await waitFor('the later task’s change', () => taskEvents(stream, later).length === 2);
        assert.equal(taskEvents(stream, running).length, 4, 'an ended task is not sent again');
        await tasks.requestStop(worker.db.kysely, alpha, later);
      } finally {
        stream.close();
      }
    });

    test('only the caller’s team: another team’s tasks never appear; no key is a 401', async () => {
      const theirs = await newTask(beta);
      await start(theirs);
      const stream = await openStream();
      const other = await openStream({ key: t.otherKey });
      try {
        const mine = await newTask(alpha);
        const theirsLater = await newTask(beta);
        await waitFor('my task', () => taskEvents(stream, mine).length === 1);
        await waitFor('their task on their stream', () => taskEvents(other, theirsLater).length === 1);
        await progress(theirs, 2);
        await waitFor('their change on their stream', () => taskEvents(other, theirs).length === 1);
        const seen = stream.events().flatMap((e) => (e.event === 'snapshot' ? (JSON.parse(e.data) as { tasks: TaskView[] }).tasks : e.event === 'task' ? [JSON.parse(e.data) as TaskView] : []));
        assert.ok(seen.every((x) => x.id !== theirs && x.id !== theirsLater), 'no task of the other team');
        assert.ok(!other.events().some((e) => e.data.includes(`"id":${mine},`)), 'nor the other way');
        await tasks.requestStop(worker.db.kysely, alpha, mine);
        await tasks.requestStop(worker.db.kysely, beta, theirs);
        await tasks.requestStop(worker.db.kysely, beta, theirsLater);
      } finally {
        stream.close();
        other.close();
      }
      assert.equal((await t.request({ method: 'GET', url: '/v2/tasks/events', key: null })).statusCode, 401);
    });

    test('a member’s stream leaves out the tasks of projects they have no role in', async () => {
      const memberKey = await createKey(t.ctx.db.kysely, { team: 'alpha', user: 'streamer' });
      const hidden = await newProject(t.ctx, { title: 'hidden from members' });
      await members.setDefaultRole(t.ctx.db.kysely, hidden, null);
      const shown = await newProject(t.ctx, { title: 'shown to members' });
      const before = await newTask(alpha, 'import', hidden);
      await start(before);
      const stream = await openStream({ key: memberKey });
      const admin = await openStream();
      try {
        const secret = await newTask(alpha, 'import', hidden);
        const visible = await newTask(alpha, 'import', shown);
        await waitFor('the visible task', () => taskEvents(stream, visible).length === 1);
        await waitFor('the hidden one on an owner’s stream', () => taskEvents(admin, secret).length === 1);
        const seen = stream.events().flatMap((e) => (e.event === 'snapshot' ? (JSON.parse(e.data) as { tasks: TaskView[] }).tasks : e.event === 'task' ? [JSON.parse(e.data) as TaskView] : []));
        assert.deepEqual(seen.filter((x) => x.id === before || x.id === secret), [], 'no task of the hidden project');
        for (const id of [before, secret, visible]) await tasks.requestStop(worker.db.kysely, alpha, id);
      } finally {
        stream.close();
        admin.close();
      }
    });

    test('a stream resumed with Last-Event-ID gets the tasks that ended while it was away', async () => {
      const id = await newTask(alpha);
      await start(id);
      const first = await openStream();
      const [snapshot] = await waitFor('the snapshot', () => first.events().length > 0 && first.events());
      first.close();
      await finish(id);
      const resumed = await openStream({ lastEventId: snapshot!.id });
      const fresh = await openStream();
      try {
        const [again] = await waitFor('the resumed snapshot', () => resumed.events().length > 0 && resumed.events());
        const task = (JSON.parse(again!.data) as { tasks: TaskView[] }).tasks.find((x) => x.id === id);
        assert.equal(task?.status, 'finished');
        const [plain] = await waitFor('a fresh snapshot', () => fresh.events().length > 0 && fresh.events());
        assert.ok(!(JSON.parse(plain!.data) as { tasks: TaskView[] }).tasks.some((x) => x.id === id), 'a fresh stream holds running tasks only');
      } finally {
        resumed.close();
        fresh.close();
      }
    });

    test('a running task removed between two reads is announced as removed', async () => {
      const id = await newTask(alpha);
      await start(id);
      const stream = await openStream();
      try {
        await waitFor('the snapshot', () => stream.events().length > 0);
        // Ended and removed in one transaction: no read sees it ended.
        await worker.db.kysely.transaction().execute(async (trx) => {
          await tasks.finishTask(trx, { id, owner: 'w', status: 'stopped', meta: {} });
          await tasks.deleteEndedTask(trx, alpha, id);
        });
        const removed = await waitFor('the removal', () => stream.events().find((e) => e.event === 'removed'));
        assert.deepEqual(JSON.parse(removed.data), { id });
      } finally {
        stream.close();
      }
    });

    test(`the stream counts among the team’s ${MAX_STREAMS_PER_TEAM} streams`, async () => {
      const streams = await Promise.all(Array.from({ length: MAX_STREAMS_PER_TEAM }, () => openStream()));
      try {
        assert.ok(streams.every((s) => s.status === 200));
        const refused = await t.request({ method: 'GET', url: '/v2/tasks/events' });
        assert.equal(refused.statusCode, 429);
        assert.equal(refused.headers['retry-after'], String(STREAM_RETRY_AFTER_SECONDS));
      } finally {
        streams.forEach((s) => s.close());
      }
      await waitFor('a stream to be let in again', async () => {
        const again = await openStream();
        again.close();
        return again.status === 200;
      });
    });

    test('housekeeping=false leaves thumbnails tasks out of the stream', async () => {
      const stream = await openStream({ query: '?housekeeping=false' });
      try {
        const thumbs = await newTask(alpha, 'thumbnails');
        const real = await newTask(alpha, 'export');
        await waitFor('the export', () => taskEvents(stream, real).length === 1);
        assert.equal(taskEvents(stream, thumbs).length, 0);
        await tasks.requestStop(worker.db.kysely, alpha, thumbs);
        await tasks.requestStop(worker.db.kysely, alpha, real);
      } finally {
        stream.close();
      }
      assert.equal((await t.request({ method: 'GET', url: '/v2/tasks/events?housekeeping=maybe' })).statusCode, 400);
    });

    test('list filters: type, projectId, status, housekeeping; each task names its project', async () => {
      const cars = await newProject(t.ctx, { title: 'cars' });
      const boats = await newProject(t.ctx, { title: 'boats' });
      const foreign = await newProject(t.ctx, { team: 'beta', title: 'foreign' });
      const imp = await newTask(alpha, 'import', cars, { format: 'coco' });
      const thumbs = await newTask(alpha, 'thumbnails', cars);
      const exp = await newTask(alpha, 'export', boats, { format: 'yolo' });
      await start(exp);
      const theirs = await newTask(beta, 'import', foreign);
      const list = async (query: string, key?: string) => {
        const res = await t.request({ method: 'GET', url: `/v2/tasks${query}`, ...(key ? { key } : {}) });
        assert.equal(res.statusCode, 200, res.body);
        return json<{ items: TaskView[]; total?: number }>(res);
      };
      const ids = async (query: string) => (await list(query)).items.map((x) => x.id).filter((id) => [imp, thumbs, exp, theirs].includes(id));
      assert.deepEqual(await ids(`?projectId=${cars}`), [thumbs, imp]);
      assert.deepEqual(await ids(`?projectId=${cars}&housekeeping=false`), [imp]);
      assert.deepEqual(await ids(`?projectId=${cars}&type=thumbnails&housekeeping=false`), [thumbs], 'a type filter names housekeeping on purpose');
      assert.deepEqual(await ids(`?type=export&status=started`), [exp]);
      assert.deepEqual(await ids(`?projectId=${foreign}`), [], 'another team’s project finds nothing');
      assert.equal((await list(`?projectId=${cars}&housekeeping=false&count=true`)).total, 1);
      const shown = (await list(`?projectId=${boats}`)).items[0]!;
      assert.deepEqual({ project: shown.project, format: shown.format }, { project: { id: boats, title: 'boats' }, format: 'yolo' });
      assert.deepEqual((await list('?housekeeping=false&limit=1000')).items.filter((x) => x.type === 'thumbnails'), []);
      assert.equal((await t.request({ method: 'GET', url: '/v2/tasks?projectId=0' })).statusCode, 400);
      await tasks.requestStop(worker.db.kysely, alpha, imp);
      await tasks.requestStop(worker.db.kysely, alpha, thumbs);
      await tasks.requestStop(worker.db.kysely, alpha, exp);
      await tasks.requestStop(worker.db.kysely, beta, theirs);
    });
  });
}
