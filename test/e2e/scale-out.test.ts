// Scale-out on PostgreSQL and S3 (s3rver on loopback), with every role a real process: two API replicas
// (`serve --no-worker`), two workers, each with its own DATA_DIR. Imports go in through both APIs at
// once; one worker is killed with SIGKILL and the other stopped with SIGTERM while each holds a task;
// an API replica is stopped with SIGTERM while an upload is in flight. Every task still ends
// `finished`, every image is stored once with the bytes of its hash, and the replicas agree.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { createContext } from '../../src/context.ts';
import { TEST_DATABASE_URL, postgresSkipReason, tempDir } from '../helpers/dialects.ts';
import { type UploadPart, multipartBody, pngImage } from '../helpers/multipart.ts';
import { type S3Server, startS3 } from '../helpers/s3.ts';
import { freePort } from '../helpers/server-process.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/annostore.js');
const KEY = 'ak_scale-out-test-key-0123456789abcdef';
const IMPORTS = 4;
const IMAGES = 200;
/** Starting a process takes seconds on a busy machine; four start at once. */
const START_DEADLINE_MS = 90_000;

interface Proc {
  name: string;
  url: string;
  dataDir: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
}

interface TaskBody {
  id: number;
  status: string;
  meta: { progress?: { done: number; total: number }; project?: { id: number }; error?: unknown };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('scale-out: two API replicas and two workers on PostgreSQL and S3', { skip: postgresSkipReason ?? false }, () => {
  const schema = `scale_${process.pid}_${randomBytes(4).toString('hex')}`;
  const procs: Proc[] = [];
  let s3: S3Server;
  let baseEnv: Record<string, string>;

  function spawnAnnostore(name: string, args: string[], port?: number): Proc {
    const dataDir = tempDir(`scale-${name}`);
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, LOG_LEVEL: 'warn', ...baseEnv, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port ?? 0) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(child, 'exit').then(([code]) => code as number | null);
    const proc: Proc = { name, url: `http://127.0.0.1:${port}`, dataDir, child, exited, output: () => output };
    procs.push(proc);
    return proc;
  }

  async function startApi(name: string, args = ['serve', '--no-worker']): Promise<Proc> {
    const proc = spawnAnnostore(name, args, await freePort());
    const deadline = Date.now() + START_DEADLINE_MS;
    for (;;) {
      if (proc.child.exitCode !== null) throw new Error(`${name} exited early:\n${proc.output()}`);
      try {
        if ((await fetch(`${proc.url}/healthz`)).ok) return proc;
      } catch {
        // not listening yet
      }
      assert.ok(Date.now() < deadline, `${name} did not answer in time:\n${proc.output()}`);
      await sleep(100);
    }
  }

  async function call<T>(proc: Proc, method: string, route: string, body?: unknown): Promise<T> {
    const res = await fetch(`${proc.url}/v1${route}`, {
      method,
      headers: { 'x-api-key': KEY, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    assert.ok(res.ok, `${proc.name}: ${method} ${route}: ${res.status} ${text}${res.status >= 500 ? `\n${proc.output().slice(-3000)}` : ''}`);
    return JSON.parse(text) as T;
  }

  async function upload(proc: Proc, body: { payload: Buffer; headers: Record<string, string> }) {
    const res = await fetch(`${proc.url}/v1/tasks/import/files`, { method: 'POST', headers: { 'x-api-key': KEY, ...body.headers }, body: body.payload });
    const text = await res.text();
    assert.equal(res.status, 200, `${proc.name}: upload: ${text}\n${proc.output().slice(-3000)}`);
    return JSON.parse(text) as { id: string; hash?: string; fileId?: string; errors: unknown[] }[];
  }

  let client: pg.Client | undefined;
  async function sql<T>(text: string, values: unknown[] = []): Promise<T[]> {
    if (!client) {
      client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      await client.query(`create schema if not exists "${schema}"`);
      await client.query(`set search_path to "${schema}"`);
    }
    return (await client.query(text, values)).rows as T[];
  }

  async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      assert.ok(Date.now() < deadline, `waited too long for ${what}`);
      await sleep(25);
    }
  }

  const pidOf = (owner: string) => Number(owner.split(':').at(-2));

  before(async () => {
    s3 = await startS3();
    baseEnv = {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      STORAGE_URL: s3.url,
      ANNOSTORE_API_KEY: KEY,
      TASK_LEASE_MS: '1500',
      TASK_POLL_MS: '50',
      // Small batches: the import must still be running when the test interrupts it.
      IMPORT_BATCH_SIZE: '20',
    };
  });

  after(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    for (const p of procs) fs.rmSync(p.dataDir, { recursive: true, force: true });
    await s3?.stop();
    await sql(`drop schema if exists "${schema}" cascade`).catch(() => undefined);
    await client?.end();
  });

  test('imports through both replicas survive a killed and a stopped worker; replicas agree', { timeout: 240_000 }, async (t) => {
    const began = Date.now();
    const phases: string[] = [];
    const mark = (label: string) => phases.push(`${label} ${((Date.now() - began) / 1000).toFixed(1)} s`);
    // The schema is migrated once, before any replica starts, as docs/deploy.md says.
    const migrate = spawnAnnostore('migrate', ['migrate']);
    assert.equal(await migrate.exited, 0, migrate.output());

    const [apiA, apiB] = await Promise.all([startApi('api-a'), startApi('api-b')]);
    mark('replicas up');
    const worker1 = spawnAnnostore('worker-1', ['worker']);
    const worker2 = spawnAnnostore('worker-2', ['worker']);
    const workers = new Map([
      [worker1.child.pid!, worker1],
      [worker2.child.pid!, worker2],
    ]);

    // Upload every import through one replica and start it through the other, all imports at once.
    const expected = new Map<string, string>(); // `<import>/<name>` → hash
    const meta = { classes: [{ title: 'thing', shape: 'polygon', color: '#123456' }], tags_images: ['seen'], tags_objects: [] };
    const taskIds = await Promise.all(
      Array.from({ length: IMPORTS }, async (_, n) => {
        const [uploadVia, startVia] = n % 2 === 0 ? [apiA, apiB] : [apiB, apiA];
        const parts: UploadPart[] = [{ key: 'meta', metadata: { id: 'meta.json', type: 'class', format: 'supervisely' }, content: Buffer.from(JSON.stringify(meta)) }];
        for (let i = 0; i < IMAGES; i += 1) {
          const png = await pngImage(16, 12, n * 100_000 + i);
          const name = `img-${String(i).padStart(4, '0')}.png`;
          expected.set(`${n}/${name}`, createHash('sha256').update(png).digest('base64'));
          const objects = [{ classTitle: 'thing', description: '', tags: [], bitmap: null, points: { exterior: [[1, 1], [5, 1], [5, (i % 11) + 2]], interior: [] } }];
          const annotation = { description: `${n}#${i}`, tags: ['seen'], size: { width: 16, height: 12 }, objects };
          parts.push(
            { key: `i${i}`, metadata: { id: `ds/img/${name}`, type: 'image', format: 'supervisely' }, content: png },
            { key: `a${i}`, metadata: { id: `ds/ann/${name}.json`, type: 'annotation', format: 'supervisely' }, content: Buffer.from(JSON.stringify(annotation)) },
          );
        }
        const files: { path: string; hash?: string; fileId?: string }[] = [];
        for (let start = 0; start < parts.length; start += 100) {
          for (const r of await upload(uploadVia, multipartBody(parts.slice(start, start + 100)))) {
            assert.deepEqual(r.errors, []);
            files.push(r.hash ? { path: r.id, hash: r.hash } : { path: r.id, fileId: r.fileId! });
          }
        }
        const { taskId } = await call<{ taskId: number }>(startVia, 'POST', '/tasks/import', { project: { id: null, title: `Import ${n}` }, preset: 1, files });
        return taskId;
      }),
    );

    mark('imports submitted');
    // A worker is killed while it runs a task; then the other, once it holds a task (the killed
    // worker's after its lease ran out, or a queued one), is stopped with SIGTERM.
    const running = `select id, lease_owner from tasks where status = 'started' and lease_owner is not null`;
    const killedTask = await waitFor('a worker to run a task', async () => (await sql<{ id: number; lease_owner: string }>(running))[0]);
    const killed = workers.get(pidOf(killedTask.lease_owner))!;
    killed.child.kill('SIGKILL');
    await killed.exited.catch(() => undefined);
    // A fast worker may have finished the task between the look and the kill: only a task the dead
    // worker still held is one another worker must take over.
    const [afterKill] = await sql<{ status: string }>('select status from tasks where id = $1', [killedTask.id]);
    const stopped = [...workers.values()].find((w) => w !== killed)!;
    const stoppedTask = await waitFor('the other worker to hold a task', async () => {
      const rows = await sql<{ id: number; lease_owner: string }>(running);
      return rows.find((r) => pidOf(r.lease_owner) === stopped.child.pid);
    });
    stopped.child.kill('SIGTERM');
    const stopStarted = Date.now();
    assert.equal(await stopped.exited, 0, `a worker stopped with SIGTERM exits cleanly:\n${stopped.output()}`);
    const stopMs = Date.now() - stopStarted;
    // A hand-back puts the task straight back in the queue: no lease has to run out.
    const [handedBack] = await sql<{ status: string; lease_owner: string | null }>('select status, lease_owner from tasks where id = $1', [stoppedTask.id]);
    assert.ok(['queued', 'finished'].includes(handedBack!.status), `the stopped worker handed its task back: ${JSON.stringify(handedBack)}`);
    assert.equal(handedBack!.lease_owner, null);

    mark('worker killed and worker stopped');
    // A replacement: one process serving the API and running a worker, as `npm start` does.
    const startingC = startApi('api-c', ['serve']);
    startingC.catch(() => undefined); // awaited below; a failure is reported there

    // SIGTERM to replica A while an upload to it is in flight: the upload completes, A exits cleanly,
    // and its temporary folder is gone.
    const extra = await pngImage(20, 20, 999_999);
    const body = multipartBody([{ key: 'x', metadata: { id: 'late/img/late.png', type: 'image', format: 'images' }, content: extra }]);
    const half = Math.floor(body.payload.length / 2);
    let sendRest: () => void = () => undefined;
    const restSent = new Promise<void>((resolve) => (sendRest = resolve));
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(body.payload.subarray(0, half));
        await restSent;
        controller.enqueue(body.payload.subarray(half));
        controller.close();
      },
    });
    const inFlight = fetch(`${apiA.url}/v1/tasks/import/files`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, ...body.headers },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const uploads = path.join(apiA.dataDir, 'tmp', 'uploads');
    await waitFor('the upload to reach replica A', async () => (fs.existsSync(uploads) && fs.readdirSync(uploads).length > 0 ? true : undefined));
    apiA.child.kill('SIGTERM');
    await waitFor('replica A to stop accepting connections', () => fetch(`${apiA.url}/healthz`).then(() => undefined, () => true), 20_000);
    sendRest();
    const late = await inFlight;
    const lateBody = (await late.json()) as { hash?: string; errors: unknown[] }[];
    assert.equal(late.status, 200, JSON.stringify(lateBody));
    assert.deepEqual(lateBody, [{ id: 'late/img/late.png', hash: createHash('sha256').update(extra).digest('base64'), errors: [] }]);
    assert.equal(await apiA.exited, 0, apiA.output());
    assert.deepEqual(fs.readdirSync(uploads), [], 'no upload folder left behind');
    const apiC = await startingC;

