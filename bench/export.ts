// An export task end to end, against a floor that writes the same entries with the same zip writer.
//
//   node --import tsx bench/export.ts [--db sqlite|postgres] [--storage fs|s3] [--images 10000]
//                                     [--image-kb 30] [--format supervisely|coco] [--rounds 3]
//                                     [--database-url URL] [--log-level warn] [--cpu-prof]
//                                     [--node-args "<flags for the server's node>"]
//
// Seeds (once, cached under .bench/) a project of N distinct images (random bytes, as incompressible
// as photos) with 10 polygons each in 4 datasets, then, round after round: starts `annostore serve`
// (API and worker in one process), POSTs /v2/exports, polls it every 100 ms until it has finished,
// and downloads the archive. The floors, in the same run, after each round of ours (bench/export-floor.ts):
// Info-ZIP's `zip -0` over a folder of the same image files and annotation files, written beforehand,
// and a plain read-and-write copy of the same bytes (code that is not ours); for Supervisely, also our
// zip writer writing the same entries, in this process, with no database. See bench/README.md.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Insertable } from 'kysely';
import { isoNow } from '../src/clock.ts';
import type { Context } from '../src/context.ts';
import type { Database } from '../src/db/types.ts';
import { type AnnotationObject, serializeObjects } from '../src/formats/canonical.ts';
import { blobKey } from '../src/storage/blob-store.ts';
import { insertProject } from '../src/repositories/projects.repository.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { type BenchDatabase, benchDatabase, parseDbChoice } from './databases.ts';
import { createFormatWriter } from '../src/formats/writers.ts';
import { type FloorEntry, copyFloor, exportEntries, floorArchive, infoZipFloor, writeTree } from './export-floor.ts';
import { BENCH_API_KEY, BENCH_DIR, DEFAULT_DATABASE_URL, ROOT, RssSampler, best, fmt, positive, printTable, progress, settleDisk, startServer, verdict } from './harness.ts';
import { type BenchS3, startBenchS3 } from './s3rver.ts';
import { prng, sha256 } from './uploaded-state.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    storage: { type: 'string', default: 'fs' },
    images: { type: 'string', default: '10000' },
    'image-kb': { type: 'string', default: '30' },
    format: { type: 'string', default: 'supervisely' },
    rounds: { type: 'string', default: '3' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
    'log-level': { type: 'string', default: 'warn' },
    'cpu-prof': { type: 'boolean', default: false },
    'node-args': { type: 'string', default: '' },
  },
});

const DB = parseDbChoice(args.db);
const IMAGES = positive('images', args.images);
const IMAGE_BYTES = positive('image-kb', args['image-kb']) * 1024;
const ROUNDS = positive('rounds', args.rounds);
const FORMAT_ARG = args.format!;
if (FORMAT_ARG !== 'supervisely' && FORMAT_ARG !== 'coco') throw new Error(`--format must be supervisely or coco, got "${FORMAT_ARG}"`);
const FORMAT: 'supervisely' | 'coco' = FORMAT_ARG;
const STORAGE = args.storage!;
if (STORAGE !== 'fs' && STORAGE !== 's3') throw new Error(`--storage must be fs or s3, got "${STORAGE}"`);
const DATASETS = 4;
const SEED_VERSION = 1;
/** Ours against Info-ZIP's `zip -0` of the same run (and, for Supervisely, against our zip writer). */
const RATIO_TARGET = 0.6;
/** COCO: from the POST to the finished answer. */
const TIME_TARGET_S = 40;
const RSS_TARGET_MB = 300;
const IMAGE_W = 1280;
const IMAGE_H = 720;

const projectTitle = () => `bench export v${SEED_VERSION}: ${IMAGES} images of ${IMAGE_BYTES / 1024} KiB`;

function objectsOf(index: number): AnnotationObject[] {
  const random = prng(index * 104_729 + 3);
  return Array.from({ length: 10 }, () => {
    const x = Math.round(random() * (IMAGE_W - 100));
    const y = Math.round(random() * (IMAGE_H - 100));
    const exterior: [number, number][] = [[x, y], [x + 80, y + 5], [x + 90, y + 70], [x + 10, y + 90], [x, y]];
    return { classTitle: random() < 0.6 ? 'car' : 'person', description: '', tags: [], bitmap: null, points: { exterior, interior: [] } };
  });
}

async function seededProject(ctx: Context): Promise<number | null> {
  const row = await ctx.db.kysely
    .selectFrom('projects')
    .innerJoin('teams', 'teams.id', 'projects.team_id')
    .select('projects.id')
    .where('teams.name', '=', DEFAULT_TEAM)
    .where('projects.title', '=', projectTitle())
    .executeTakeFirst();
  return row?.id ?? null;
}

