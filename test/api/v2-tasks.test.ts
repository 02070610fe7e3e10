// /v2/tasks (list, read, stop, delete, Server-Sent Events) and /v2/imports through the real app on both
// databases. The import worker runs on a context of its own, as `annostore worker` in another process
// would: the event stream learns of its progress through the database only.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { type Context, createContext } from '../../src/context.ts';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { MAX_STREAMS_PER_TEAM, STREAM_RETRY_AFTER_SECONDS } from '../../src/http/v2/tasks.routes.ts';
import { THUMBNAILS_TASK } from '../../src/services/thumbnail-tasks.ts';
import { archiveKey } from '../../src/storage/archive-store.ts';
import { importHandler } from '../../src/tasks/handlers/import.handler.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { dialects } from '../helpers/dialects.ts';
import { hashOf, newProject } from '../helpers/factories.ts';
import { type ProjectFile, importAndRead } from '../helpers/importing.ts';
import { multipartBody, pngImage } from '../helpers/multipart.ts';
import { waitForLockWaitOn } from '../helpers/pg-lock-wait.ts';
import { connect, listeningPort, requestHead, write } from '../helpers/raw-http.ts';
import { waitFor } from '../helpers/wait.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { Readable } from 'node:stream';

interface TaskView {
  id: number;
  type: string;
  status: string;
  size: number;
  meta: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

interface Page<T> {
  items: T[];
  nextCursor: string | null;
  total?: number;
}

interface ServerEvent {
  event: string;
  id: string;
  data: string;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const json_ = (value: unknown) => Buffer.from(JSON.stringify(value));

/** Parses a text/event-stream body (WHATWG HTML §9.2.6): events, comments left out. */
function parseEvents(text: string): ServerEvent[] {
  const events: ServerEvent[] = [];
  for (const block of text.split('\n\n')) {
    const fields = block.split('\n').filter((line) => line !== '' && !line.startsWith(':'));
    if (fields.length === 0) continue;
    const field = (name: string) =>
      fields
        .filter((line) => line.startsWith(`${name}:`))
        .map((line) => line.slice(name.length + 1).replace(/^ /, ''))
        .join('\n');
    events.push({ event: field('event') || 'message', id: field('id'), data: field('data') });
  }
  return events;
}

async function sampleProject(seed: number): Promise<ProjectFile[]> {
  const meta = { classes: [{ title: 'car', shape: 'polygon', color: '#FF0000' }], tags_images: ['daytime'], tags_objects: [] };
  const files: ProjectFile[] = [{ path: 'meta.json', type: 'class', content: json_(meta) }];
  for (let i = 0; i < 6; i++) {
    files.push({ path: `city/img/${i}.png`, type: 'image', content: await pngImage(32 + i, 24, seed + i) });
    files.push({
      path: `city/ann/${i}.png.json`,
      type: 'annotation',
      content: json_({
        description: `image ${i}`,
        tags: i % 2 ? ['daytime'] : [],
        size: { width: 32 + i, height: 24 },
        objects: [{ classTitle: 'car', description: '', tags: [], bitmap: null, points: { exterior: [[1, 1], [10, 1], [10, 10]], interior: [] } }],
      }),
    });
  }
  return files;
}

for (const dialect of dialects) {
  describe(`API v2 tasks and imports on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let alpha: number;
    let beta: number;
    /** The worker's own context: another connection to the same database. */
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

    /** A task that stays where the test puts it: no worker runs while these tests do. */
    const newTask = (teamId: number, type = 'probe', size = 0) => tasks.createTask(t.ctx.db.kysely, { teamId, userId: null, type, size, meta: { label: type }, input: {} });
    const claim = async (id: number) => {
      const row = await t.ctx.db.kysely.updateTable('tasks').set({ status: 'started', lease_owner: 'test', lease_expires_at: '2999-01-01T00:00:00.000Z', started_at: new Date().toISOString() }).where('id', '=', id).returning('id').executeTakeFirst();
      assert.ok(row);
    };
    const finish = (id: number, status: 'finished' | 'error' | 'stopped' = 'finished', meta: Record<string, unknown> = { done: true }) =>
      tasks.finishTask(t.ctx.db.kysely, { id, owner: 'test', status, meta });
    const get = (url: string, key?: string) => t.request({ method: 'GET', url, ...(key ? { key } : {}) });

    /** Opens the event stream over a real HTTP connection and reads it until the server closes it. */
    async function readStream(taskId: number, key = t.key, headers: Record<string, string> = {}) {
      const res = await fetch(`http://127.0.0.1:${port}/v2/tasks/${taskId}/events`, {
        headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', ...headers },
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      return { res, text, events: parseEvents(text) };
    }

    test('a task as v2 shows it: integer size, creation time, an ETag; another team’s is a 404', async () => {
      const id = await newTask(alpha, 'probe', 123_456);
      const res = await get(`/v2/tasks/${id}`);
      assert.equal(res.statusCode, 200, res.body);
      const task = json<TaskView>(res);
      assert.deepEqual({ ...task, createdAt: 'x' }, { id, type: 'probe', status: 'queued', size: 123_456, meta: { label: 'probe' }, project: null, format: null, createdAt: 'x', startedAt: null, finishedAt: null });
      assert.match(task.createdAt, ISO);
      assert.ok(res.headers.etag);
      assert.equal((await t.request({ method: 'GET', url: `/v2/tasks/${id}`, headers: { 'if-none-match': String(res.headers.etag) } })).statusCode, 304);
      const theirs = await get(`/v2/tasks/${id}`, t.otherKey);
      assert.equal(theirs.statusCode, 404);
      assert.match(String(theirs.headers['content-type']), /^application\/problem\+json/);
      assert.equal(json<{ code: string }>(theirs).code, 'NOT_FOUND');
      assert.equal((await get('/v2/tasks/999999')).statusCode, 404);
      await tasks.requestStop(t.ctx.db.kysely, alpha, id);
    });

    test('the list: newest first, filtered by type and status, paged by cursor, counted on request; the team’s only', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push(await newTask(alpha, 'listed'));
      await newTask(beta, 'listed');
      await claim(ids[1]!);
      await finish(ids[1]!);
      await claim(ids[3]!);
      const seen: number[] = [];
      let url: string | null = '/v2/tasks?type=listed&limit=2&count=true';
      let pages = 0;
      while (url) {
        const res = await get(url);
        assert.equal(res.statusCode, 200, res.body);
        const page = json<Page<TaskView>>(res);
        assert.equal(page.total, 5);
        assert.ok(page.items.length <= 2);
        seen.push(...page.items.map((task) => task.id));
        if (page.nextCursor) {
          assert.match(String(res.headers.link), /rel="next"/);
          url = `/v2/tasks?type=listed&limit=2&count=true&cursor=${page.nextCursor}`;
        } else {
          assert.equal(res.headers.link, undefined);
          url = null;
        }
        pages++;
      }
      assert.equal(pages, 3);
      assert.deepEqual(seen, [...ids].reverse());
      const finished = json<Page<TaskView>>(await get('/v2/tasks?type=listed&status=finished'));
      assert.deepEqual(finished.items.map((task) => task.id), [ids[1]]);
      assert.equal(finished.items[0]!.status, 'finished');
      const started = json<Page<TaskView>>(await get('/v2/tasks?type=listed&status=started'));
      assert.deepEqual(started.items.map((task) => task.id), [ids[3]]);
      assert.equal(json<Page<TaskView>>(await get('/v2/tasks?type=listed', t.otherKey)).items.length, 1);
      assert.equal((await get('/v2/tasks?cursor=not-a-cursor')).statusCode, 400);
      assert.equal((await get('/v2/tasks?status=sleeping')).statusCode, 400);
      assert.equal((await get('/v2/tasks?limit=1001')).statusCode, 400);
      for (const id of ids) await tasks.requestStop(t.ctx.db.kysely, alpha, id);
    });

