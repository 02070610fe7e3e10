// A COCO import at scale: from POST /v1/tasks/import (preset 3) to the finished task.
//
//   node --import tsx bench/import-coco.ts [--images 100000] [--objects 10] [--points 12] [--rounds 1]
//                                          [--log-level warn] [--cpu-prof]
//
// Seeded once (cached under .bench/): a COCO instances file of N images with `--objects` polygons of
// `--points` points each, and the uploaded state of the N images (small distinct PNGs, staged files
// expiring in a year) written in bulk into the database and blob folder. Each round starts
// `annostore serve` (with its worker) on that state, uploads the COCO file through
// POST /v1/tasks/import/files, POSTs /v1/tasks/import and polls the task to its end while sampling the
// server's RSS, then removes what the round created. SQLite only. See bench/README.md.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { blobKey } from '../src/storage/blob-store.ts';
import { benchDatabase } from './databases.ts';
import { BENCH_API_KEY, BENCH_DIR, type ChildServer, ROOT, api, RssSampler, cpuMsOf, fmt, freePort, positive, progress, serverEnv, startChild, verdict } from './harness.ts';
import { UploadedStateWriter, prng, tinyPng } from './uploaded-state.ts';

const { values: args } = parseArgs({
  options: {
    images: { type: 'string', default: '100000' },
    objects: { type: 'string', default: '10' },
    points: { type: 'string', default: '12' },
    rounds: { type: 'string', default: '1' },
    'log-level': { type: 'string', default: 'warn' },
    'cpu-prof': { type: 'boolean', default: false },
  },
});
const IMAGES = positive('images', args.images);
const OBJECTS = positive('objects', args.objects);
const POINTS = positive('points', args.points);
const ROUNDS = positive('rounds', args.rounds);

const SECONDS_TARGET = 120;
const RSS_TARGET_MB = 500;
const IMAGE_W = 640;
const IMAGE_H = 480;
const CATEGORIES = ['car', 'person', 'bicycle'];
/** Bumped whenever generated data changes, so an old cache is not reused. */
const SEED_VERSION = 1;
const COCO_PATH = 'annotations/instances_train.json';
const imagePath = (i: number) => `images/train/${imageName(i)}`;
const imageName = (i: number) => `frame_${String(i).padStart(6, '0')}.png`;

const database = benchDatabase('sqlite', `import_coco_i${IMAGES}_o${OBJECTS}_p${POINTS}_v${SEED_VERSION}`);
const cocoFile = path.join(database.dataDir, 'coco', path.basename(COCO_PATH));
const marker = path.join(database.dataDir, 'seeded.json');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const headers = { 'x-api-key': BENCH_API_KEY };


/** One polygon as COCO writes it: x1, y1, x2, y2, … (2 decimals), around a random centre. */
function polygon(random: () => number): { segmentation: number[]; bbox: number[] } {
  const cx = 60 + random() * (IMAGE_W - 120);
  const cy = 60 + random() * (IMAGE_H - 120);
  const radius = 10 + random() * 40;
  const flat: number[] = [];
  for (let k = 0; k < POINTS; k += 1) {
    const angle = (2 * Math.PI * k) / POINTS;
    const r = radius * (0.7 + random() * 0.6);
    flat.push(Math.round((cx + r * Math.cos(angle)) * 100) / 100, Math.round((cy + r * Math.sin(angle)) * 100) / 100);
  }
  const xs = flat.filter((_, i) => i % 2 === 0);
  const ys = flat.filter((_, i) => i % 2 === 1);
  const [x, y] = [Math.min(...xs), Math.min(...ys)];
  return { segmentation: flat, bbox: [x, y, Math.round((Math.max(...xs) - x) * 100) / 100, Math.round((Math.max(...ys) - y) * 100) / 100] };
}

/**
 * Writes the COCO file in the order the COCO tools write it (info, licenses, images, annotations,
 * categories last), so a reader cannot rely on knowing the categories first.
 */
