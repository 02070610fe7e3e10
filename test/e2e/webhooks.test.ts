// Webhooks end to end, every role a real process: an API server (`serve --no-worker`) and `annostore
// worker` processes on one database, and a receiver on loopback that checks every signature with the
// Standard Webhooks library. Events of an import that starts and finishes, one that fails, a stop,
// deletes and an annotation edit are made while the receiver is down; it comes back holding requests
// open, the worker sending them is killed with SIGKILL, and two other workers take over. In the end each
// event arrived, verified, and once per webhook-id after dropping repeats; an import refused by its
// checks sent nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Config } from '../../src/config.ts';
import { createDb } from '../../src/db/create-db.ts';
import { dialects } from '../helpers/dialects.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { waitFor } from '../helpers/wait.ts';
import { type WebhookReceiver, startReceiver, uniqueByMessage } from '../helpers/webhook-receiver.ts';

const KEY = 'ak_webhooks-e2e-key-0123456789abcdef';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function envOf(config: Config): Record<string, string> {
  return {
    DATA_DIR: config.dataDir,
    ANNOSTORE_API_KEY: KEY,
    TASK_LEASE_MS: '1500',
    TASK_POLL_MS: '50',
    // The receiver is on loopback: allowed here only.
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_BASE_MS: '200',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_TIMEOUT_MS: '2000',
    // Well past the timeout, so that a busy machine does not let a second worker send what the first still holds.
    WEBHOOK_LEASE_MS: '5000',
    ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl, DATABASE_SCHEMA: config.databaseSchema! } : {}),
  };
}

