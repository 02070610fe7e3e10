// A server process importing a few hundred images is killed with SIGKILL at several moments. After each
// restart the task goes on; in the end every image is in the project exactly once, with its bytes intact.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createContext } from '../../src/context.ts';
import { createDb } from '../../src/db/create-db.ts';
import { dialects } from '../helpers/dialects.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import type { Config } from '../../src/config.ts';

const KEY = 'ak_crash-test-key-0123456789abcdef';
const IMAGES = 300;

function envOf(config: Config): Record<string, string> {
  return {
    DATA_DIR: config.dataDir,
    ANNOSTORE_API_KEY: KEY,
    // A dead worker's task is taken over after the lease runs out: keep it short here.
    TASK_LEASE_MS: '1500',
    TASK_POLL_MS: '50',
    // A transaction per image: the import must still be running when the test interrupts it.
    IMPORT_BATCH_SIZE: '1',
    // Annotations prepared on a thread, as in a large import, so a kill also lands while threads work.
    IMPORT_THREADS: '1',
    IMPORT_THREAD_MIN_IMAGES: '100',
    ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl, DATABASE_SCHEMA: config.databaseSchema! } : {}),
  };
}

async function call<T>(server: ServerProcess, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.url}/v1${path}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body instanceof FormData ? {} : body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body instanceof FormData ? body : body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

interface TaskBody {
  status: string;
  meta: { progress?: { done: number; total: number }; project: { id: number }; error?: unknown };
}

for (const dialect of dialects) {
  describe(`crash recovery on ${dialect.name}`, { skip: dialect.skip }, () => {
    let config: Config;
    let server: ServerProcess | undefined;
    before(() => {
      config = dialect.freshConfig();
    });
    after(async () => {
      await server?.kill('SIGKILL');
      await dialect.cleanup(config);
    });

    test('SIGKILL mid-import, restart, and every image ends up stored once', { timeout: 240_000 }, async () => {
      server = await startServerProcess(envOf(config));
      const meta = { classes: [{ title: 'thing', shape: 'polygon', color: '#123456' }], tags_images: ['seen'], tags_objects: [] };
      const files: { path: string; hash?: string; fileId?: string }[] = [];
      const expected = new Map<string, string>();
      const form = () => new FormData();
      let batch = form();
      let inBatch = 0;
      const flush = async () => {
        if (inBatch === 0) return;
        const results = await call<{ id: string; hash?: string; fileId?: string; errors: unknown[] }[]>(server!, 'POST', '/tasks/import/files', batch);
        for (const r of results) {
          assert.deepEqual(r.errors, []);
          files.push(r.hash ? { path: r.id, hash: r.hash } : { path: r.id, fileId: r.fileId! });
        }
        batch = form();
        inBatch = 0;
      };
      const add = async (path: string, type: string, content: Buffer) => {
        batch.append(`k${inBatch}`, JSON.stringify({ id: path, type, format: 'supervisely' }));
        batch.append(`k${inBatch}-file`, new Blob([content]), path.split('/').pop());
        inBatch += 1;
        if (inBatch === 100) await flush();
      };
      await add('meta.json', 'class', Buffer.from(JSON.stringify(meta)));
      for (let i = 0; i < IMAGES; i += 1) {
        const png = await pngImage(16, 12, 10_000 + i);
        const name = `img-${String(i).padStart(4, '0')}.png`;
        expected.set(name, createHash('sha256').update(png).digest('base64'));
        await add(`ds/img/${name}`, 'image', png);
        const objects = [{ classTitle: 'thing', description: '', tags: [], bitmap: null, points: { exterior: [[1, 1], [5, 1], [5, i % 11 + 2]], interior: [] } }];
        await add(`ds/ann/${name}.json`, 'annotation', Buffer.from(JSON.stringify({ description: `#${i}`, tags: ['seen'], size: { width: 16, height: 12 }, objects })));
      }
      await flush();

      const { taskId } = await call<{ taskId: number }>(server, 'POST', '/tasks/import', { project: { id: null, title: 'Crashy' }, preset: 1, files });
      const task = async () => (await call<TaskBody[]>(server!, 'GET', `/tasks?id=${taskId}`))[0]!;

      // Kill at three moments: right after the request, once a worker holds the task, and once some
      // but not all images are committed (read from the database itself: progress is written only every
      // few seconds). Each time a new process takes over. A fast machine may finish a step before the
      // test looks; a kill after the end must then leave everything as it was.
      const db = await createDb(config);
      const committedImages = async () => Number((await db.kysely.selectFrom('images').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const waitUntil = async (ready: () => Promise<boolean>) => {
        const until = Date.now() + 60_000;
        while (!(await ready())) {
          assert.ok(Date.now() < until, `waited too long, task is ${JSON.stringify(await task())}`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      const killPoints: (() => Promise<boolean>)[] = [
        async () => true,
        async () => (await task()).status !== 'queued',
        async () => (await committedImages()) > 0,
      ];
      try {
        for (const ready of killPoints) {
          await waitUntil(ready);
          await server.kill('SIGKILL');
          server = await startServerProcess(envOf(config));
        }
      } finally {
        await db.close();
      }

      const deadline = Date.now() + 180_000;
      let state = await task();
      while (!['finished', 'error', 'stopped'].includes(state.status)) {
        assert.ok(Date.now() < deadline, `task still ${state.status}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        state = await task();
      }
      assert.equal(state.status, 'finished', JSON.stringify(state.meta));
      assert.deepEqual(state.meta.progress, { done: IMAGES, total: IMAGES });

      const records = await call<{ imageId: number; data: { name: string; description: string; tags: string[] } }[]>(
        server,
        'GET',
        `/annotations?projectId=${state.meta.project.id}`,
      );
      assert.equal(records.length, IMAGES, 'each image once');
      assert.deepEqual(records.map((r) => r.data.name).sort(), [...expected.keys()].sort());
      for (const r of records) {
        assert.equal(r.data.description, `#${Number(r.data.name.slice(4, 8))}`);
        assert.deepEqual(r.data.tags, ['seen']);
      }
      // The thumbnails tasks that follow the import may have been held by a killed server: they are
      // taken over once their lease runs out. Stopped only after they end, the last server leaves no
      // task held.
      const tasksDb = await createDb(config);
      try {
        const until = Date.now() + 120_000;
        for (;;) {
          const open = await tasksDb.kysely.selectFrom('tasks').select(['id', 'type', 'status']).where('status', 'in', ['queued', 'started', 'terminating']).execute();
          if (open.length === 0) break;
          assert.ok(Date.now() < until, `tasks still open: ${JSON.stringify(open)}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await tasksDb.close();
      }
      await server.kill('SIGTERM');
      server = undefined;

      // The stored bytes match their hashes.
      const ctx = await createContext(config);
      try {
        const rows = await ctx.db.kysely.selectFrom('images').select(['name', 'hash']).execute();
        assert.equal(rows.length, IMAGES);
        for (const row of rows) {
          assert.equal(row.hash, expected.get(row.name));
          const bytes = await ctx.blobs.readBytes(row.hash);
          assert.equal(createHash('sha256').update(bytes).digest('base64'), row.hash);
        }
        const stuck = await ctx.db.kysely.selectFrom('tasks').select('id').where('status', 'in', ['started', 'terminating']).execute();
        assert.deepEqual(stuck, []);
      } finally {
        await ctx.close();
      }
    });
  });
}
