// An export task end to end, against a floor that writes the same image bytes into a stored zip.
//
//   node --import tsx bench/export.ts [--db sqlite|postgres] [--images 10000] [--image-kb 30]
//                                     [--format supervisely] [--rounds 3] [--database-url URL]
//                                     [--log-level warn]
//
// Seeds (once, cached under .bench/) a project of N distinct images (random bytes, as incompressible
// as photos) with 10 polygons each in 4 datasets, then, round after round: starts `annostore serve`
// (API and worker in one process), POSTs /v2/exports, polls it every 100 ms until it has finished,
// and downloads the archive. The floor, in the same run: Info-ZIP's `zip -0` storing the same blob
// files into one archive (no database, no annotation files). See bench/README.md.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
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
import { BENCH_API_KEY, BENCH_DIR, DEFAULT_DATABASE_URL, ROOT, RssSampler, best, fmt, positive, printTable, progress, settleDisk, startServer, verdict } from './harness.ts';
import { prng, sha256 } from './uploaded-state.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    images: { type: 'string', default: '10000' },
    'image-kb': { type: 'string', default: '30' },
    format: { type: 'string', default: 'supervisely' },
    rounds: { type: 'string', default: '3' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
    'log-level': { type: 'string', default: 'warn' },
  },
});

const DB = parseDbChoice(args.db);
const IMAGES = positive('images', args.images);
const IMAGE_BYTES = positive('image-kb', args['image-kb']) * 1024;
const ROUNDS = positive('rounds', args.rounds);
const FORMAT = args.format!;
const DATASETS = 4;
const SEED_VERSION = 1;
const RATIO_TARGET = 0.5;
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

/** Blob files written straight into the store's folder, rows inserted in bulk; the title comes last. */
async function seed(ctx: Context): Promise<number> {
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
    for (let i = start; i < Math.min(start + 500, IMAGES); i += 1) {
      const bytes = randomBytes(IMAGE_BYTES);
      const hash = sha256(bytes);
      await ctx.blobs.putBytes(hash, bytes);
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
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('blobs').values(blobs).onConflict((oc) => oc.column('hash').doNothing()).execute();
      await trx.insertInto('images').values(images).execute();
    });
    progress(`seeded ${fmt(Math.min(start + 500, IMAGES))} / ${fmt(IMAGES)} images`);
  }
  await db.updateTable('projects').set({ title: projectTitle(), size: IMAGES * IMAGE_BYTES }).where('id', '=', projectId).execute();
  return projectId;
}

async function ensureSeeded(database: BenchDatabase): Promise<number> {
  let ctx = await database.open();
  try {
    const existing = await seededProject(ctx);
    if (existing !== null) return existing;
    await ctx.close();
    await database.reset();
    ctx = await database.open();
    progress(`seeding ${fmt(IMAGES)} images into ${database.where}`);
    return await seed(ctx);
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

interface Round {
  seconds: number;
  archiveBytes: number;
  peakRssMb: number;
  downloadSeconds: number;
}

async function ourRound(database: BenchDatabase, projectId: number, round: number): Promise<Round> {
  settleDisk();
  const server = await startServer(`export-${DB}-${round}`, [path.join(ROOT, 'bin', 'annostore.js'), 'serve'], {
    DATA_DIR: database.dataDir,
    DATABASE_URL: database.databaseUrl,
    DATABASE_SCHEMA: database.databaseSchema,
    ANNOSTORE_API_KEY: BENCH_API_KEY,
    LOG_LEVEL: args['log-level'],
    TASK_POLL_MS: '100',
  });
  const sampler = new RssSampler(server.pid);
  try {
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
        return { seconds, archiveBytes: bytes, peakRssMb: Math.max(sampler.peakKb, sampler.highWaterKb()) / 1024, downloadSeconds };
      }
      if (now.status === 'error' || now.status === 'stopped') throw new Error(`the export ${now.status}: ${JSON.stringify(now.meta)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    sampler.stop();
    await server.stop();
  }
}

/** `zip -0` of the same blob files, named as the export names them: the bytes moved, nothing else. */
function floorRound(database: BenchDatabase, hashes: string[]): { seconds: number; archiveBytes: number } {
  settleDisk();
  const root = path.join(database.dataDir, 'blobs', 'objects');
  const list = path.join(BENCH_DIR, 'export-floor-list.txt');
  fs.writeFileSync(list, hashes.map((h) => blobKey(h)).join('\n') + '\n');
  const out = path.join(BENCH_DIR, 'export-floor.zip');
  fs.rmSync(out, { force: true });
  const started = Date.now();
  execFileSync('sh', ['-c', `zip -0 -q "${out}" -@ < "${list}"`], { cwd: root });
  execFileSync('sync', ['-f', out]);
  const seconds = (Date.now() - started) / 1000;
  const archiveBytes = fs.statSync(out).size;
  fs.rmSync(out, { force: true });
  return { seconds, archiveBytes };
}

async function main(): Promise<void> {
  const database = benchDatabase(DB, `export_i${IMAGES}_k${IMAGE_BYTES / 1024}_v${SEED_VERSION}`, args['database-url']);
  const projectId = await ensureSeeded(database);
  const ctx = await database.open();
  const hashes = (await ctx.db.kysely.selectFrom('images').select('hash').where('project_id', '=', projectId).orderBy('id').execute()).map((r) => r.hash);
  await ctx.close();
  // The first start bundles; the bundle is then reused by every round.
  const ours: Round[] = [];
  const floor: { seconds: number; archiveBytes: number }[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    progress(`round ${round}: export`);
    ours.push(await ourRound(database, projectId, round));
    progress(`round ${round}: floor`);
    floor.push(floorRound(database, hashes));
  }
  const mb = (bytes: number, seconds: number) => bytes / 1e6 / seconds;
  const oursRate = best(ours.map((r) => mb(r.archiveBytes, r.seconds)));
  const floorRate = best(floor.map((r) => mb(r.archiveBytes, r.seconds)));
  const peak = Math.max(...ours.map((r) => r.peakRssMb));
  console.log(`\nexport of ${fmt(IMAGES)} images of ${IMAGE_BYTES / 1024} KiB (${FORMAT}, ${DB}), ${ROUNDS} rounds\n`);
  printTable(
    ['', 'MB/s (best)', 'rounds (s)', 'archive (MB)'],
    [
      ['ours: POST to finished', fmt(oursRate.best, 1), ours.map((r) => fmt(r.seconds, 2)).join(' / '), fmt(ours[0]!.archiveBytes / 1e6, 1)],
      ['floor: zip -0 of the blobs', fmt(floorRate.best, 1), floor.map((r) => fmt(r.seconds, 2)).join(' / '), fmt(floor[0]!.archiveBytes / 1e6, 1)],
      ['download of the archive', fmt(best(ours.map((r) => mb(r.archiveBytes, r.downloadSeconds))).best, 1), ours.map((r) => fmt(r.downloadSeconds, 2)).join(' / '), ''],
    ],
  );
  console.log(`spread of ours: ${fmt(oursRate.spreadPct, 1)}%; peak RSS of the server: ${fmt(peak, 1)} MB\n`);
  const passed = [
    verdict('rate', oursRate.best >= RATIO_TARGET * floorRate.best, `${fmt((oursRate.best / floorRate.best) * 100, 1)}% of the floor (target >= ${RATIO_TARGET * 100}%)`),
    verdict('memory', peak < RSS_TARGET_MB, `peak RSS ${fmt(peak, 1)} MB (target < ${RSS_TARGET_MB} MB)`),
  ].every(Boolean);
  process.exitCode = passed ? 0 : 1;
}

await main();
