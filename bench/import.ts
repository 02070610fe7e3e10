// The import path under load: upload throughput, the import task, and check-images.
//
//   node --import tsx bench/import.ts [--part all|upload|import|check|seed] [--db sqlite|postgres]
//                                     [--rounds 3] [--images 2000] [--items 100000] [--in-flight 4]
//                                     [--checks 7] [--cpu-prof] [--node-args "<flags for the server's node>"]
//
// (a) upload: N distinct ~200 KiB PNGs (generated once under .bench/) sent to POST /v1/tasks/import/files
//     in requests of 100 files, a few requests in flight, against `annostore serve` (child process,
//     fresh DATA_DIR each round) and against bench/import-floor.ts (multipart streamed to disk while
//     hashed). Reports MB/s of request bytes and the ratio.
// (b) import: the uploaded state of a Supervisely project of N images with one annotation of 10
//     polygons each is seeded once (cached); each round starts the server on it, POSTs
//     /v1/tasks/import and times until the task is finished, sampling the server's RSS. The floor
//     inserts the same image and import_items rows into a fresh database of the same kind in one
//     transaction. Every round starts from the seeded state (projects and tasks of earlier rounds, or
//     of a run that was stopped, removed), with the uploaded annotation files and the database read
//     into the page cache as right after an upload, and after a `sync`.
// (c) check-images: 10,000 hashes, half of them known, against the store after the first import round,
//     on a server started again on it.
// See bench/README.md.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import sharp from 'sharp';
import { isoNow } from '../src/clock.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { type Context, createContext } from '../src/context.ts';
import { type AnnotationObject, serializeObjects } from '../src/formats/canonical.ts';
import { insertProject } from '../src/repositories/projects.repository.ts';
import { createTask } from '../src/repositories/tasks.repository.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { BENCH_API_KEY, BENCH_DIR, type ChildServer, ROOT, RssSampler, api, fmt, positive, verdict as printVerdict, progress, settleDisk, startServer } from './harness.ts';
import { UploadedStateWriter, prng, sha256, tinyPng } from './uploaded-state.ts';


const { values: args } = parseArgs({
  options: {
    part: { type: 'string', default: 'all' },
    db: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '3' },
    images: { type: 'string', default: '2000' },
    items: { type: 'string', default: '100000' },
    'in-flight': { type: 'string', default: '4' },
    checks: { type: 'string', default: '7' },
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    'log-level': { type: 'string', default: 'warn' },
    'cpu-prof': { type: 'boolean', default: false },
    'node-args': { type: 'string', default: '' },
  },
});

const PART = args.part;
if (!['all', 'upload', 'import', 'check', 'seed'].includes(PART)) throw new Error(`--part must be all, upload, import, check or seed`);
const DB = args.db;
if (DB !== 'sqlite' && DB !== 'postgres') throw new Error('--db must be sqlite or postgres');
const ROUNDS = positive('rounds', args.rounds);
const UPLOAD_IMAGES = positive('images', args.images);
const ITEMS = positive('items', args.items);
const IN_FLIGHT = positive('in-flight', args['in-flight']);
const CHECKS = positive('checks', args.checks);
const DATABASE_URL = args['database-url'];

const FILES_PER_REQUEST = 100;
const UPLOAD_RATIO_TARGET = 0.8;
const IMPORT_RATIO_TARGET = 0.5;
const IMPORT_SECONDS_TARGET = 60;
const RSS_TARGET_MB = 300;
const CHECK_MS_TARGET = 100;
const CHECK_HASHES = 10_000;
const DATASETS = 4;
const OBJECTS_PER_IMAGE = 10;
const IMAGE_W = 640;
const IMAGE_H = 480;
/** Bumped whenever generated data changes, so an old cache is not reused. */
const SEED_VERSION = 1;