async function writeCoco(): Promise<void> {
  fs.mkdirSync(path.dirname(cocoFile), { recursive: true });
  const out = fs.createWriteStream(cocoFile);
  const write = async (text: string) => {
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  await write('{"info":{"description":"annostore benchmark","version":"1.0","year":2026},"licenses":[],"images":[');
  for (let i = 0; i < IMAGES; i += 1) {
    await write(`${i ? ',' : ''}${JSON.stringify({ id: i + 1, file_name: imageName(i), width: IMAGE_W, height: IMAGE_H, license: 0 })}`);
  }
  await write('],"annotations":[');
  let id = 0;
  for (let i = 0; i < IMAGES; i += 1) {
    const random = prng(i * 7919 + 17);
    const parts: string[] = [];
    for (let o = 0; o < OBJECTS; o += 1) {
      const { segmentation, bbox } = polygon(random);
      id += 1;
      const category = 1 + Math.floor(random() * CATEGORIES.length);
      parts.push(JSON.stringify({ id, image_id: i + 1, category_id: category, segmentation: [segmentation], area: Math.round(bbox[2]! * bbox[3]! * 50) / 100, bbox, iscrowd: 0 }));
    }
    await write(`${i ? ',' : ''}${parts.join(',')}`);
  }
  await write(`],"categories":${JSON.stringify(CATEGORIES.map((name, i) => ({ id: i + 1, name, supercategory: 'thing' })))}}`);
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

interface Seeded {
  /** The uploaded images as POST /v1/tasks/import lists them. */
  images: { path: string; hash: string }[];
}

async function ensureSeeded(): Promise<Seeded> {
  if (fs.existsSync(marker)) {
    progress(`reusing the seeded state in ${path.relative(ROOT, database.dataDir)}`);
    return JSON.parse(fs.readFileSync(marker, 'utf8')) as Seeded;
  }
  await database.reset();
  const started = Date.now();
  await writeCoco();
  progress(`wrote ${path.relative(ROOT, cocoFile)}: ${fmt(fs.statSync(cocoFile).size / 1e6, 1)} MB in ${fmt((Date.now() - started) / 1000, 1)} s`);
  const ctx = await database.open();
  try {
    const db = ctx.db.kysely;
    const writer = new UploadedStateWriter(db, path.join(database.dataDir, 'blobs'), await ensureTeam(db, DEFAULT_TEAM));
    const base = await sharp({ create: { width: IMAGE_W, height: IMAGE_H, channels: 3, background: { r: 90, g: 120, b: 150 } } }).png().toBuffer();
    const images: Seeded['images'] = [];
    for (let i = 0; i < IMAGES; i += 1) {
      const { hash } = writer.put(tinyPng(base, i), 'image', imagePath(i), { width: IMAGE_W, height: IMAGE_H });
      images.push({ path: imagePath(i), hash });
      if (writer.pending >= 2000) await writer.flush();
      if (i % 20000 === 19999) progress(`seeded ${fmt(i + 1)} / ${fmt(IMAGES)} uploaded images`);
    }
    await writer.flush();
    const seeded: Seeded = { images };
    fs.writeFileSync(marker, JSON.stringify(seeded));
    progress(`seeding took ${fmt((Date.now() - started) / 1000, 1)} s`);
    return seeded;
  } finally {
    await ctx.close();
  }
}

/** `annostore serve` with its task worker, on the seeded state. */
async function startServer(): Promise<ChildServer> {
  const port = await freePort();
  const profile = args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.join(BENCH_DIR, 'profiles')}`] : [];
  return startChild({
    name: 'import-coco-server',
    args: [...profile, path.join(ROOT, 'bin', 'annostore.js'), 'serve'],
    env: serverEnv({ DATA_DIR: database.dataDir, ANNOSTORE_API_KEY: BENCH_API_KEY, PORT: String(port), LOG_LEVEL: args['log-level'] }),
    port,
    readyPath: '/healthz',
  });
}

/** Uploads the COCO file as one multipart file part, streamed from disk; answers its fileId. */
async function uploadCoco(server: ChildServer): Promise<string> {
  const form = new FormData();
  form.append('coco', JSON.stringify({ id: COCO_PATH, type: 'annotation', format: 'coco' }));
  form.append('coco-file', await fs.openAsBlob(cocoFile, { type: 'application/json' }), path.basename(COCO_PATH));
  const res = await fetch(`${server.url}/v1/tasks/import/files`, { method: 'POST', headers, body: form });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`upload of the COCO file: ${res.status} ${text.slice(0, 500)}`);
  const [answer] = JSON.parse(text) as { fileId?: string; errors?: unknown[] }[];
  if (!answer?.fileId || (answer.errors ?? []).length > 0) throw new Error(`upload of the COCO file: ${text.slice(0, 500)}`);
  return answer.fileId;
}

interface TaskBody {
  id: number;
  status: string;
  meta: { imported?: number; failed?: number; warnings?: unknown[]; project?: { id: number } };
}

interface Round {
  uploadSeconds: number;
  /** Until POST /v1/tasks/import answered (the planning of the COCO file happens there). */
  postSeconds: number;
  /** From the POST to the finished task. */
  seconds: number;
  peakMb: number;
  /** Peak VmRSS sampled in each phase: upload, POST (planning), the import task. */
  phaseMb: [number, number, number];
  /** CPU seconds the server used in each phase. */
  phaseCpu: [number, number, number];
}

/** One round on a started server: upload, import, poll; the server is stopped and the round removed after. */
async function runRound(server: ChildServer, seeded: Seeded, round: number): Promise<Round> {
  const sampler = new RssSampler(server.pid);
  sampler.start();
  const created: { projectId: number | null; taskId: number | null } = { projectId: null, taskId: null };
  const phaseMb: number[] = [];
  const phaseCpu: number[] = [];
  let cpuMs = cpuMsOf(server.pid);
  const endPhase = () => {
    const now = cpuMsOf(server.pid);
    phaseCpu.push((now - cpuMs) / 1000);
    cpuMs = now;
    sampler.sample();
    phaseMb.push(sampler.peakKb / 1024);
    sampler.peakKb = 0;
  };
  try {
    let started = performance.now();
    const fileId = await uploadCoco(server);
    const uploadSeconds = (performance.now() - started) / 1000;
    endPhase();
    progress(`round ${round}: COCO file uploaded in ${fmt(uploadSeconds, 1)} s`);
    const body = { project: { id: null, title: `bench coco round ${round} ${Date.now()}` }, preset: 3, files: [{ path: COCO_PATH, fileId }, ...seeded.images] };
    started = performance.now();
    const { taskId } = await api<{ taskId: number }>(server, 'POST', '/v1/tasks/import', body);
    created.taskId = taskId;
    const postSeconds = (performance.now() - started) / 1000;
    endPhase();
    progress(`round ${round}: POST /v1/tasks/import answered in ${fmt(postSeconds, 1)} s`);
    for (;;) {
      const [task] = await api<TaskBody[]>(server, 'GET', `/v1/tasks?id=${taskId}`);
      created.projectId = task!.meta.project?.id ?? null;
      if (task!.status === 'finished') {
        const seconds = (performance.now() - started) / 1000;
        if (task!.meta.imported !== IMAGES) throw new Error(`import finished with ${JSON.stringify(task!.meta).slice(0, 500)}`);
        if ((task!.meta.warnings ?? []).length > 0) throw new Error(`import warned: ${JSON.stringify(task!.meta.warnings).slice(0, 500)}`);
        sampler.stop();
        const highWaterMb = sampler.highWaterKb() / 1024;
        endPhase();
        return { uploadSeconds, postSeconds, seconds, peakMb: Math.max(highWaterMb, ...phaseMb), phaseMb: phaseMb as Round['phaseMb'], phaseCpu: phaseCpu as Round['phaseCpu'] };
      }
      if (task!.status === 'error' || task!.status === 'stopped') throw new Error(`import ended ${task!.status}: ${JSON.stringify(task!.meta).slice(0, 500)}`);
      await sleep(250);
    }
  } finally {
    sampler.stop();
    await server.stop();
    await removeRound(created.projectId, created.taskId);
  }
}

/**
 * Removes what a round created (project, task, the uploaded COCO file and the annotation blobs made
 * from it), so every round starts from the seeded state and writes its annotation blobs anew.
 */
async function removeRound(projectId: number | null, taskId: number | null): Promise<void> {
  const ctx = await database.open();
  try {
    const db = ctx.db.kysely;
    if (taskId !== null) await db.deleteFrom('tasks').where('id', '=', taskId).execute();
    if (projectId !== null) await db.deleteFrom('projects').where('id', '=', projectId).execute();
    await db.deleteFrom('staged_files').where('kind', '!=', 'image').execute();
    const gone = await db
      .deleteFrom('blobs')
      .where((eb) => eb.and([eb('hash', 'not in', eb.selectFrom('staged_files').select('hash')), eb('hash', 'not in', eb.selectFrom('images').select('hash'))]))
      .returning('hash')
      .execute();
    for (let i = 0; i < gone.length; i += 64) {
      await Promise.all(gone.slice(i, i + 64).map((r) => fsp.rm(path.join(database.dataDir, 'blobs', 'objects', blobKey(r.hash)), { force: true })));
    }
  } finally {
    await ctx.close();
  }
}

const seeded = await ensureSeeded();
const cocoMb = fs.statSync(cocoFile).size / 1e6;
const polygons = IMAGES * OBJECTS;
console.log(`\nCOCO import: ${fmt(IMAGES)} images, ${fmt(polygons)} polygons of ${POINTS} points, one file of ${fmt(cocoMb, 1)} MB, SQLite, ${ROUNDS} round(s); load average before: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
const rounds: Round[] = [];
for (let round = 1; round <= ROUNDS; round += 1) {
  const r = await runRound(await startServer(), seeded, round);
  rounds.push(r);
  console.log(
    `round ${round}: ${fmt(r.seconds, 1)} s from POST to finished (POST answered after ${fmt(r.postSeconds, 1)} s) = ${fmt(IMAGES / r.seconds)} images/s; ` +
      `peak server RSS ${fmt(r.peakMb, 1)} MB (sampled peaks: uploading ${fmt(r.phaseMb[0], 1)} MB, planning ${fmt(r.phaseMb[1], 1)} MB, ` +
      `importing ${fmt(r.phaseMb[2], 1)} MB); upload of the file before it ${fmt(r.uploadSeconds, 1)} s; ` +
      `server CPU: ${fmt(r.phaseCpu[1], 1)} s planning, ${fmt(r.phaseCpu[2], 1)} s importing`,
  );
}
console.log(`load average after: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
const bestSeconds = Math.min(...rounds.map((r) => r.seconds));
const peakMb = Math.max(...rounds.map((r) => r.peakMb));
const passes = [
  verdict('COCO import time on SQLite', bestSeconds < SECONDS_TARGET, `${fmt(bestSeconds, 1)} s, ${fmt(IMAGES / bestSeconds)} images/s (target < ${SECONDS_TARGET} s)`),
  verdict('COCO import peak RSS on SQLite', peakMb < RSS_TARGET_MB, `${fmt(peakMb, 1)} MB (target < ${RSS_TARGET_MB} MB)`),
];
process.exitCode = passes.every(Boolean) ? 0 : 1;
