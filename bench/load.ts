// A bounded load test of the scale-out mode on loopback: N concurrent clients for a fixed time, mixing
// reads (GET /projects, /annotations, /tasks) and uploads of small images, first against two API
// replicas (round-robin), then against one replica alone, in the same run.
//
//   node --import tsx bench/load.ts [--clients 100] [--duration 30] [--database-url postgres://…]
//
// Starts s3rver and, on a fresh PostgreSQL schema, `annostore migrate`, two `annostore serve
// --no-worker` replicas and one `annostore worker` (it runs the seed import), each a child process
// with its own DATA_DIR, all on 127.0.0.1. Expects zero errors. See bench/README.md.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import sharp from 'sharp';
import { startS3 } from '../test/helpers/s3.ts';

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: '100' },
    duration: { type: 'string', default: '30' },
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    images: { type: 'string', default: '3000' },
  },
});
const CLIENTS = Number(args.clients);
const DURATION_S = Number(args.duration);
const DATABASE_URL = args['database-url'];
const POOL = Number(args.images);
const KEY = `ak_load-${randomBytes(12).toString('hex')}`;
const BIN = path.resolve(import.meta.dirname, '../bin/annostore.js');
/** With the class file, 99 files: one upload request. */
const SEED_IMAGES = 49;
const REQUEST_TIMEOUT_MS = 30_000;

/** Share of each operation in the mix. */
const MIX = [
  ['projects', 0.3],
  ['annotations', 0.3],
  ['tasks', 0.2],
  ['upload', 0.2],
] as const;
type Op = (typeof MIX)[number][0];

interface Child {
  name: string;
  url: string;
  dir: string;
  process: ChildProcess;
  exited: Promise<unknown>;
  output(): string;
}

const children: Child[] = [];

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  return port;
}

async function run(name: string, argv: string[], env: Record<string, string>, port = 0): Promise<Child> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `annostore-load-${name}-`));
  const child = spawn(process.execPath, [BIN, ...argv], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, DATA_DIR: dir, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const handle: Child = { name, url: `http://127.0.0.1:${port}`, dir, process: child, exited: once(child, 'exit'), output: () => output };
  children.push(handle);
  if (port) {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${name} exited:\n${output}`);
      if (await fetch(`${handle.url}/healthz`).then((r) => r.ok, () => false)) break;
      if (Date.now() > deadline) throw new Error(`${name} did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return handle;
}

function multipart(parts: { key: string; metadata: object; content: Buffer }[]): { body: Buffer; type: string } {
  const boundary = `----load${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.key}"\r\n\r\n${JSON.stringify(p.metadata)}\r\n`));
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.key}-file"; filename="f"\r\nContent-Type: application/octet-stream\r\n\r\n`), p.content, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

const png = (seed: number) =>
  sharp({ create: { width: 16, height: 16, channels: 3, background: { r: seed & 255, g: (seed >> 8) & 255, b: (seed >> 16) & 255 } } }).png().toBuffer();

async function api<T>(url: string, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}/v1${route}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