// ---------------------------------------------------------------------------------------------------
// Child processes, RSS, report

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startAnnostore(name: string, dataDir: string, schema?: string): Promise<ChildServer> {
  const profile = args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.join(BENCH_DIR, 'profiles')}`] : [];
  const nodeArgs = args['node-args'] ? args['node-args'].split(' ').filter(Boolean) : [];
  return startServer(name, [...profile, ...nodeArgs, path.join(ROOT, 'bin', 'annostore.js'), 'serve'], {
    DATA_DIR: dataDir,
    DATABASE_URL: DB === 'postgres' ? DATABASE_URL : undefined,
    DATABASE_SCHEMA: DB === 'postgres' ? schema : undefined,
    ANNOSTORE_API_KEY: BENCH_API_KEY,
    LOG_LEVEL: args['log-level'],
  });
}

/** Stops the sampler; answers the server's peak in MB: sampled VmRSS or the kernel's high-water mark. */
function stopSampler(sampler: RssSampler): number {
  sampler.stop();
  return Math.max(sampler.peakKb, sampler.highWaterKb()) / 1024;
}

function spread(values: number[], higherIsBetter: boolean) {
  const top = higherIsBetter ? Math.max(...values) : Math.min(...values);
  const bottom = higherIsBetter ? Math.min(...values) : Math.max(...values);
  return { best: top, worst: bottom, spreadPct: (Math.abs(top - bottom) / top) * 100 };
}

const verdicts: boolean[] = [];
/** The harness's PASS/FAIL line, remembered for the exit code. */
const verdict = (label: string, passed: boolean, detail: string) => verdicts.push(printVerdict(label, passed, detail));

const headers = { 'x-api-key': BENCH_API_KEY };

// ---------------------------------------------------------------------------------------------------
// (a) Upload

/** Distinct random-noise PNGs of about 200 KiB, generated once. */
async function uploadImages(): Promise<{ name: string; bytes: Buffer; hash: string }[]> {
  const dir = path.join(BENCH_DIR, `import-upload-images-v${SEED_VERSION}`);
  fs.mkdirSync(dir, { recursive: true });
  const out = [];
  for (let i = 0; i < UPLOAD_IMAGES; i += 1) {
    const name = `img_${String(i).padStart(5, '0')}.png`;
    const file = path.join(dir, name);
    let bytes: Buffer;
    if (fs.existsSync(file)) bytes = fs.readFileSync(file);
    else {
      // 264×264 RGB noise: 209,088 bytes of pixels that PNG cannot compress.
      bytes = await sharp(randomBytes(264 * 264 * 3), { raw: { width: 264, height: 264, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer();
      fs.writeFileSync(file, bytes);
      if (i % 500 === 499) progress(`generated ${i + 1} / ${UPLOAD_IMAGES} upload images`);
    }
    out.push({ name, bytes, hash: sha256(bytes) });
  }
  return out;
}

interface UploadRequest {
  body: Buffer;
  contentType: string;
  hashes: string[];
}

function uploadRequests(images: { name: string; bytes: Buffer; hash: string }[]): UploadRequest[] {
  const requests: UploadRequest[] = [];
  for (let start = 0; start < images.length; start += FILES_PER_REQUEST) {
    const batch = images.slice(start, start + FILES_PER_REQUEST);
    const boundary = `----annostorebench${randomBytes(8).toString('hex')}`;
    const chunks: Buffer[] = [];
    batch.forEach((img, j) => {
      const metadata = JSON.stringify({ id: `ds0/img/${img.name}`, hash: img.hash, type: 'image', format: 'supervisely' });
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f${j}"\r\n\r\n${metadata}\r\n`));
      chunks.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f${j}-file"; filename="${img.name}"\r\nContent-Type: image/png\r\n\r\n`),
        img.bytes,
        Buffer.from('\r\n'),
      );
    });
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    requests.push({ body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}`, hashes: batch.map((b) => b.hash) });
  }
  return requests;
}

/** Sends every request with `IN_FLIGHT` in flight; checks each answer; answers the seconds taken. */
async function sendUploads(url: string, requests: UploadRequest[]): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (;;) {
      const index = next++;
      if (index >= requests.length) return;
      const r = requests[index]!;
      const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': r.contentType }, body: r.body });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`upload to ${url}: ${res.status} ${text.slice(0, 500)}`);
      const answers = JSON.parse(text) as { hash?: string; errors?: unknown[] }[];
      if (answers.length !== r.hashes.length || answers.some((a, i) => a.hash !== r.hashes[i] || (a.errors && a.errors.length > 0))) {
        throw new Error(`upload to ${url}: unexpected answer ${text.slice(0, 500)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return (performance.now() - started) / 1000;
}

async function benchUpload(): Promise<void> {
  const images = await uploadImages();
  const requests = uploadRequests(images);
  const totalMb = requests.reduce((n, r) => n + r.body.length, 0) / 1e6;
  console.log(`\n(a) upload: ${fmt(UPLOAD_IMAGES)} PNGs of ~${fmt(images[0]!.bytes.length / 1024)} KiB, ${requests.length} requests of ${FILES_PER_REQUEST} files (${fmt(totalMb, 1)} MB), ${IN_FLIGHT} in flight, ${ROUNDS} rounds`);
  const ours: number[] = [];
  const floor: number[] = [];
  let peakMb = 0;
  for (let round = 1; round <= ROUNDS; round += 1) {
    const dir = path.join(BENCH_DIR, 'import-upload-run');
    fs.rmSync(dir, { recursive: true, force: true });
    // The floor and ours alternate which goes first.
    for (const which of round % 2 ? ['ours', 'floor'] : ['floor', 'ours']) {
      settleDisk();
      if (which === 'ours') {
        const server = await startAnnostore('import-upload-server', path.join(dir, 'data'), `bench_import_upload`);
        const sampler = new RssSampler(server.pid);
        sampler.start();
        try {
          ours.push(totalMb / (await sendUploads(`${server.url}/v1/tasks/import/files`, requests)));
        } finally {
          peakMb = Math.max(peakMb, stopSampler(sampler));
          await server.stop();
        }
      } else {
        const server = await startServer('import-upload-floor', ['--import', 'tsx', path.join(ROOT, 'bench', 'import-floor.ts'), '--dir', path.join(dir, 'floor')], {});
        try {
          floor.push(totalMb / (await sendUploads(`${server.url}/upload`, requests)));
        } finally {
          await server.stop();
        }
      }
    }
    if (DB === 'postgres') await dropSchema('bench_import_upload');
    fs.rmSync(dir, { recursive: true, force: true });
    progress(`upload round ${round}: ours ${fmt(ours.at(-1)!, 1)} MB/s, floor ${fmt(floor.at(-1)!, 1)} MB/s`);
  }
  const o = spread(ours, true);
  const f = spread(floor, true);
  console.log(`annostore: best ${fmt(o.best, 1)} MB/s (spread ${fmt(o.spreadPct, 1)}%; ${ours.map((v) => fmt(v, 1)).join(' / ')}), peak RSS ${fmt(peakMb, 1)} MB`);
  console.log(`floor:     best ${fmt(f.best, 1)} MB/s (spread ${fmt(f.spreadPct, 1)}%; ${floor.map((v) => fmt(v, 1)).join(' / ')})`);
  const ratio = o.best / f.best;
  verdict(`upload on ${DB}`, ratio >= UPLOAD_RATIO_TARGET, `${fmt(ratio * 100, 1)}% of the floor (target >= ${UPLOAD_RATIO_TARGET * 100}%)`);
}

// ---------------------------------------------------------------------------------------------------
// (b) Import, (c) check-images

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

function configOf(dataDir: string, schema: string): Config {
  return loadConfig({}, { dataDir, databaseUrl: DB === 'postgres' ? DATABASE_URL : undefined, databaseSchema: DB === 'postgres' ? schema : undefined, storageUrl: undefined });
}

const CLASSES = ['car', 'person', 'bicycle'];

/** Ten polygons of 12 points (the last closes the ring) in the canonical form. */
function objectsOf(index: number): AnnotationObject[] {
  const random = prng(index * 7919 + 17);
  const objects: AnnotationObject[] = [];
  for (let o = 0; o < OBJECTS_PER_IMAGE; o += 1) {
    const cx = 60 + random() * (IMAGE_W - 120);
    const cy = 60 + random() * (IMAGE_H - 120);
    const radius = 10 + random() * 40;
    const exterior: [number, number][] = [];
    for (let k = 0; k < 11; k += 1) {
      const angle = (2 * Math.PI * k) / 11;
      const r = radius * (0.7 + random() * 0.6);
      exterior.push([Math.round((cx + r * Math.cos(angle)) * 100) / 100, Math.round((cy + r * Math.sin(angle)) * 100) / 100]);
    }
    exterior.push([exterior[0]![0], exterior[0]![1]]);
    objects.push({ classTitle: CLASSES[Math.floor(random() * 3)]!, description: '', tags: [], bitmap: null, points: { exterior, interior: [] } });
  }
  return objects;
}

/** A Supervisely annotation file of image `index`. */
const annotationOf = (index: number) => JSON.stringify({ description: '', tags: [], size: { width: IMAGE_W, height: IMAGE_H }, objects: objectsOf(index) });

interface Seeded {
  files: ({ path: string; hash: string } | { path: string; fileId: string })[];
  imageHashes: string[];
}

const seedDir = () => path.join(BENCH_DIR, `import-seed-${ITEMS}-v${SEED_VERSION}-${DB}`);
const seedSchema = `bench_import_${ITEMS}_v${SEED_VERSION}`;

/**
 * The state after a client uploaded the project: blob bytes in the store, blob rows, staged files of
 * the team. Written in bulk (bytes without fsync) since only the import is measured.
 */
async function ensureSeeded(): Promise<Seeded> {
  const dir = seedDir();
  const marker = path.join(dir, 'seeded.json');
  if (fs.existsSync(marker)) {
    progress(`reusing the seeded upload state in ${path.relative(ROOT, dir)}`);
    return JSON.parse(fs.readFileSync(marker, 'utf8')) as Seeded;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  if (DB === 'postgres') await dropSchema(seedSchema);
  const started = Date.now();
  const ctx = await createContext(configOf(dir, seedSchema));
  try {
    const db = ctx.db.kysely;
    const teamId = await ensureTeam(db, DEFAULT_TEAM);
    const blobsRoot = path.join(dir, 'blobs');
    const base = await sharp({ create: { width: IMAGE_W, height: IMAGE_H, channels: 3, background: { r: 90, g: 120, b: 150 } } }).png().toBuffer();
    const meta = Buffer.from(JSON.stringify({ classes: CLASSES.map((title, i) => ({ title, shape: 'polygon', color: ['#E6194B', '#3CB44B', '#4363D8'][i] })), tags: [] }));

    const files: Seeded['files'] = [];
    const imageHashes: string[] = [];
    const writer = new UploadedStateWriter(db, blobsRoot, teamId);
    const put = (bytes: Buffer, kind: 'image' | 'annotation' | 'class', name: string) => writer.put(bytes, kind, name, kind === 'image' ? { width: IMAGE_W, height: IMAGE_H } : null);
    const flush = () => writer.flush();
    files.push({ path: 'meta.json', fileId: put(meta, 'class', 'meta.json').fileId });
    const perDataset = Math.ceil(ITEMS / DATASETS);
    for (let i = 0; i < ITEMS; i += 1) {
      const name = `frame_${String(i).padStart(6, '0')}.png`;
      const dataset = `batch-${Math.floor(i / perDataset) + 1}`;
      const image = put(tinyPng(base, i), 'image', `${dataset}/img/${name}`);
      imageHashes.push(image.hash);
      files.push({ path: `${dataset}/img/${name}`, hash: image.hash });
      files.push({ path: `${dataset}/ann/${name}.json`, fileId: put(Buffer.from(annotationOf(i)), 'annotation', `${dataset}/ann/${name}.json`).fileId });
      if (i % 2000 === 1999) await flush();
      if (i % 20000 === 19999) progress(`seeded ${fmt(i + 1)} / ${fmt(ITEMS)} uploaded images with annotations`);
    }
    await flush();
    if (DB === 'postgres') await sql`vacuum analyze`.execute(db);
    const seeded: Seeded = { files, imageHashes };
    fs.writeFileSync(marker, JSON.stringify(seeded));
    progress(`seeding took ${fmt((Date.now() - started) / 1000, 1)} s`);
    return seeded;
  } finally {
    await ctx.close();
  }
}

interface TaskBody {
  id: number;
  status: string;
  meta: { imported?: number; failed?: number; skipped?: number; project: { id: number }; error?: unknown };
}

/** One import of the seeded project over HTTP; answers seconds until finished and the project id. */
async function importOnce(server: ChildServer, seeded: Seeded, round: number): Promise<{ seconds: number }> {
  const body = { project: { id: null, title: `bench import round ${round} ${Date.now()}` }, preset: 1, files: seeded.files };
  const started = performance.now();
  const { taskId } = await api<{ taskId: number }>(server, 'POST', '/v1/tasks/import', body);
  const posted = performance.now();
  for (;;) {
    const [task] = await api<TaskBody[]>(server, 'GET', `/v1/tasks?id=${taskId}`);
    if (task!.status === 'finished') {
      const seconds = (performance.now() - started) / 1000;
      if (task!.meta.imported !== ITEMS) throw new Error(`import finished with ${JSON.stringify(task!.meta).slice(0, 500)}`);
      progress(`import round ${round}: POST answered in ${fmt((posted - started) / 1000, 2)} s, finished after ${fmt(seconds, 2)} s`);
      return { seconds };
    }
    if (task!.status === 'error' || task!.status === 'stopped') throw new Error(`import ended ${task!.status}: ${JSON.stringify(task!.meta).slice(0, 500)}`);
    await sleep(100);
  }
}

/**
 * Brings the seeded database back to its seeded state: removes every project and task, which only
 * import rounds create (a round that failed, or a run that was stopped, may have left one behind).
 * Then reads the database file and the uploaded class and annotation files, as an import right after
 * their upload finds them in the page cache: a round after another's writes (or the floor's) found some
 * of them on disk, a few seconds more from one round to the next.
 */
async function resetToSeeded(): Promise<void> {
  const ctx = await createContext(configOf(seedDir(), seedSchema));
  try {
    const db = ctx.db.kysely;
    await db.deleteFrom('tasks').execute();
    await db.deleteFrom('projects').execute();
    if (DB === 'postgres') await sql`vacuum analyze`.execute(db);
    else await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    const uploaded = await db.selectFrom('staged_files').select('hash').where('kind', '!=', 'image').execute();
    for (const { hash } of uploaded) await ctx.blobs.readBytes(hash);
  } finally {
    await ctx.close();
  }
  if (DB === 'sqlite') readWhole(path.join(seedDir(), 'annostore.sqlite'));
}

/** The rows of annotation_revisions in the seeded store (the last round's) and the bytes of the table with its indexes. */
async function revisionBytes(): Promise<{ rows: number; bytes: number }> {
  const ctx = await createContext(configOf(seedDir(), seedSchema));
  try {
    const db = ctx.db.kysely;
    const { n } = await db.selectFrom('annotation_revisions').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    const size =
      DB === 'postgres'
        ? sql<{ bytes: string }>`select pg_total_relation_size('annotation_revisions') as bytes`
        : sql<{ bytes: number }>`select sum(pgsize) as bytes from dbstat where name = 'annotation_revisions' or name like 'annotation_revisions_%'`;
    const { rows } = await size.execute(db);
    return { rows: Number(n), bytes: Number(rows[0]!.bytes) };
  } finally {
    await ctx.close();
  }
}

function readWhole(file: string): void {
  const chunk = Buffer.allocUnsafe(8 * 1024 * 1024);
  const fd = fs.openSync(file, 'r');
  try {
    while (fs.readSync(fd, chunk, 0, chunk.length, null) > 0);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The floor: the same image rows, and one import_items row each, inserted through Kysely into a
 * fresh database of the same kind in one transaction, 500 rows a statement.
 */
async function importFloor(imageHashes: string[]): Promise<number> {
  const dir = path.join(BENCH_DIR, 'import-floor-db');
  const schema = 'bench_import_floor';
  fs.rmSync(dir, { recursive: true, force: true });
  if (DB === 'postgres') await dropSchema(schema);
  const ctx: Context = await createContext(configOf(dir, schema));
  try {
    const db = ctx.db.kysely;
    const now = isoNow();
    const teamId = await ensureTeam(db, DEFAULT_TEAM);
    const projectId = await insertProject(db, teamId, 'floor');
    const datasetIds: number[] = [];
    for (let d = 0; d < DATASETS; d += 1) {
      const row = await db.insertInto('datasets').values({ project_id: projectId, title: `batch-${d + 1}`, size: 0, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
      datasetIds.push(row.id);
    }
    // Each image its own hash, as in the seeded project: one hash for all would append every entry
    // of the hash index to one page, where distinct hashes land all over it.
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < ITEMS; i += 500) {
        const blobs = imageHashes.slice(i, i + 500).map((hash) => ({ hash, size: 1000, media_type: 'image/png', width: IMAGE_W, height: IMAGE_H, created_at: now }));
        await trx.insertInto('blobs').values(blobs).execute();
      }
    });
    const taskId = await createTask(db, { teamId, userId: null, type: 'import', size: 0, meta: {}, input: {} });
    const perDataset = Math.ceil(ITEMS / DATASETS);
    const rows = Array.from({ length: ITEMS }, (_, i) => ({
      dataset_id: datasetIds[Math.floor(i / perDataset)]!,
      project_id: projectId,
      name: `frame_${String(i).padStart(6, '0')}.png`,
      hash: imageHashes[i]!,
      size: 1000,
      width: IMAGE_W,
      height: IMAGE_H,
      description: '',
      objects_json: serializeObjects(objectsOf(i)),
      created_at: now,
      updated_at: now,
    }));
    const started = performance.now();
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 500) {
        const ids = await trx.insertInto('images').values(rows.slice(i, i + 500)).returning('id').execute();
        await trx.insertInto('import_items').values(ids.map((r, j) => ({ task_id: taskId, item: i + j, image_id: r.id }))).execute();
      }
    });
    return (performance.now() - started) / 1000;
  } finally {
    await ctx.close();
    fs.rmSync(dir, { recursive: true, force: true });
    if (DB === 'postgres') await dropSchema(schema);
  }
}

