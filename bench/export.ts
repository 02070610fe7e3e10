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
// and downloads the archive. The floor of a Supervisely export, in the same run: our zip writer
// writing the same image blobs and annotation JSON into a zip, in this process, with no database
// (bench/export-floor.ts). A COCO export is judged by its time and memory. See bench/README.md.
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
import { type FloorEntry, floorArchive, superviselyEntries } from './export-floor.ts';
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
const FORMAT = args.format!;
if (FORMAT !== 'supervisely' && FORMAT !== 'coco') throw new Error(`--format must be supervisely or coco, got "${FORMAT}"`);
const STORAGE = args.storage!;
if (STORAGE !== 'fs' && STORAGE !== 's3') throw new Error(`--storage must be fs or s3, got "${STORAGE}"`);
const DATASETS = 4;
const SEED_VERSION = 1;
/** Supervisely: ours against the floor of the same run. */
const RATIO_TARGET = 0.6;
/** COCO: from the POST to the finished answer. */
const TIME_TARGET_S = 60;
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

/** The floor's archive, written where the local store writes its unfinished archives (the same disk). */
async function floorRound(database: BenchDatabase, entries: readonly FloorEntry[]): Promise<{ seconds: number; archiveBytes: number; load: string }> {
  settleDisk();
  const dir = path.join(database.dataDir, 'blobs', 'tmp');
  fs.mkdirSync(dir, { recursive: true });
  const out = path.join(dir, 'export-floor.zip');
  fs.rmSync(out, { force: true });
  const load = loadAverage();
  try {
    return { ...(await floorArchive(entries, out)), load };
  } finally {
    fs.rmSync(out, { force: true });
  }
}

async function main(): Promise<void> {
  const key = `export_i${IMAGES}_k${IMAGE_BYTES / 1024}_v${SEED_VERSION}${STORAGE === 's3' ? '_s3' : ''}`;
  const s3 = STORAGE === 's3' ? await startBenchS3(path.join(BENCH_DIR, `${key}-${DB}-s3rver`)) : null;
  try {
    const database = benchDatabase(DB, key, args['database-url'], s3?.url);
    const projectId = await ensureSeeded(database, s3);
    let entries: FloorEntry[] = [];
    if (FORMAT === 'supervisely') {
      // The floor's entries are prepared once, before any clock runs: the same names and bytes.
      const ctx = await database.open();
      const objects = path.join(database.dataDir, 'blobs', 'objects');
      entries = await superviselyEntries(ctx, projectId, (hash) => (s3 ? s3.objectFile(blobKey(hash)) : path.join(objects, blobKey(hash))));
      await ctx.close();
    }
    const ours: Round[] = [];
    const floor: { seconds: number; archiveBytes: number; load: string }[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      progress(`round ${round}: export (load ${loadAverage()})`);
      ours.push(await ourRound(database, s3, projectId, round));
      if (FORMAT === 'supervisely') {
        progress(`round ${round}: floor (load ${loadAverage()})`);
        floor.push(await floorRound(database, entries));
      }
    }
    report(ours, floor);
  } finally {
    await s3?.stop();
  }
}

function report(ours: Round[], floor: { seconds: number; archiveBytes: number; load: string }[]): void {
  const mb = (bytes: number, seconds: number) => bytes / 1e6 / seconds;
  const oursRate = best(ours.map((r) => mb(r.archiveBytes, r.seconds)));
  const peak = Math.max(...ours.map((r) => r.peakRssMb));
  console.log(`\nexport of ${fmt(IMAGES)} images of ${IMAGE_BYTES / 1024} KiB (${FORMAT}, ${DB}, ${STORAGE} storage), ${ROUNDS} rounds\n`);
  const rows = [
    ['ours: POST to finished', fmt(oursRate.best, 1), ours.map((r) => fmt(r.seconds, 2)).join(' / '), fmt(ours[0]!.archiveBytes / 1e6, 1), ours.map((r) => r.load).join(' / ')],
  ];
  if (floor.length > 0) {
    const floorRate = best(floor.map((r) => mb(r.archiveBytes, r.seconds)));
    rows.push(['floor: our zip writer, no database', fmt(floorRate.best, 1), floor.map((r) => fmt(r.seconds, 2)).join(' / '), fmt(floor[0]!.archiveBytes / 1e6, 1), floor.map((r) => r.load).join(' / ')]);
  }
  rows.push(['download of the archive', fmt(best(ours.map((r) => mb(r.archiveBytes, r.downloadSeconds))).best, 1), ours.map((r) => fmt(r.downloadSeconds, 2)).join(' / '), '', '']);
  printTable(['', 'MB/s (best)', 'rounds (s)', 'archive (MB)', 'load average before each round'], rows);
  console.log(`spread of ours: ${fmt(oursRate.spreadPct, 1)}%; peak RSS of the server: ${fmt(peak, 1)} MB; load average now: ${loadAverage()}\n`);
  const verdicts: boolean[] = [];
  if (floor.length > 0) {
    const floorRate = best(floor.map((r) => mb(r.archiveBytes, r.seconds)));
    const ratio = oursRate.best / floorRate.best;
    const byRound = ours.map((r, i) => fmt((mb(r.archiveBytes, r.seconds) / mb(floor[i]!.archiveBytes, floor[i]!.seconds)) * 100, 0)).join(', ');
    verdicts.push(verdict('rate', ratio >= RATIO_TARGET, `${fmt(ratio * 100, 1)}% of the floor (rounds ${byRound}%; target >= ${RATIO_TARGET * 100}%)`));
  } else {
    const fastest = Math.min(...ours.map((r) => r.seconds));
    verdicts.push(verdict('time', fastest < TIME_TARGET_S, `${fmt(fastest, 2)} s from POST to finished (target < ${TIME_TARGET_S} s)`));
  }
  verdicts.push(verdict('memory', peak < RSS_TARGET_MB, `peak RSS ${fmt(peak, 1)} MB (target < ${RSS_TARGET_MB} MB)`));
  process.exitCode = verdicts.every(Boolean) ? 0 : 1;
}

await main();