/**
 * Puts the blobs of one batch where the store keeps them: on a local store, files written straight
 * into its folder (no fsync: a seed, not an upload); on S3, through the store, 16 at a time.
 */
async function putBlobs(ctx: Context, dataDir: string, blobs: { hash: string; bytes: Buffer }[]): Promise<void> {
  if (STORAGE === 's3') {
    for (let i = 0; i < blobs.length; i += 16) await Promise.all(blobs.slice(i, i + 16).map((b) => ctx.blobs.putBytes(b.hash, b.bytes)));
    return;
  }
  const root = path.join(dataDir, 'blobs', 'objects');
  for (const { hash, bytes } of blobs) {
    const file = path.join(root, blobKey(hash));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, bytes);
  }
}

/** Blobs put where the store keeps them, rows inserted in bulk; the title comes last. */
async function seed(ctx: Context, dataDir: string): Promise<number> {
  const db = ctx.db.kysely;
  const now = isoNow();
  const teamId = await ensureTeam(db, DEFAULT_TEAM);
  const projectId = await insertProject(db, teamId, `${projectTitle()} (seeding)`);
  for (const [title, color] of [['car', '#E6194B'], ['person', '#3CB44B']] as const) {
    await db.insertInto('classes').values({ project_id: projectId, title, shape: 'polygon', color, created_at: now }).execute();
  }
  const datasetIds: number[] = [];
  for (let d = 0; d < DATASETS; d += 1) {
    const row = await db.insertInto('datasets').values({ project_id: projectId, title: `part-${d + 1}`, size: 0, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
    datasetIds.push(row.id);
  }
  const perDataset = Math.ceil(IMAGES / DATASETS);
  for (let start = 0; start < IMAGES; start += 500) {
    const images: Insertable<Database['images']>[] = [];
    const blobs: Insertable<Database['blobs']>[] = [];
    const files: { hash: string; bytes: Buffer }[] = [];
    for (let i = start; i < Math.min(start + 500, IMAGES); i += 1) {
      const bytes = randomBytes(IMAGE_BYTES);
      const hash = sha256(bytes);
      files.push({ hash, bytes });
      blobs.push({ hash, size: IMAGE_BYTES, media_type: 'image/jpeg', width: IMAGE_W, height: IMAGE_H, created_at: now });
      images.push({
        dataset_id: datasetIds[Math.floor(i / perDataset)]!,
        project_id: projectId,
        name: `frame_${String(i + 1).padStart(6, '0')}.jpg`,
        hash,
        size: IMAGE_BYTES,
        width: IMAGE_W,
        height: IMAGE_H,
        description: '',
        objects_json: serializeObjects(objectsOf(i)),
        created_at: now,
        updated_at: now,
      });
    }
    await putBlobs(ctx, dataDir, files);
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('blobs').values(blobs).onConflict((oc) => oc.column('hash').doNothing()).execute();
      await trx.insertInto('images').values(images).execute();
    });
    if ((start / 500) % 10 === 9 || start + 500 >= IMAGES) progress(`seeded ${fmt(Math.min(start + 500, IMAGES))} / ${fmt(IMAGES)} images`);
  }
  await db.updateTable('projects').set({ title: projectTitle(), size: IMAGES * IMAGE_BYTES }).where('id', '=', projectId).execute();
  return projectId;
}

async function ensureSeeded(database: BenchDatabase, s3: BenchS3 | null): Promise<number> {
  let ctx = await database.open();
  try {
    const existing = await seededProject(ctx);
    if (existing !== null) return existing;
    await ctx.close();
    await database.reset();
    ctx = await database.open();
    progress(`seeding ${fmt(IMAGES)} images into ${database.where}${s3 ? ' and s3rver' : ''}`);
    return await seed(ctx, database.dataDir);
  } finally {
    await ctx.close();
  }
}

