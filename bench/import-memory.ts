// The memory of the server while it imports COCO files too large to hold: its peak RSS against the
// RSS of the same server idle after its start (the floor), measured in the same run.
//
//   node --import tsx bench/import-memory.ts [--case refused|real|both] [--images 100000]
//                                            [--annotations 8000000] [--refused 10000000]
//
// Each case starts `annostore serve` (with its worker, as `npm start` runs it) on a fresh DATA_DIR
// under /tmp, uploads the file through POST /v1/tasks/import/files and starts the import with
// POST /v2/imports, sampling the server's VmRSS every 50 ms (and reading its VmHWM at the end):
//   refused: one image with `--refused` tiny boxes on it (855 MB at 10,000,000): the import must be
//            refused, naming the objects limit, and the server must answer /healthz after;
//   real:    `--images` uploaded images (seeded into the database and blob folder before the
//            server starts) and a COCO file of `--annotations` polygons over them (1.45 GiB
//            at 8,000,000), listed in rounds over the images as the COCO tools list them by category,
//            so no image's annotations come together: imported to the end.
// Everything generated is removed at the end. SQLite only. See bench/README.md.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { BENCH_API_KEY, type ChildServer, ROOT, RssSampler, cpuMsOf, fmt, positive, progress, startServer, verdict } from './harness.ts';
import { UploadedStateWriter, prng, tinyPng } from './uploaded-state.ts';

const { values: args } = parseArgs({
  options: {
    case: { type: 'string', default: 'both' },
    images: { type: 'string', default: '100000' },
    annotations: { type: 'string', default: '8000000' },
    refused: { type: 'string', default: '10000000' },
    'log-level': { type: 'string', default: 'warn' },
  },
});
if (!['refused', 'real', 'both'].includes(args.case)) throw new Error(`--case must be refused, real or both, got "${args.case}"`);
const IMAGES = positive('images', args.images);
const ANNOTATIONS = positive('annotations', args.annotations);
const REFUSED = positive('refused', args.refused);

const RSS_TARGET_MB = 400;
const IMAGE_W = 640;
const IMAGE_H = 480;
const CATEGORIES = ['car', 'person', 'bicycle', 'dog', 'cat'];
const COCO_PATH = 'annotations/instances_train.json';
const imageName = (i: number) => `frame_${String(i).padStart(6, '0')}.png`;
const imagePath = (i: number) => `images/train/${imageName(i)}`;
const headers = { 'x-api-key': BENCH_API_KEY };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (kb: number) => kb / 1024;

/**
 * POST /v2/imports. Not with fetch: it gives up on an answer whose headers take more than 300 s
 * (undici's headersTimeout), and planning 100,000 images on a loaded machine takes longer.
 */