/** Times POST /v1/tasks/import/check-images with 10,000 hashes, half known; answers ms per call. */
async function benchCheck(server: ChildServer, seeded: Seeded): Promise<void> {
  const half = CHECK_HASHES / 2;
  const step = Math.floor(seeded.imageHashes.length / half);
  const known = Array.from({ length: half }, (_, i) => seeded.imageHashes[i * step]!);
  const unknown = Array.from({ length: half }, () => randomBytes(32).toString('base64'));
  const hashes = known.flatMap((k, i) => [k, unknown[i]!]);
  const times: number[] = [];
  for (let i = 0; i < CHECKS + 1; i += 1) {
    const started = performance.now();
    const missing = await api<string[]>(server, 'POST', '/v1/tasks/import/check-images', hashes);
    const ms = performance.now() - started;
    if (missing.length !== half || missing[0] !== unknown[0]) throw new Error(`check-images answered ${missing.length} missing, expected ${half}`);
    if (i > 0) times.push(ms); // the first call warms up
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(`\n(c) check-images: ${fmt(CHECK_HASHES)} hashes (half known) against ${fmt(ITEMS)} images on ${DB}: median ${fmt(median, 1)} ms of ${times.length} calls (best ${fmt(times[0]!, 1)}, worst ${fmt(times.at(-1)!, 1)})`);
  verdict(`check-images on ${DB}`, median < CHECK_MS_TARGET, `median ${fmt(median, 1)} ms (target < ${CHECK_MS_TARGET} ms)`);
}

async function benchImport(withImport: boolean, withCheck: boolean): Promise<void> {
  const seeded = await ensureSeeded();
  const rounds = withImport ? ROUNDS : 1;
  const ours: number[] = [];
  const floors: number[] = [];
  let peakMb = 0;
  for (let round = 1; round <= rounds; round += 1) {
    if (withImport) {
      settleDisk();
      floors.push(await importFloor(seeded.imageHashes));
      progress(`import floor round ${round}: ${fmt(floors.at(-1)!, 2)} s`);
    }
    await resetToSeeded();
    // Nothing of the floor's writes or the reset's is still to be written back during the round.
    settleDisk();
    /** Runs `use` on a server of the seeded store, its RSS sampled into peakMb; then stops it. */
    const onSeededServer = async (name: string, use: (server: ChildServer) => Promise<void>) => {
      const server = await startAnnostore(name, seedDir(), seedSchema);
      const sampler = new RssSampler(server.pid);
      sampler.start();
      try {
        await use(server);
      } finally {
        peakMb = Math.max(peakMb, stopSampler(sampler));
        await server.stop();
      }
    };
    await onSeededServer(`import-${DB}-server`, async (server) => {
      ours.push((await importOnce(server, seeded, round)).seconds);
    });
    // check-images against the store the import made, on a server started again: the one that
    // imported copies the import's log into the database file for a few seconds after the task ends
    // (src/db/sqlite-checkpoints.ts), and its queries share the machine with that meanwhile.
    if (round === 1 && withCheck) await onSeededServer(`import-${DB}-check-server`, (server) => benchCheck(server, seeded));
  }
  if (!withImport) return;
  const o = spread(ours, false);
  const f = spread(floors, false);
  console.log(`\n(b) import of ${fmt(ITEMS)} images with 10 polygons each on ${DB}, ${rounds} rounds`);
  console.log(`annostore: best ${fmt(o.best, 2)} s = ${fmt(ITEMS / o.best)} images/s (spread ${fmt(o.spreadPct, 1)}%; ${ours.map((v) => fmt(v, 2)).join(' / ')} s)`);
  console.log(`floor:     best ${fmt(f.best, 2)} s = ${fmt(ITEMS / f.best)} images/s (spread ${fmt(f.spreadPct, 1)}%; ${floors.map((v) => fmt(v, 2)).join(' / ')} s)`);
  console.log(`server peak RSS: ${fmt(peakMb, 1)} MB`);
  const revisions = await revisionBytes();
  console.log(`annotation revisions of the last round: ${fmt(revisions.rows)} rows, ${fmt(revisions.bytes / 1024 / 1024, 1)} MiB with their indexes = ${fmt(revisions.bytes / ITEMS, 1)} bytes per image`);
  const ratio = f.best / o.best;
  verdict(`import on ${DB}`, ratio >= IMPORT_RATIO_TARGET, `${fmt(ratio * 100, 1)}% of the floor's images/s (target >= ${IMPORT_RATIO_TARGET * 100}%)`);
  if (DB === 'sqlite') verdict(`import time on ${DB}`, o.best < IMPORT_SECONDS_TARGET, `${fmt(o.best, 2)} s (target < ${IMPORT_SECONDS_TARGET} s)`);
  verdict(`import peak RSS on ${DB}`, peakMb < RSS_TARGET_MB, `${fmt(peakMb, 1)} MB (target < ${RSS_TARGET_MB} MB)`);
}

if (PART === 'seed') await ensureSeeded();
if (PART === 'all' || PART === 'upload') await benchUpload();
if (PART === 'all' || PART === 'import' || PART === 'check') await benchImport(PART !== 'check', PART !== 'import');
process.exitCode = verdicts.every(Boolean) ? 0 : 1;