    mark('replica stopped mid-upload');
    // Every task ends finished: the handed-back one at once, the killed worker's after its lease ran out.
    const finished = await waitFor(
      'every import to finish',
      async () => {
        const tasks = await call<TaskBody[]>(apiB, 'GET', '/tasks');
        return tasks.every((t) => ['finished', 'error', 'stopped'].includes(t.status)) ? tasks : undefined;
      },
      120_000,
    );
    assert.deepEqual(finished.map((t) => t.id).sort(), [...taskIds].sort());
    for (const t of finished) {
      assert.equal(t.status, 'finished', JSON.stringify(t.meta));
      assert.deepEqual(t.meta.progress, { done: IMAGES, total: IMAGES });
    }
    const attempts = await sql<{ id: number; attempts: number }>('select id, attempts from tasks order by id');
    if (afterKill!.status === 'started') assert.ok(attempts.find((r) => r.id === killedTask.id)!.attempts >= 2, 'the killed worker\'s task was taken over');
    if (handedBack!.status === 'queued') assert.ok(attempts.find((r) => r.id === stoppedTask.id)!.attempts >= 2, 'the handed-back task was resumed');
    // The thumbnails tasks that follow each import are not in v1's list: they end after the imports do.
    await waitFor('every task, thumbnails too, to end', async () => {
      const open = await sql(`select id from tasks where status in ('queued', 'started', 'terminating')`);
      return open.length === 0 ? true : undefined;
    }, 120_000);