for (const dialect of dialects) {
  describe(`webhooks across processes on ${dialect.name}`, { skip: dialect.skip }, () => {
    let config: Config;
    let receiver: WebhookReceiver;
    const procs: ServerProcess[] = [];
    before(async () => {
      config = dialect.freshConfig();
      receiver = await startReceiver();
    });
    after(async () => {
      for (const p of procs) await p.kill('SIGKILL');
      await receiver?.close().catch(() => undefined);
      await dialect.cleanup(config);
    });

    test('every event arrives once, verified, through a receiver outage and a worker killed mid-delivery; a refused import sends none', { timeout: 180_000 }, async () => {
      const server = await startServerProcess(envOf(config), ['serve', '--no-worker']);
      procs.push(server);
      const call = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> => {
        const res = await fetch(`${server.url}${path}`, {
          method,
          headers: { 'x-api-key': KEY, ...(body instanceof FormData ? {} : body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
          body: body instanceof FormData ? body : body !== undefined ? JSON.stringify(body) : undefined,
        });
        const text = await res.text();
        return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
      };
      const ok = async <T>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T> => {
        const res = await call<T>(method, path, body, headers);
        assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
        return res.body;
      };

      const hook = await ok<{ id: number; secret: string }>('POST', '/v2/webhooks', {
        url: receiver.url,
        events: ['task.started', 'task.finished', 'task.error', 'task.stopped', 'project.deleted', 'dataset.deleted', 'annotation.updated'],
      });
      receiver.secrets.push(hook.secret);

      // Files for imports: a class file, two images and their annotations, and one annotation whose
      // class the project does not have.
      const meta = { classes: [{ title: 'thing', shape: 'polygon', color: '#123456' }], tags_images: [], tags_objects: [] };
      const object = (classTitle: string) => ({ classTitle, description: '', tags: [], bitmap: null, points: { exterior: [[1, 1], [5, 1], [5, 5]], interior: [] } });
      const form = new FormData();
      const add = (i: number, path: string, type: string, content: Buffer, name: string) => {
        form.append(`k${i}`, JSON.stringify({ id: path, type, format: 'supervisely' }));
        form.append(`k${i}-file`, new Blob([content]), name);
      };
      add(0, 'meta.json', 'class', Buffer.from(JSON.stringify(meta)), 'meta.json');
      for (let i = 0; i < 2; i += 1) {
        add(1 + 2 * i, `ds/img/a${i}.png`, 'image', await pngImage(16, 12, 500 + i), `a${i}.png`);
        const ann = { description: '', tags: [], size: { width: 16, height: 12 }, objects: [object(i === 0 ? 'thing' : 'unknown-class')] };
        add(2 + 2 * i, `ds/ann/a${i}.png.json`, 'annotation', Buffer.from(JSON.stringify(ann)), `a${i}.png.json`);
      }
      const uploaded = await ok<{ id: string; hash?: string; fileId?: string; errors: unknown[] }[]>('POST', '/v1/tasks/import/files', form);
      const file = (path: string) => {
        const r = uploaded.find((u) => u.id === path)!;
        return r.hash ? { path, hash: r.hash } : { path, fileId: r.fileId! };
      };
      const importOf = (title: string, paths: string[]) => ok<{ taskId: number }>('POST', '/v1/tasks/import', { project: { id: null, title }, preset: 1, files: paths.map(file) });
      const good = ['meta.json', 'ds/img/a0.png', 'ds/ann/a0.png.json'];
      const failing = ['meta.json', 'ds/img/a1.png', 'ds/ann/a1.png.json'];

      // No worker runs yet: a queued import is stopped at once (task.stopped).
      const { taskId: stoppedTask } = await importOf('stopped', good);
      assert.equal((await call('POST', `/v2/tasks/${stoppedTask}/stop`)).status, 202);
      // An import refused by its checks writes nothing: no task, no event.
      const refused = await call('POST', '/v1/tasks/import', { project: { id: null, title: 'refused' }, preset: 1, files: [...good.map(file), { path: 'ds/img/x.png', hash: 'A'.repeat(43) + '=' }] });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));

      // The receiver goes down; a worker starts and the events pile up behind failed attempts.
      await receiver.close();
      const workerA = await startServerProcess(envOf(config), ['worker']);
      procs.push(workerA);
      const { taskId: goodTask } = await importOf('good', good);
      const { taskId: errorTask } = await importOf('failing', failing);
      type Task = { status: string; meta: { project?: { id: number } } };
      const ended = async (id: number) => waitFor(`task ${id} to end`, async () => {
        const task = (await ok<Task>('GET', `/v2/tasks/${id}`));
        return ['finished', 'error', 'stopped'].includes(task.status) && task;
      }, 60_000);
      const goodState = await ended(goodTask);
      assert.equal(goodState.status, 'finished');
      assert.equal((await ended(errorTask)).status, 'error');

      const projectId = goodState.meta.project!.id;
      const images = await ok<{ items: { id: number; datasetId: number }[] }>('GET', `/v2/images?projectId=${projectId}`);
      const image = images.items[0]!;
      const annotation = await fetch(`${server.url}/v2/images/${image.id}/annotation`, { headers: { 'x-api-key': KEY } });
      const representation = (await annotation.json()) as Record<string, unknown>;
      await ok('PUT', `/v2/images/${image.id}/annotation`, { ...representation, description: 'checked' }, { 'if-match': annotation.headers.get('etag')! });
      const spare = await ok<{ id: number }>('POST', `/v2/projects/${projectId}/datasets`, { title: 'spare' });
      await ok('DELETE', `/v1/datasets/${spare.id}`);
      await ok('DELETE', `/v2/projects/${projectId}`);

      const db = await createDb(config);
      try {
        const rows = () => db.kysely.selectFrom('webhook_deliveries').select(['message_id', 'event_type', 'status', 'attempts', 'error']).execute();
        // One delivery at a time per webhook: the oldest is tried, and the others wait for its retries.
        await waitFor('attempts against the closed port', async () => {
          const now = await rows();
          return now.length >= 7 && now.some((r) => r.attempts >= 2 && r.error !== null) && now.every((r) => r.status === 'pending');
        }, 20_000);
        await sleep(1000);

        // Back up, but holding every request open: worker A is killed with one in its hands.
        receiver.mode = 'hold';
        const held = receiver.nextHeld();
        await receiver.open();
        const heldEntry = await held;
        await workerA.kill('SIGKILL');
        receiver.mode = 'ok';
        // Two workers take over at once: each delivery is claimed by one of them.
        const [workerB, workerC] = await Promise.all([startServerProcess(envOf(config), ['worker']), startServerProcess(envOf(config), ['worker'])]);
        procs.push(workerB, workerC);

        await waitFor('every delivery delivered', async () => (await rows()).every((r) => r.status === 'delivered'), 60_000);
        const all = await rows();
        const accepted = uniqueByMessage(receiver.accepted());
        assert.ok(receiver.received.every((r) => r.verified), 'every request carried a valid signature');
        assert.deepEqual([...accepted.keys()].sort(), all.map((r) => r.message_id).sort(), 'each event once after dropping repeats');
        // A 2xx ends a delivery: with two workers sending, none was answered twice.
        assert.equal(receiver.accepted().length, accepted.size, 'no delivery accepted twice');
        assert.ok(accepted.has(heldEntry.messageId), 'the delivery held when its worker died was sent again');

        const types = (type: string) => [...accepted.values()].filter((r) => r.type === type);
        const taskIds = (type: string) => types(type).map((r) => r.data.id as number).sort((a, b) => a - b);
        assert.deepEqual(taskIds('task.stopped'), [stoppedTask]);
        assert.deepEqual(taskIds('task.error'), [errorTask]);
        assert.ok(taskIds('task.started').includes(goodTask) && taskIds('task.started').includes(errorTask));
        assert.ok(taskIds('task.finished').includes(goodTask));
        assert.equal((types('task.finished').find((r) => r.data.id === goodTask)!.data as { status: string }).status, 'finished');
        assert.deepEqual(types('project.deleted').map((r) => r.data), [{ id: projectId, title: 'good' }]);
        assert.deepEqual(types('dataset.deleted').map((r) => r.data), [{ id: spare.id, projectId, title: 'spare' }]);
        assert.deepEqual(types('annotation.updated').map((r) => r.data.imageId), [image.id]);
        // Task events name only tasks that exist: the refused import made none.
        const existing = new Set((await db.kysely.selectFrom('tasks').select('id').execute()).map((r) => r.id));
        for (const r of [...accepted.values()].filter((e) => e.type.startsWith('task.'))) assert.ok(existing.has(r.data.id as number), `task ${String(r.data.id)}`);
      } finally {
        await db.close();
      }
    });
  });
}