function postImport(server: ChildServer, body: unknown): Promise<{ status: number; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}/v2/imports`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Writes text to a file with back-pressure; answers the bytes written. */
async function writeFile(file: string, produce: (write: (text: string) => Promise<void>) => Promise<void>): Promise<number> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const out = fs.createWriteStream(file);
  let pending: string[] = [];
  let pendingChars = 0;
  const flush = async () => {
    if (!out.write(pending.join(''))) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    pending = [];
    pendingChars = 0;
  };
  await produce(async (text) => {
    pending.push(text);
    pendingChars += text.length;
    if (pendingChars >= 1 << 20) await flush();
  });
  await flush();
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return fs.statSync(file).size;
}

const categoriesJson = JSON.stringify(CATEGORIES.map((name, i) => ({ id: i + 1, name, supercategory: 'thing' })));

/** One image and `count` 1×1 boxes on it, in the order the COCO tools write (categories last). */
function writeRefusedCoco(file: string, count: number): Promise<number> {
  return writeFile(file, async (write) => {
    await write(`{"info":{"description":"annostore benchmark"},"images":[{"id":1,"file_name":"${imageName(0)}","width":${IMAGE_W},"height":${IMAGE_H}}],"annotations":[`);
    for (let k = 0; k < count; k += 1) {
      await write(`${k ? ',' : ''}{"id":${k + 1},"image_id":1,"category_id":1,"bbox":[${k % IMAGE_W},${k % IMAGE_H},1,1],"area":1,"iscrowd":0}`);
    }
    await write(`],"categories":${categoriesJson}}`);
  });
}

/**
 * `images` images and `annotations` hexagons over them, listed in rounds (each round one annotation
 * of every image), with the fields and precision the COCO tools write.
 */
function writeRealCoco(file: string, images: number, annotations: number): Promise<number> {
  return writeFile(file, async (write) => {
    await write('{"info":{"description":"annostore benchmark","version":"1.0","year":2026},"licenses":[],"images":[');
    for (let i = 0; i < images; i += 1) {
      await write(`${i ? ',' : ''}{"id":${i + 1},"file_name":"${imageName(i)}","width":${IMAGE_W},"height":${IMAGE_H},"license":0,"date_captured":"2026-01-01 00:00:00"}`);
    }
    await write('],"annotations":[');
    const random = prng(7);
    for (let k = 0; k < annotations; k += 1) {
      const cx = 40 + random() * (IMAGE_W - 80);
      const cy = 40 + random() * (IMAGE_H - 80);
      const r = 8 + random() * 30;
      const flat: number[] = [];
      for (let p = 0; p < 6; p += 1) flat.push(Math.round((cx + r * Math.cos((p * Math.PI) / 3)) * 10) / 10, Math.round((cy + r * Math.sin((p * Math.PI) / 3)) * 10) / 10);
      const box = [Math.round((cx - r) * 10) / 10, Math.round((cy - r) * 10) / 10, Math.round(2 * r * 10) / 10, Math.round(2 * r * 10) / 10];
      await write(`${k ? ',' : ''}{"id":${k + 1},"image_id":${(k % images) + 1},"category_id":${1 + (k % CATEGORIES.length)},"segmentation":[[${flat.join(',')}]],"area":${Math.round(r * r * 260) / 100},"bbox":[${box.join(',')}],"iscrowd":0}`);
    }
    await write(`],"categories":${categoriesJson}}`);
  });
}

/** Uploads files as multipart parts (the COCO file streamed from disk); answers the import's file list. */
async function upload(server: ChildServer, parts: { path: string; type: 'image' | 'annotation'; format: string; file?: string; bytes?: Buffer }[]) {
  const form = new FormData();
  for (const [i, p] of parts.entries()) {
    form.append(`f${i}`, JSON.stringify({ id: p.path, type: p.type, format: p.format }));
    form.append(`f${i}-file`, p.bytes ? new Blob([p.bytes]) : await fs.openAsBlob(p.file!), path.basename(p.path));
  }
  const res = await fetch(`${server.url}/v1/tasks/import/files`, { method: 'POST', headers, body: form });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${text.slice(0, 500)}`);
  const answers = JSON.parse(text) as { hash?: string; fileId?: string; errors?: unknown[] }[];
  return answers.map((a, i) => {
    if ((a.errors ?? []).length > 0) throw new Error(`upload of ${parts[i]!.path}: ${JSON.stringify(a.errors)}`);
    return a.hash ? { path: parts[i]!.path, hash: a.hash } : { path: parts[i]!.path, fileId: a.fileId! };
  });
}

interface Measured {
  floorMb: number;
  uploadMb: number;
  importMb: number;
  highWaterMb: number;
  seconds: number;
  cpuSeconds: number;
  detail: string;
}