    mark('imports finished');
    // Each image once per import, with the bytes of its hash, read back from S3.
    for (const [n, task] of finished.entries()) {
      const records = await call<{ imageId: number; data: { name: string; description: string } }[]>(apiB, 'GET', `/annotations?projectId=${task.meta.project!.id}`);
      assert.equal(records.length, IMAGES, `import ${n}: each image once`);
      assert.equal(new Set(records.map((r) => r.data.name)).size, IMAGES);
    }
    const rows = await sql<{ name: string; hash: string; title: string }>(
      'select i.name, i.hash, p.title from images i join projects p on p.id = i.project_id',
    );
    assert.equal(rows.length, IMPORTS * IMAGES);
    const ctx = await createContext(loadConfig({}, { dataDir: tempDir('scale-check'), databaseUrl: TEST_DATABASE_URL, databaseSchema: schema, storageUrl: s3.url }));
    try {
      for (const row of rows) assert.equal(row.hash, expected.get(`${row.title.replace('Import ', '')}/${row.name}`));
      const check = async (row: { hash: string }) => {
        const bytes = await ctx.blobs.readBytes(row.hash);
        assert.equal(createHash('sha256').update(bytes).digest('base64'), row.hash);
      };
      for (let start = 0; start < rows.length; start += 25) await Promise.all(rows.slice(start, start + 25).map(check));
    } finally {
      await ctx.close();
      fs.rmSync(ctx.config.dataDir, { recursive: true, force: true });
    }