    test('stop: a queued task stops at once, a running one is terminating, an ended one is a 409', async () => {
      const queued = await newTask(alpha);
      const stopped = await t.request({ method: 'POST', url: `/v2/tasks/${queued}/stop` });
      assert.equal(stopped.statusCode, 202, stopped.body);
      assert.equal(json<TaskView>(stopped).status, 'stopped');
      assert.match(json<TaskView>(stopped).finishedAt!, ISO);

      const running = await newTask(alpha);
      await claim(running);
      assert.equal((await t.request({ method: 'POST', url: `/v2/tasks/${running}/stop`, key: t.readOnlyKey })).statusCode, 403);
      assert.equal((await t.request({ method: 'POST', url: `/v2/tasks/${running}/stop`, key: t.otherKey })).statusCode, 404);
      const terminating = await t.request({ method: 'POST', url: `/v2/tasks/${running}/stop` });
      assert.equal(terminating.statusCode, 202);
      assert.equal(json<TaskView>(terminating).status, 'terminating');

      const again = await t.request({ method: 'POST', url: `/v2/tasks/${queued}/stop` });
      assert.equal(again.statusCode, 409);
      assert.equal(json<{ code: string }>(again).code, 'CONFLICT');
      await finish(running, 'stopped');
    });

    test('stop: a thumbnails task, which v2 lists, is stopped through v2; v1, which does not list it, answers 404', async () => {
      const id = await newTask(alpha, THUMBNAILS_TASK);
      assert.ok(json<Page<TaskView>>(await get(`/v2/tasks?type=${THUMBNAILS_TASK}`)).items.some((task) => task.id === id));
      const v1 = await t.request({ method: 'POST', url: `/v1/tasks/${id}/stop` });
      assert.equal(v1.statusCode, 404, v1.body);
      assert.equal(json<TaskView>(await get(`/v2/tasks/${id}`)).status, 'queued');
      const stopped = await t.request({ method: 'POST', url: `/v2/tasks/${id}/stop` });
      assert.equal(stopped.statusCode, 202, stopped.body);
      assert.equal(json<TaskView>(stopped).status, 'stopped');
    });