/** A fresh DATA_DIR under /tmp, removed after `use`. */
async function inTempDir<T>(label: string, use: (dataDir: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `annostore-bench-${label}-`));
  try {
    return await use(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts the server on `dataDir`, lets it settle, and answers it with its idle RSS. */
async function startMeasured(dataDir: string, name: string, vars: Record<string, string> = {}): Promise<{ server: ChildServer; sampler: RssSampler; floorKb: number }> {
  const server = await startServer(name, [path.join(ROOT, 'bin', 'annostore.js'), 'serve'], { DATA_DIR: dataDir, ANNOSTORE_API_KEY: BENCH_API_KEY, LOG_LEVEL: args['log-level'], ...vars });
  await sleep(2000);
  const sampler = new RssSampler(server.pid);
  const floorKb = sampler.sample();
  sampler.peakKb = 0;
  sampler.start();
  return { server, sampler, floorKb };
}

async function refusedCase(): Promise<Measured> {
  return inTempDir('refused', async (dataDir) => {
    const file = path.join(dataDir, 'upload', 'instances_train.json');
    const bytes = await writeRefusedCoco(file, REFUSED);
    progress(`refused: wrote ${fmt(bytes / 1e6, 1)} MB, ${fmt(REFUSED)} boxes on one image`);
    const { server, sampler, floorKb } = await startMeasured(dataDir, 'import-memory-refused');
    try {
      const png = await sharp({ create: { width: IMAGE_W, height: IMAGE_H, channels: 3, background: { r: 90, g: 120, b: 150 } } }).png().toBuffer();
      const files = await upload(server, [
        { path: imagePath(0), type: 'image', format: 'coco', bytes: png },
        { path: COCO_PATH, type: 'annotation', format: 'coco', file },
      ]);
      const uploadKb = sampler.peakKb;
      sampler.peakKb = 0;
      progress('refused: uploaded; POST /v2/imports');
      const cpu = cpuMsOf(server.pid);
      const started = performance.now();
      const { status, text: answer } = await postImport(server, { project: { id: null, title: 'refused' }, preset: 3, files });
      const seconds = (performance.now() - started) / 1000;
      const cpuSeconds = (cpuMsOf(server.pid) - cpu) / 1000;
      if (status !== 400 || !/the limit is 10000 objects per image/.test(answer)) throw new Error(`expected a 400 naming the limit, got ${status} ${answer.slice(0, 500)}`);
      const health = await fetch(`${server.url}/healthz`);
      if (health.status !== 200) throw new Error(`/healthz answered ${health.status} after the refusal`);
      sampler.stop();
      const detail = `${status} in ${fmt(seconds, 1)} s (${JSON.parse(answer).detail.slice(0, 160)}…); /healthz ${health.status} after`;
      return { floorMb: mb(floorKb), uploadMb: mb(uploadKb), importMb: mb(sampler.peakKb), highWaterMb: mb(sampler.highWaterKb()), seconds, cpuSeconds, detail };
    } finally {
      sampler.stop();
      await server.stop();
    }
  });
}

async function seedImages(dataDir: string, images: number): Promise<{ path: string; hash: string }[]> {
  const ctx = await createContext(loadConfig({}, { dataDir, databaseUrl: undefined, databaseSchema: undefined }));
  try {
    const db = ctx.db.kysely;
    const writer = new UploadedStateWriter(db, path.join(dataDir, 'blobs'), await ensureTeam(db, DEFAULT_TEAM));
    const base = await sharp({ create: { width: IMAGE_W, height: IMAGE_H, channels: 3, background: { r: 90, g: 120, b: 150 } } }).png().toBuffer();
    const list: { path: string; hash: string }[] = [];
    for (let i = 0; i < images; i += 1) {
      const { hash } = writer.put(tinyPng(base, i), 'image', imagePath(i), { width: IMAGE_W, height: IMAGE_H });
      list.push({ path: imagePath(i), hash });
      if (writer.pending >= 2000) await writer.flush();
    }
    await writer.flush();
    return list;
  } finally {
    await ctx.close();
  }
}

async function realCase(): Promise<Measured> {
  return inTempDir('real', async (dataDir) => {
    const file = path.join(dataDir, 'upload', 'instances_train.json');
    let started = performance.now();
    const bytes = await writeRealCoco(file, IMAGES, ANNOTATIONS);
    progress(`real: wrote ${fmt(bytes / 2 ** 30, 2)} GiB (${fmt(IMAGES)} images, ${fmt(ANNOTATIONS)} polygons) in ${fmt((performance.now() - started) / 1000)} s`);
    const images = await seedImages(dataDir, IMAGES);
    progress(`real: seeded ${fmt(IMAGES)} uploaded images`);
    // 8,000,000 polygons make 1.44 GiB, past the default limit of one uploaded file (1 GiB).
    const { server, sampler, floorKb } = await startMeasured(dataDir, 'import-memory-real', { UPLOAD_FILE_BYTES: String(Math.max(2 ** 30, bytes)) });
    try {
      const [coco] = await upload(server, [{ path: COCO_PATH, type: 'annotation', format: 'coco', file }]);
      fs.rmSync(file);
      const uploadKb = sampler.peakKb;
      sampler.peakKb = 0;
      progress('real: uploaded; POST /v2/imports');
      const cpu = cpuMsOf(server.pid);
      started = performance.now();
      const { status, text: answer } = await postImport(server, { project: { id: null, title: 'real' }, preset: 3, files: [coco, ...images] });
      if (status !== 201) throw new Error(`POST /v2/imports: ${status} ${answer.slice(0, 500)}`);
      const postSeconds = (performance.now() - started) / 1000;
      progress(`real: POST /v2/imports answered in ${fmt(postSeconds, 1)} s`);
      const taskId = (JSON.parse(answer) as { task: { id: number } }).task.id;
      for (;;) {
        const task = (await (await fetch(`${server.url}/v2/tasks/${taskId}`, { headers })).json()) as { status: string; meta: { imported?: number; warnings?: unknown[] } };
        if (task.status === 'finished') {
          if (task.meta.imported !== IMAGES) throw new Error(`imported ${task.meta.imported} of ${IMAGES}: ${JSON.stringify(task.meta).slice(0, 500)}`);
          break;
        }
        if (task.status === 'error' || task.status === 'stopped') throw new Error(`import ended ${task.status}: ${JSON.stringify(task.meta).slice(0, 500)}`);
        await sleep(500);
      }
      const seconds = (performance.now() - started) / 1000;
      const cpuSeconds = (cpuMsOf(server.pid) - cpu) / 1000;
      sampler.stop();
      const detail = `POST answered in ${fmt(postSeconds, 1)} s, ${fmt(IMAGES)} images imported ${fmt(seconds, 1)} s after the POST`;
      return { floorMb: mb(floorKb), uploadMb: mb(uploadKb), importMb: mb(sampler.peakKb), highWaterMb: mb(sampler.highWaterKb()), seconds, cpuSeconds, detail };
    } finally {
      sampler.stop();
      await server.stop();
    }
  });
}

const passes: boolean[] = [];
const report = (label: string, m: Measured) => {
  console.log(
    `${label}: ${m.detail}\n  floor (idle server) ${fmt(m.floorMb, 1)} MB; peak RSS uploading ${fmt(m.uploadMb, 1)} MB, importing ${fmt(m.importMb, 1)} MB ` +
      `(${fmt(m.importMb / m.floorMb, 1)}× the floor); VmHWM ${fmt(m.highWaterMb, 1)} MB; server CPU ${fmt(m.cpuSeconds, 1)} s`,
  );
  passes.push(verdict(`${label} peak RSS`, m.highWaterMb < RSS_TARGET_MB, `${fmt(m.highWaterMb, 1)} MB (target < ${RSS_TARGET_MB} MB; floor ${fmt(m.floorMb, 1)} MB)`));
};
console.log(`load average before: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
if (args.case !== 'real') report(`refused (${fmt(REFUSED)} objects on one image)`, await refusedCase());
if (args.case !== 'refused') report(`real (${fmt(IMAGES)} images, ${fmt(ANNOTATIONS)} polygons)`, await realCase());
console.log(`load average after: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
process.exitCode = passes.every(Boolean) ? 0 : 1;