interface Result {
  label: string;
  requests: number;
  errors: number;
  firstErrors: string[];
  seconds: number;
  latencies: Map<Op, number[]>;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function loadRun(label: string, urls: string[], projectId: number, uploads: { body: Buffer; type: string }[]): Promise<Result> {
  const latencies = new Map<Op, number[]>(MIX.map(([op]) => [op, []]));
  const result: Result = { label, requests: 0, errors: 0, firstErrors: [], seconds: DURATION_S, latencies };
  let turn = 0;
  let uploadTurn = 0;
  const end = Date.now() + DURATION_S * 1000;
  const pick = (): Op => {
    let r = Math.random();
    for (const [op, share] of MIX) if ((r -= share) < 0) return op;
    return 'projects';
  };
  const client = async () => {
    while (Date.now() < end) {
      const op = pick();
      const url = urls[turn++ % urls.length]!;
      const started = performance.now();
      try {
        let res: Response;
        const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
        if (op === 'upload') {
          const u = uploads[uploadTurn++ % uploads.length]!;
          res = await fetch(`${url}/v1/tasks/import/files`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': u.type }, body: u.body, signal });
        } else {
          const route = op === 'projects' ? '/projects' : op === 'tasks' ? '/tasks' : `/annotations?projectId=${projectId}`;
          res = await fetch(`${url}/v1${route}`, { headers: { 'x-api-key': KEY }, signal });
        }
        const text = await res.text();
        if (!res.ok) throw new Error(`${op}: ${res.status} ${text.slice(0, 200)}`);
        if (op === 'upload' && text.includes('"code"')) throw new Error(`upload: per-file error ${text.slice(0, 200)}`);
        latencies.get(op)!.push(performance.now() - started);
        result.requests += 1;
      } catch (error) {
        result.errors += 1;
        if (result.firstErrors.length < 5) result.firstErrors.push(String(error));
      }
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  result.seconds = (performance.now() - began) / 1000;
  return result;
}

function report(results: Result[]): void {
  const rows: string[][] = [['run', 'op', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'errors']];
  for (const r of results) {
    const all: number[] = [];
    for (const [op, values] of r.latencies) {
      values.sort((a, b) => a - b);
      all.push(...values);
      rows.push([r.label, op, String(values.length), (values.length / r.seconds).toFixed(0), percentile(values, 50).toFixed(1), percentile(values, 99).toFixed(1), '']);
    }
    all.sort((a, b) => a - b);
    rows.push([r.label, 'all', String(r.requests), (r.requests / r.seconds).toFixed(0), percentile(all, 50).toFixed(1), percentile(all, 99).toFixed(1), String(r.errors)]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) console.log(row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
  for (const r of results) for (const e of r.firstErrors) console.log(`${r.label}: ${e}`);
}

/** Peak resident memory of a process so far (Linux), in MB. */
function peakRssMb(pid: number): string {
  try {
    const kb = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? (Number(kb) / 1024).toFixed(0) : '?';
  } catch {
    return '?';
  }
}

async function main(): Promise<void> {
  const schema = `load_${randomBytes(4).toString('hex')}`;
  const s3 = await startS3();
  const env = { DATABASE_URL, DATABASE_SCHEMA: schema, STORAGE_URL: s3.url, ANNOSTORE_API_KEY: KEY };
  try {
    console.log(`${CLIENTS} clients, ${DURATION_S} s per run; ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    const migrate = await run('migrate', ['migrate'], env);
    await migrate.exited;
    const [a, b] = await Promise.all([run('api-a', ['serve', '--no-worker'], env, await freePort()), run('api-b', ['serve', '--no-worker'], env, await freePort())]);
    await run('worker', ['worker'], env);

    // Seed: one project of annotated images for the reads.
    const meta = { classes: [{ title: 'thing', shape: 'rectangle', color: '#112233' }], tags_images: [], tags_objects: [] };
    const parts = [{ key: 'm', metadata: { id: 'meta.json', type: 'class', format: 'supervisely' }, content: Buffer.from(JSON.stringify(meta)) }];
    for (let i = 0; i < SEED_IMAGES; i += 1) {
      const ann = { description: '', tags: [], size: { width: 16, height: 16 }, objects: [{ classTitle: 'thing', description: '', tags: [], bitmap: null, points: { exterior: [[1, 1], [9, 9]], interior: [] } }] };
      parts.push({ key: `i${i}`, metadata: { id: `ds/img/${i}.png`, type: 'image', format: 'supervisely' }, content: await png(1_000_000 + i) });
      parts.push({ key: `a${i}`, metadata: { id: `ds/ann/${i}.png.json`, type: 'annotation', format: 'supervisely' }, content: Buffer.from(JSON.stringify(ann)) });
    }
    const seed = multipart(parts);
    const seeded = await fetch(`${a.url}/v1/tasks/import/files`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': seed.type }, body: seed.body });
    if (!seeded.ok) throw new Error(`seed upload: ${seeded.status} ${await seeded.text()}`);
    const uploaded = (await seeded.json()) as { id: string; hash?: string; fileId?: string }[];
    const files = uploaded.map((u) => (u.hash ? { path: u.id, hash: u.hash } : { path: u.id, fileId: u.fileId }));
    const { taskId } = await api<{ taskId: number }>(a.url, 'POST', '/tasks/import', { project: { id: null, title: 'Load' }, preset: 1, files });
    type Task = { status: string; meta: { project: { id: number } } };
    let task: Task;
    do {
      await new Promise((r) => setTimeout(r, 200));
      task = (await api<Task[]>(a.url, 'GET', `/tasks?id=${taskId}`))[0]!;
    } while (task.status !== 'finished' && task.status !== 'error');
    if (task.status !== 'finished') throw new Error('seed import failed');

    // Uploads: one fresh small PNG a request, the same pool for both runs.
    const uploads = [];
    for (let i = 0; i < POOL; i += 1) uploads.push(multipart([{ key: 'x', metadata: { id: `up/${i}.png`, type: 'image', format: 'images' }, content: await png(i) }]));
    const half = Math.floor(POOL / 2);

    const two = await loadRun('two replicas', [a.url, b.url], task.meta.project.id, uploads.slice(0, half));
    const one = await loadRun('one replica', [a.url], task.meta.project.id, uploads.slice(half));
    report([two, one]);
    for (const c of [a, b]) console.log(`${c.name}: peak RSS ${peakRssMb(c.process.pid!)} MB`);
    if (two.errors + one.errors > 0) process.exitCode = 1;
  } finally {
    for (const c of children) if (c.process.exitCode === null) c.process.kill('SIGTERM');
    await Promise.all(children.map((c) => c.exited));
    for (const c of children) fs.rmSync(c.dir, { recursive: true, force: true });
    await s3.stop();
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  }
}

await main();