async function api<T>(url: string, method: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: { 'x-api-key': BENCH_API_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The load averages (1, 5, 15 minutes) as `uptime` shows them. */
const loadAverage = (): string => os.loadavg().map((l) => l.toFixed(2)).join(' ');

interface Round {
  seconds: number;
  archiveBytes: number;
  peakRssMb: number;
  downloadSeconds: number;
  /** Load averages before the round started. */
  load: string;
}

async function ourRound(database: BenchDatabase, s3: BenchS3 | null, projectId: number, round: number): Promise<Round> {
  settleDisk();
  const profiles = path.join(BENCH_DIR, 'profiles');
  const node = [...(args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : []), ...args['node-args']!.split(' ').filter(Boolean)];
  const server = await startServer(`export-${DB}-${STORAGE}-${FORMAT}-${round}`, [...node, path.join(ROOT, 'bin', 'annostore.js'), 'serve'], {
    DATA_DIR: database.dataDir,
    DATABASE_URL: database.databaseUrl,
    DATABASE_SCHEMA: database.databaseSchema,
    STORAGE_URL: s3?.url,
    ANNOSTORE_API_KEY: BENCH_API_KEY,
    LOG_LEVEL: args['log-level'],
    TASK_POLL_MS: '100',
  });
  const sampler = new RssSampler(server.pid);
  try {
    const load = loadAverage();
    sampler.start();
    const started = Date.now();
    const { task } = await api<{ task: { id: number } }>(`${server.url}/v2/exports`, 'POST', { projectId, format: FORMAT });
    for (;;) {
      const { task: now, archive } = await api<{ task: { status: string; meta: Record<string, unknown> }; archive: { size: number } | null }>(`${server.url}/v2/exports/${task.id}`, 'GET');
      if (now.status === 'finished') {
        const seconds = (Date.now() - started) / 1000;
        sampler.stop();
        const downloadStarted = Date.now();
        const res = await fetch(`${server.url}/v2/exports/${task.id}/archive`, { headers: { 'x-api-key': BENCH_API_KEY } });
        let bytes = 0;
        for await (const chunk of res.body!) bytes += (chunk as Uint8Array).length;
        if (bytes !== archive?.size) throw new Error(`downloaded ${bytes} bytes of an archive of ${archive?.size}`);
        const downloadSeconds = (Date.now() - downloadStarted) / 1000;
        await api(`${server.url}/v2/exports/${task.id}`, 'DELETE');
        return { seconds, archiveBytes: bytes, peakRssMb: Math.max(sampler.peakKb, sampler.highWaterKb()) / 1024, downloadSeconds, load };
      }
      if (now.status === 'error' || now.status === 'stopped') throw new Error(`the export ${now.status}: ${JSON.stringify(now.meta)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    sampler.stop();
    await server.stop();
  }
}

interface FloorRound {
  seconds: number;
  archiveBytes: number;
  load: string;
}

/** One floor's output, written where the local store writes its unfinished archives (the same disk). */
async function floorRound(database: BenchDatabase, write: (out: string) => Promise<{ seconds: number; archiveBytes: number }>): Promise<FloorRound> {
  settleDisk();
  const dir = path.join(database.dataDir, 'blobs', 'tmp');
  fs.mkdirSync(dir, { recursive: true });
  const out = path.join(dir, 'export-floor.out');
  fs.rmSync(out, { force: true });
  const load = loadAverage();
  try {
    return { ...(await write(out)), load };
  } finally {
    fs.rmSync(out, { force: true });
  }
}

/** The floors a round is compared with, in the order they run after it. */
type FloorName = 'zip' | 'copy' | 'ours';
const FLOORS: FloorName[] = ['zip', 'copy', ...(FORMAT === 'supervisely' ? (['ours'] as const) : [])];
const FLOOR_LABELS: Record<FloorName, string> = {
  zip: 'floor: Info-ZIP zip -0 over the same files',
  copy: 'floor: read-and-write copy of the same bytes',
  ours: 'floor: our zip writer, no database',
};

async function main(): Promise<void> {
  const key = `export_i${IMAGES}_k${IMAGE_BYTES / 1024}_v${SEED_VERSION}${STORAGE === 's3' ? '_s3' : ''}`;
  const s3 = STORAGE === 's3' ? await startBenchS3(path.join(BENCH_DIR, `${key}-${DB}-s3rver`)) : null;
  try {
    const database = benchDatabase(DB, key, args['database-url'], s3?.url);
    const projectId = await ensureSeeded(database, s3);
    // The floors' entries are prepared once, before any clock runs: the same names and bytes, through
    // the export's own repository and writer; the folder Info-ZIP reads is laid out from them.
    const ctx = await database.open();
    const objects = path.join(database.dataDir, 'blobs', 'objects');
    const fileOf = (hash: string) => (s3 ? s3.objectFile(blobKey(hash)) : path.join(objects, blobKey(hash)));
    const tempDir = path.join(BENCH_DIR, 'tmp');
    fs.mkdirSync(tempDir, { recursive: true });
    const entries: FloorEntry[] = await exportEntries(ctx, projectId, (project) => createFormatWriter(project, { format: FORMAT, includeImages: true, tempDir }), fileOf);
    await ctx.close();
    const tree = path.join(BENCH_DIR, `${key}-${DB}-${FORMAT}-tree`);
    progress(`laying out ${fmt(entries.length)} files for zip -0 in ${tree}`);
    writeTree(entries, tree);
    const floorWriters: Record<FloorName, (out: string) => Promise<{ seconds: number; archiveBytes: number }>> = {
      zip: (out) => infoZipFloor(tree, out),
      copy: (out) => copyFloor(entries, out),
      ours: (out) => floorArchive(entries, out),
    };
    const ours: Round[] = [];
    const floors = new Map<FloorName, FloorRound[]>(FLOORS.map((f) => [f, []]));
    try {
      for (let round = 1; round <= ROUNDS; round += 1) {
        progress(`round ${round}: export (load ${loadAverage()})`);
        ours.push(await ourRound(database, s3, projectId, round));
        for (const name of FLOORS) {
          progress(`round ${round}: ${FLOOR_LABELS[name]} (load ${loadAverage()})`);
          floors.get(name)!.push(await floorRound(database, floorWriters[name]));
        }
      }
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
    report(ours, floors);
  } finally {
    await s3?.stop();
  }
}

function report(ours: Round[], floors: Map<FloorName, FloorRound[]>): void {
  const mb = (bytes: number, seconds: number) => bytes / 1e6 / seconds;
  const oursRate = best(ours.map((r) => mb(r.archiveBytes, r.seconds)));
  const peak = Math.max(...ours.map((r) => r.peakRssMb));
  console.log(`\nexport of ${fmt(IMAGES)} images of ${IMAGE_BYTES / 1024} KiB (${FORMAT}, ${DB}, ${STORAGE} storage), ${ROUNDS} rounds\n`);
  const rows = [
    ['ours: POST to finished', fmt(oursRate.best, 1), ours.map((r) => fmt(r.seconds, 2)).join(' / '), fmt(ours[0]!.archiveBytes / 1e6, 1), ours.map((r) => r.load).join(' / ')],
  ];
  for (const [name, rounds] of floors) {
    rows.push([FLOOR_LABELS[name], fmt(best(rounds.map((r) => mb(r.archiveBytes, r.seconds))).best, 1), rounds.map((r) => fmt(r.seconds, 2)).join(' / '), fmt(rounds[0]!.archiveBytes / 1e6, 1), rounds.map((r) => r.load).join(' / ')]);
  }
  rows.push(['download of the archive', fmt(best(ours.map((r) => mb(r.archiveBytes, r.downloadSeconds))).best, 1), ours.map((r) => fmt(r.downloadSeconds, 2)).join(' / '), '', '']);
  printTable(['', 'MB/s (best)', 'rounds (s)', 'archive (MB)', 'load average before each round'], rows);
  console.log(`spread of ours: ${fmt(oursRate.spreadPct, 1)}%; peak RSS of the server: ${fmt(peak, 1)} MB; load average now: ${loadAverage()}\n`);
  const verdicts: boolean[] = [];
  // Speed as a floor's time over ours: the archives differ a little in size (Info-ZIP stores the
  // annotation files that ours deflates; the copy has no zip headers), the work is the same files.
  for (const [name, rounds] of floors) {
    const ratio = Math.min(...rounds.map((r) => r.seconds)) / Math.min(...ours.map((r) => r.seconds));
    const byRound = ours.map((r, i) => fmt((rounds[i]!.seconds / r.seconds) * 100, 0)).join(', ');
    const detail = `${fmt(ratio * 100, 1)}% of the speed of ${FLOOR_LABELS[name].replace('floor: ', '')} (best against best; rounds ${byRound}%)`;
    if (name === 'copy') console.log(`  ${detail}`);
    else verdicts.push(verdict(`rate against ${name === 'zip' ? 'Info-ZIP' : 'our zip writer'}`, ratio >= RATIO_TARGET, `${detail}; target >= ${RATIO_TARGET * 100}%`));
  }
  if (FORMAT === 'coco') {
    const fastest = Math.min(...ours.map((r) => r.seconds));
    verdicts.push(verdict('time', fastest < TIME_TARGET_S, `${fmt(fastest, 2)} s from POST to finished (target < ${TIME_TARGET_S} s)`));
  }
  verdicts.push(verdict('memory', peak < RSS_TARGET_MB, `peak RSS ${fmt(peak, 1)} MB (target < ${RSS_TARGET_MB} MB)`));
  process.exitCode = verdicts.every(Boolean) ? 0 : 1;
}

await main();