    test('delete: only an ended task; an export’s archive goes with it; another team’s is a 404', async () => {
      const queued = await newTask(alpha);
      const running = await newTask(alpha);
      await claim(running);
      for (const id of [queued, running]) {
        const res = await t.request({ method: 'DELETE', url: `/v2/tasks/${id}` });
        assert.equal(res.statusCode, 409, res.body);
        assert.equal(json<TaskView>(await get(`/v2/tasks/${id}`)).id, id);
      }
      await finish(running, 'error', { error: { code: 'X', message: 'failed' } });
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/tasks/${running}`, key: t.otherKey })).statusCode, 404);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/tasks/${running}`, key: t.readOnlyKey })).statusCode, 403);
      const stale = await t.request({ method: 'DELETE', url: `/v2/tasks/${running}`, headers: { 'if-match': '"an older version"' } });
      assert.equal(stale.statusCode, 412);
      const etag = String((await get(`/v2/tasks/${running}`)).headers.etag);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/tasks/${running}`, headers: { 'if-match': etag } })).statusCode, 204);
      assert.equal((await get(`/v2/tasks/${running}`)).statusCode, 404);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/tasks/${running}` })).statusCode, 404);

      const exported = await newTask(alpha, 'export');
      await claim(exported);
      await t.ctx.archives.put(archiveKey(alpha, exported), Readable.from([Buffer.from('an archive')]));
      await finish(exported);
      assert.ok(await t.ctx.archives.stat(archiveKey(alpha, exported)));
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/tasks/${exported}` })).statusCode, 204);
      assert.equal(await t.ctx.archives.stat(archiveKey(alpha, exported)), null);
      await tasks.requestStop(t.ctx.db.kysely, alpha, queued);
    });

    // On SQLite a writer holds the one write lock of the file, and the second connection of this test
    // runs in the same thread: it could not wait for the first without stopping it.
    test('delete: a task removed by another connection while the delete waits for its row is a 404, not a success', { skip: dialect.name !== 'postgres' }, async () => {
      const id = await newTask(alpha);
      await claim(id);
      await finish(id);
      const etag = String((await get(`/v2/tasks/${id}`)).headers.etag);
      let answer: ReturnType<typeof t.request> | undefined;
      await worker.db.kysely.transaction().execute(async (trx) => {
        await trx.updateTable('tasks').set({ meta: JSON.stringify({ done: true }) }).where('id', '=', id).execute();
        answer = t.request({ method: 'DELETE', url: `/v2/tasks/${id}`, headers: { 'if-match': etag } });
        await waitForLockWaitOn(trx);
        await trx.deleteFrom('tasks').where('id', '=', id).execute();
      });
      const res = await answer!;
      assert.equal(res.statusCode, 404, res.body);
    });

    test('events: an ended task answers one final event and the stream ends; a reconnect is told to stop', async () => {
      const id = await newTask(alpha);
      await claim(id);
      await finish(id, 'finished', { result: 42 });
      const { res, events } = await readStream(id);
      assert.equal(res.status, 200);
      assert.match(String(res.headers.get('content-type')), /^text\/event-stream/);
      assert.equal(res.headers.get('cache-control'), 'no-cache, no-transform');
      assert.equal(events.length, 1);
      assert.equal(events[0]!.event, 'final');
      const task = JSON.parse(events[0]!.data) as TaskView;
      assert.equal(task.status, 'finished');
      assert.deepEqual(task.meta, { result: 42 });
      const reconnect = await readStream(id, t.key, { 'last-event-id': events[0]!.id });
      assert.equal(reconnect.res.status, 204);
      const theirs = await readStream(id, t.otherKey);
      assert.equal(theirs.res.status, 404);
      assert.match(String(theirs.res.headers.get('content-type')), /^application\/problem\+json/);
    });

    test('events: a change made by another connection arrives, and a client that leaves ends the server’s side', async () => {
      const id = await newTask(alpha);
      // The server's end of each connection, by the client's port, to see it closed.
      const serverSockets = new Map<number, Socket>();
      const onConnection = (socket: Socket) => serverSockets.set(socket.remotePort!, socket);
      t.app.server.on('connection', onConnection);
      const request = http.get({ host: '127.0.0.1', port, path: `/v2/tasks/${id}/events`, headers: { authorization: `Bearer ${t.key}` }, agent: false });
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => request.once('response', resolve).once('error', reject));
      t.app.server.off('connection', onConnection);
      assert.equal(res.statusCode, 200);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      const nextEvents = (count: number) => waitFor(`${count} events`, () => parseEvents(text).length >= count && parseEvents(text));
      assert.equal(JSON.parse((await nextEvents(1))[0]!.data).status, 'queued');
      await worker.db.kysely.updateTable('tasks').set({ meta: JSON.stringify({ progress: { done: 1, total: 3 } }) }).where('id', '=', id).execute();
      const second = (await nextEvents(2))[1]!;
      assert.equal(second.event, 'progress');
      assert.deepEqual(JSON.parse(second.data).meta, { progress: { done: 1, total: 3 } });
      assert.ok(!res.complete, 'the stream stays open while the task runs');

      const serverSide = serverSockets.get(request.socket!.localPort!)!;
      assert.ok(serverSide);
      request.destroy();
      await waitFor('the server to close its end', () => serverSide.destroyed);
      await tasks.requestStop(t.ctx.db.kysely, alpha, id);
    });

    test(`events: a team holds at most ${MAX_STREAMS_PER_TEAM} streams open at once; a closed one makes room`, async () => {
      const id = await newTask(alpha);
      const open = (key = t.key) =>
        new Promise<http.ClientRequest & { status?: number }>((resolve, reject) => {
          const request = http.get({ host: '127.0.0.1', port, path: `/v2/tasks/${id}/events`, headers: { authorization: `Bearer ${key}` }, agent: false });
          request.once('response', (res) => resolve(Object.assign(request, { status: res.statusCode })));
          request.once('error', reject);
        });
      const streams = [];
      for (let i = 0; i < MAX_STREAMS_PER_TEAM; i++) streams.push(await open());
      assert.ok(streams.every((s) => s.status === 200));
      const refused = await t.request({ method: 'GET', url: `/v2/tasks/${id}/events` });
      assert.equal(refused.statusCode, 429);
      assert.equal(json<{ code: string }>(refused).code, 'RATE_LIMITED');
      assert.equal(refused.headers['retry-after'], String(STREAM_RETRY_AFTER_SECONDS));
      assert.equal(json<{ code: string }>(await t.request({ method: 'GET', url: `/v2/tasks/${id}/events`, key: t.otherKey })).code, 'NOT_FOUND', 'another team counts on its own');
      streams.pop()!.destroy();
      const again = await waitFor('a stream to be let go', async () => {
        const next = await open();
        if (next.status === 200) return next;
        next.destroy();
        return undefined;
      });
      for (const s of [...streams, again]) s.destroy();
      await tasks.requestStop(t.ctx.db.kysely, alpha, id);
    });

    test('events: clients that close at once, before the first state is read, leave no stream behind', async () => {
      const id = await newTask(alpha);
      try {
        // One more than the limit: had any of them kept its slot, the limit would be reached.
        const gone = [];
        for (let i = 0; i <= MAX_STREAMS_PER_TEAM; i++) {
          const { socket, answer } = connect(port);
          await write(socket, requestHead('GET', `/v2/tasks/${id}/events`, { authorization: `Bearer ${t.key}` }));
          socket.destroy();
          gone.push(answer);
        }
        await Promise.all(gone);
        const stream = await waitFor('a stream to open after the clients left', async () => {
          const request = http.get({ host: '127.0.0.1', port, path: `/v2/tasks/${id}/events`, headers: { authorization: `Bearer ${t.key}` }, agent: false });
          const res = await new Promise<http.IncomingMessage>((resolve, reject) => request.once('response', resolve).once('error', reject));
          if (res.statusCode === 200) return request;
          request.destroy();
          return undefined;
        });
        stream.destroy();
      } finally {
        // Ends the streams of the task still running, so that a failure ends too.
        await tasks.requestStop(t.ctx.db.kysely, alpha, id);
      }
    });

    /** Imports the files through /v2 the way a client does, following the task by its event stream. */
    async function importThroughV2(files: ProjectFile[], title: string) {
      const hashes = files.map((f) => hashOf(f.content));
      const check = await t.request({ method: 'POST', url: '/v2/imports/hash-check', payload: { hashes } });
      assert.equal(check.statusCode, 200, check.body);
      const missing = new Set(json<{ missing: string[] }>(check).missing);
      const refs: ({ hash: string; path: string } | { fileId: string; path: string })[] = [];
      const toSend = files.filter((f) => f.type !== 'image' || missing.has(hashOf(f.content)));
      for (const f of files) if (!toSend.includes(f)) refs.push({ hash: hashOf(f.content), path: f.path });
      const upload = await t.request({
        method: 'POST',
        url: '/v2/imports/files',
        ...multipartBody(toSend.map((f, i) => ({ key: `f${i}`, metadata: { id: f.path, type: f.type, format: 'supervisely' }, content: f.content }))),
      });
      assert.equal(upload.statusCode, 200, upload.body);
      json<{ files: { id: string; hash?: string; fileId?: string; errors: unknown[] }[] }>(upload).files.forEach((r, i) => {
        assert.deepEqual(r.errors, []);
        refs.push(r.hash ? { hash: r.hash, path: toSend[i]!.path } : { fileId: r.fileId!, path: toSend[i]!.path });
      });
      const start = await t.request({ method: 'POST', url: '/v2/imports', payload: { project: { id: null, title }, preset: 1, files: refs } });
      assert.equal(start.statusCode, 201, start.body);
      const { task } = json<{ task: TaskView }>(start);
      assert.equal(start.headers.location, `/v2/tasks/${task.id}`);
      assert.equal(task.type, 'import');
      const stream = await readStream(task.id);
      return { task, stream };
    }

    test('an import through /v2 is followed to its end by its event stream, and makes the project v1’s import makes', async () => {
      // Only now a worker: the tests before leave their tasks where they put them.
      const runner: TaskRunner = startTaskRunner(worker, silent, { handlers: { import: importHandler }, pollMs: 20, leaseMs: 5000 });
      try {
        await importAndCompare();
      } finally {
        await runner.stop();
      }
    });

    async function importAndCompare() {
      const files = await sampleProject(1000);
      const { task, stream } = await importThroughV2(files, 'through v2');
      const events = stream.events;
      assert.ok(events.length >= 1);
      const final = events.at(-1)!;
      assert.equal(final.event, 'final');
      const last = JSON.parse(final.data) as TaskView;
      assert.equal(last.status, 'finished', final.data);
      assert.equal(last.id, task.id);
      assert.ok(events.slice(0, -1).every((e) => e.event === 'progress'));
      // Statuses only move forward; every event differs from the one before.
      const order = ['queued', 'started', 'finished'];
      const statuses = events.map((e) => (JSON.parse(e.data) as TaskView).status);
      assert.deepEqual([...statuses].sort((a, b) => order.indexOf(a) - order.indexOf(b)), statuses);
      assert.equal(new Set(events.map((e) => e.data)).size, events.length);

      // The same files through v1 (already stored: the hash check answers nothing missing).
      const v1 = await importAndRead(t, await sampleProject(1000), 1, 'through v1');
      const projectId = last.meta.project.id as number;
      const read = async (id: number) => {
        const [project] = json<{ classes: { title: string; shape: string }[]; size: string }[]>(await get(`/v1/projects?projectId=${id}`));
        const datasets = json<{ id: number; title: string }[]>(await get(`/v1/datasets?projectId=${id}`));
        const annotations = new Map<string, unknown>();
        for (const d of datasets) annotations.set(d.title, json<{ data: unknown }[]>(await get(`/v1/annotations?projectId=${id}&datasetIds=${d.id}`)).map((r) => r.data));
        return { classes: project!.classes.map((c) => [c.title, c.shape]), size: project!.size, annotations };
      };
      const viaV2 = await read(projectId);
      const viaV1 = await read(v1.task.meta.project.id as number);
      assert.deepEqual(viaV2, viaV1);
      assert.equal((viaV2.annotations.get('city') as unknown[]).length, 6);
    }

    test('imports: hash check, upload and start refuse a read key and check their input; another team’s project is a 404', async () => {
      const image = await pngImage(10, 10, 77);
      assert.deepEqual(json<{ missing: string[] }>(await t.request({ method: 'POST', url: '/v2/imports/hash-check', payload: { hashes: [hashOf(image)] } })).missing, [hashOf(image)]);
      const bad = await t.request({ method: 'POST', url: '/v2/imports/hash-check', payload: { hashes: [hashOf(image), 'nope'] } });
      assert.equal(bad.statusCode, 400);
      assert.equal(json<{ errors: { pointer: string }[] }>(bad).errors[0]!.pointer, '/hashes/1');
      assert.match(String(bad.headers['content-type']), /^application\/problem\+json/);
      assert.equal((await t.request({ method: 'POST', url: '/v2/imports/hash-check', key: t.readOnlyKey, payload: { hashes: [] } })).statusCode, 403);
      const notMultipart = await t.request({ method: 'POST', url: '/v2/imports/files', payload: { a: 1 } });
      assert.equal(notMultipart.statusCode, 415);
      const upload = await t.request({ method: 'POST', url: '/v2/imports/files', ...multipartBody([{ key: 'f0', metadata: { id: 'x.png', type: 'image', format: 'images' }, content: image }]) });
      const { hash } = json<{ files: { hash: string }[] }>(upload).files[0]!;
      assert.equal(hash, hashOf(image));
      assert.deepEqual(json<{ missing: string[] }>(await t.request({ method: 'POST', url: '/v2/imports/hash-check', payload: { hashes: [hash] } })).missing, []);
      const others = await t.request({ method: 'POST', url: '/v2/imports/hash-check', key: t.otherKey, payload: { hashes: [hash] } });
      assert.deepEqual(json<{ missing: string[] }>(others).missing, [hash], 'another team does not learn what alpha holds');

      const project = { id: await newProject(t.ctx, { team: 'alpha', title: 'alpha’s own' }) };
      // Beta's own upload of the bytes, into alpha's project.
      await t.request({ method: 'POST', url: '/v2/imports/files', key: t.otherKey, ...multipartBody([{ key: 'f0', metadata: { id: 'x.png', type: 'image', format: 'images' }, content: image }]) });
      const foreign = await t.request({ method: 'POST', url: '/v2/imports', key: t.otherKey, payload: { project: { id: project.id }, preset: 2, files: [{ hash, path: 'x.png' }] } });
      assert.equal(foreign.statusCode, 404, foreign.body);
      const empty = await t.request({ method: 'POST', url: '/v2/imports', payload: { project: { id: null, title: 'none' }, preset: 2, files: [] } });
      assert.equal(empty.statusCode, 400);
    });
  });
}