    // The remaining replicas answer the same data.
    const same = async (route: string) => assert.deepEqual(await call(apiC, 'GET', route), await call(apiB, 'GET', route), route);
    await same('/projects');
    await same('/tasks');
    for (const t of finished) await same(`/annotations?projectId=${t.meta.project!.id}`);
    mark('checked');
    t.diagnostic(`worker SIGTERM to exit: ${stopMs} ms; ${phases.join(', ')}`);
  });

  test('a stop asked on one replica reaches the task running in a worker process within seconds', { timeout: 120_000 }, async (t) => {
    const api = procs.find((p) => p.name === 'api-b')!;
    const runner = procs.find((p) => p.name === 'api-c')!; // serves and runs a worker
    const hashes = await sql<{ hash: string }>('select distinct hash from images order by hash');
    // Images only, by hash: already stored, so nothing is uploaded. Many copies make a task that
    // outlasts the worker's checkpoint interval (1.5 s) several times over on a fast machine; with 10
    // copies a Node 22 worker could import them all before its first look at the stop.
    const files = [];
    for (let copy = 0; copy < 40; copy += 1) for (const [i, { hash }] of hashes.entries()) files.push({ hash, path: `c${copy}/img/${i}.png` });
    const { taskId } = await call<{ taskId: number }>(api, 'POST', '/tasks/import', { project: { id: null, title: 'Long' }, preset: 2, files });
    await waitFor('the task to be running', async () => {
      const [t] = await call<TaskBody[]>(runner, 'GET', `/tasks?id=${taskId}`);
      return t!.status === 'started' ? true : undefined;
    });
    const asked = Date.now();
    await call(api, 'POST', `/tasks/${taskId}/stop`);
    const final = await waitFor('the task to stop', async () => {
      const [t] = await call<TaskBody[]>(api, 'GET', `/tasks?id=${taskId}`);
      return ['stopped', 'finished', 'error'].includes(t!.status) ? t : undefined;
    }, 30_000);
    const tookMs = Date.now() - asked;
    assert.equal(final.status, 'stopped');
    assert.ok((final.meta.progress?.done ?? 0) < files.length, 'it stopped before the end');
    // The worker looks for a stop every 1.5 s; three processes, PostgreSQL and the S3 server share the
    // machine's cores, so the bound leaves room for a loaded one.
    assert.ok(tookMs < 15_000, `stop took ${tookMs} ms`);
    t.diagnostic(`stop reached the worker's task in ${tookMs} ms`);
  });
});
