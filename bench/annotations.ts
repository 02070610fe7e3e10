// GET /v1/annotations under load, against a floor that sends the same page bytes from memory.
//
//   node --import tsx bench/annotations.ts [--db sqlite|postgres] [--images 100000] [--duration 10]
//                                          [--connections 4] [--rounds 3] [--warmup 2]
//                                          [--database-url URL] [--log-level warn] [--server-root DIR]
//
// Seeds (once, cached under .bench/ or in its own PostgreSQL schema) a project of N images with 10
// polygons each, starts `annostore serve --no-worker` as a child process, fetches page 1 and page 100
// (perPage 1000) once, hands those bytes to a bare Fastify floor in another child process, then loads
// both from this process with autocannon, round after round. See bench/README.md.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { isoNow } from '../src/clock.ts';
import type { Context } from '../src/context.ts';
import { type AnnotationObject, serializeObjects } from '../src/formats/canonical.ts';
import { insertProject } from '../src/repositories/projects.repository.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { type BenchDatabase, benchDatabase, parseDbChoice } from './databases.ts';
import {
  BENCH_API_KEY,
  BENCH_DIR,
  DEFAULT_DATABASE_URL,
  type ChildServer,
  type LoadResult,
  RssSampler,
  best,
  fmt,
  load,
  printTable,
  progress,
  startAnnostore,
  startFloor,
  verdict,
  positive,
} from './harness.ts';
import { prng } from './uploaded-state.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    images: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
    'log-level': { type: 'string', default: 'warn' },
    'server-root': { type: 'string' },
  },
});

const DB = parseDbChoice(args.db);
const IMAGES = positive('images', args.images);
const DURATION = positive('duration', args.duration);
const CONNECTIONS = positive('connections', args.connections);
const ROUNDS = positive('rounds', args.rounds);
const WARMUP = Number(args.warmup);
const OBJECTS_PER_IMAGE = 10;
const POINTS_PER_EXTERIOR = 12;
const PER_PAGE = 1000;
/** More pages than a server keeps (32 MiB, about ten pages of 3 MB). */
const IN_TURN_PAGES = 100;
const DATASETS = 4;
const RATIO_TARGET = 0.7;
const RSS_TARGET_MB = 300;
/** Bumped whenever the generated data changes, so an old cache is not reused. */
const SEED_VERSION = 1;

const CLASSES = ['car', 'person', 'bicycle'] as const;
const IMAGE_W = 1920;
const IMAGE_H = 1080;


const round2 = (v: number): number => Math.round(v * 100) / 100;
const clamp = (v: number, max: number): number => Math.min(Math.max(v, 0), max);

/** Ten polygons around random centres: 11 vertices plus the closing repeat of the first, 2 decimals. */
function objectsOf(imageIndex: number): AnnotationObject[] {
  const random = prng(imageIndex * 7919 + 17);
  const objects: AnnotationObject[] = [];
  for (let o = 0; o < OBJECTS_PER_IMAGE; o += 1) {
    const cx = 100 + random() * (IMAGE_W - 200);
    const cy = 100 + random() * (IMAGE_H - 200);
    const radius = 20 + random() * 130;
    const exterior: [number, number][] = [];
    for (let k = 0; k < POINTS_PER_EXTERIOR - 1; k += 1) {
      const angle = (2 * Math.PI * k) / (POINTS_PER_EXTERIOR - 1) + (random() - 0.5) * 0.3;
      const r = radius * (0.7 + random() * 0.6);
      exterior.push([round2(clamp(cx + r * Math.cos(angle), IMAGE_W)), round2(clamp(cy + r * Math.sin(angle), IMAGE_H))]);
    }
    exterior.push([exterior[0]![0], exterior[0]![1]]);
    const cls = CLASSES[random() < 0.55 ? 0 : random() < 0.7 ? 1 : 2]!;
    objects.push({ classTitle: cls, description: '', tags: [], bitmap: null, points: { exterior, interior: [] } });
  }
  return objects;
}

const projectTitle = () => `bench annotations v${SEED_VERSION}: ${IMAGES} images x ${OBJECTS_PER_IMAGE} polygons x ${POINTS_PER_EXTERIOR} points`;

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
 * Seeds in bulk: multi-row inserts of 500 images in transactions of 10,000. The project gets its final
 * title only at the end, so an interrupted seeding is never mistaken for a finished one.
 */
async function seed(ctx: Context, dialect: string): Promise<number> {
  const db = ctx.db.kysely;
  const started = Date.now();
  const now = isoNow();
  const teamId = await ensureTeam(db, DEFAULT_TEAM);
  const projectId = await insertProject(db, teamId, `${projectTitle()} (seeding)`);
  for (const [i, title] of CLASSES.entries()) {
    await db
      .insertInto('classes')
      .values({ project_id: projectId, title, shape: 'polygon', color: ['#E6194B', '#3CB44B', '#4363D8'][i]!, created_at: now })
      .execute();
  }
  const tagIds: number[] = [];
  for (const title of ['reviewed', 'night']) {
    const row = await db
      .insertInto('project_tags')
      .values({ project_id: projectId, scope: 'images', title, hotkey: '', created_by: null, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    tagIds.push(row.id);
  }
  const datasetIds: number[] = [];
  for (let d = 0; d < DATASETS; d += 1) {
    const row = await db
      .insertInto('datasets')
      .values({ project_id: projectId, title: `batch-${d + 1}`, size: 0, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    datasetIds.push(row.id);
  }
  // A handful of shared blobs: the images differ in their rows, not in their bytes.
  const blobs = Array.from({ length: 8 }, (_, i) => ({
    hash: createHash('sha256').update(`bench blob ${i}`).digest('base64'),
    size: 250_000 + i * 1_013,
  }));
  await db
    .insertInto('blobs')
    .values(blobs.map((b) => ({ hash: b.hash, size: b.size, media_type: 'image/jpeg', width: IMAGE_W, height: IMAGE_H, created_at: now })))
    .onConflict((oc) => oc.column('hash').doNothing())
    .execute();

  const perDataset = Math.ceil(IMAGES / DATASETS);
  const datasetSizes = new Array<number>(DATASETS).fill(0);
  const ROWS_PER_INSERT = 500;
  const ROWS_PER_TRANSACTION = 10_000;
  for (let start = 0; start < IMAGES; start += ROWS_PER_TRANSACTION) {
    const end = Math.min(start + ROWS_PER_TRANSACTION, IMAGES);
    await db.transaction().execute(async (trx) => {
      for (let chunk = start; chunk < end; chunk += ROWS_PER_INSERT) {
        const rows = [];
        for (let i = chunk; i < Math.min(chunk + ROWS_PER_INSERT, end); i += 1) {
          const d = Math.floor(i / perDataset);
          const blob = blobs[i % blobs.length]!;
          datasetSizes[d]! += blob.size;
          rows.push({
            dataset_id: datasetIds[d]!,
            project_id: projectId,
            name: `frame_${String(i + 1).padStart(6, '0')}.jpg`,
            hash: blob.hash,
            size: blob.size,
            width: IMAGE_W,
            height: IMAGE_H,
            description: i % 20 === 0 ? 'checked by the second annotator' : '',
            objects_json: serializeObjects(objectsOf(i)),
            created_at: now,
            updated_at: now,
          });
        }
        await trx.insertInto('images').values(rows).execute();
      }
    });
    progress(`seeded ${fmt(end)} / ${fmt(IMAGES)} images`);
  }
  // Image-level tags on some images, so pages carry a few.
  await sql`insert into image_tags (image_id, tag_id) select id, ${tagIds[0]!} from images where project_id = ${projectId} and id % 10 = 0`.execute(db);
  await sql`insert into image_tags (image_id, tag_id) select id, ${tagIds[1]!} from images where project_id = ${projectId} and id % 25 = 0`.execute(db);
  for (const [d, id] of datasetIds.entries()) {
    await db.updateTable('datasets').set({ size: datasetSizes[d]! }).where('id', '=', id).execute();
  }
  const total = datasetSizes.reduce((a, b) => a + b, 0);
  // PostgreSQL's autovacuum would analyse and vacuum a table after this many inserts; do it now
  // rather than let it run in the middle of a measurement.
  if (dialect === 'postgres') await sql`vacuum analyze`.execute(db);
  await db.updateTable('projects').set({ title: projectTitle(), size: total }).where('id', '=', projectId).execute();
  progress(`seeding took ${fmt((Date.now() - started) / 1000, 1)} s`);
  return projectId;
}

async function ensureSeeded(database: BenchDatabase): Promise<number> {
  let ctx = await database.open();
  try {
    const existing = await seededProject(ctx);
    if (existing !== null) {
      progress(`reusing the seeded database at ${database.where}`);
      return existing;
    }
    await ctx.close();
    await database.reset();
    ctx = await database.open();
    progress(`seeding ${fmt(IMAGES)} images into ${database.where}`);
    return await seed(ctx, database.choice);
  } finally {
    await ctx.close();
  }
}

interface Measurement {
  ours: LoadResult[];
  floor: LoadResult[];
}

/** What one load asks for: one page again and again, or many pages in turn. */
interface LoadCase {
  label: string;
  paths: string[];
  /** Bytes an answer should have: the pages' mean size. */
  bytes: number;
  /** Whether the targets apply to it (the pages in turn are reported, not judged). */
  judged: boolean;
  measured: Measurement;
}

async function main(): Promise<void> {
  const database = benchDatabase(DB, `annotations_i${IMAGES}_o${OBJECTS_PER_IMAGE}_p${POINTS_PER_EXTERIOR}_v${SEED_VERSION}`, args['database-url']);
  const projectId = await ensureSeeded(database);
  const lastPage = Math.ceil(IMAGES / PER_PAGE);
  // Pages 1 to 100 in turn: a server that keeps a few pages finds none of them kept, so this load
  // measures reading pages from the database, as a first pass over a project does.
  const inTurn = Array.from({ length: Math.min(IN_TURN_PAGES, lastPage) }, (_, i) => i + 1);
  const pathOf = (page: number) => `/v1/annotations?projectId=${projectId}&perPage=${PER_PAGE}&page=${page}`;
  const headers = { 'x-api-key': BENCH_API_KEY };

  const children: ChildServer[] = [];
  let sampler: RssSampler | null = null;
  try {
    const server = await startAnnostore({
      name: `annotations-${DB}-server`,
      dataDir: database.dataDir,
      databaseUrl: database.databaseUrl,
      databaseSchema: database.databaseSchema,
      logLevel: args['log-level'],
      serverRoot: args['server-root'] ? path.resolve(args['server-root']) : undefined,
    });
    children.push(server);
    sampler = new RssSampler(server.pid);
    sampler.start();

    // The floor answers with exactly the bytes our server sends for the same URL.
    const pageDir = path.join(BENCH_DIR, 'pages');
    fs.mkdirSync(pageDir, { recursive: true });
    const bodySpecs: string[] = [];
    const pageBytes = new Map<number, number>();
    for (const page of inTurn) {
      const res = await fetch(server.url + pathOf(page), { headers });
      const bytes = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200) throw new Error(`page ${page}: status ${res.status}: ${bytes.toString('utf8', 0, 300)}`);
      const records = JSON.parse(bytes.toString('utf8')) as { imageId: number; data: { objects: unknown[] } }[];
      const expected = Math.min(PER_PAGE, IMAGES - (page - 1) * PER_PAGE);
      if (records.length !== expected || records.some((r) => r.data.objects.length !== OBJECTS_PER_IMAGE)) {
        throw new Error(`page ${page} has ${records.length} records, expected ${expected} with ${OBJECTS_PER_IMAGE} objects each`);
      }
      const file = path.join(pageDir, `${DB}-page-${page}.json`);
      fs.writeFileSync(file, bytes);
      bodySpecs.push('--body', `${pathOf(page)}=${file}`);
      pageBytes.set(page, bytes.length);
    }
    const floor = await startFloor(`annotations-${DB}-floor`, bodySpecs, pathOf(1));
    children.push(floor);

    const single = (page: number): LoadCase => ({
      label: `page ${page}`,
      paths: [pathOf(page)],
      bytes: pageBytes.get(page)!,
      judged: true,
      measured: { ours: [], floor: [] },
    });
    const cases: LoadCase[] = [...new Set([1, inTurn.length])].map(single);
    cases.push({
      label: `pages 1-${inTurn.length} in turn`,
      paths: inTurn.map(pathOf),
      bytes: [...pageBytes.values()].reduce((a, b) => a + b, 0) / pageBytes.size,
      judged: false,
      measured: { ours: [], floor: [] },
    });

    console.log(
      `GET /v1/annotations on ${DB} (${database.where}): ${fmt(IMAGES)} images x ${OBJECTS_PER_IMAGE} polygons x ` +
        `${POINTS_PER_EXTERIOR} points, perPage ${PER_PAGE}; ${CONNECTIONS} connections, ${DURATION} s per run, ` +
        `${ROUNDS} rounds, ${WARMUP} s warm-up`,
    );
    console.log(cases.map((c) => `${c.label}: ${fmt(c.bytes)} bytes`).join('; '));

    const loadOn = (target: ChildServer, c: LoadCase, duration: number) =>
      load({ url: target.url, paths: c.paths, pid: target.pid, connections: CONNECTIONS, duration, headers });
    // The judged loads run first, every round of them, so the memory they are judged by is theirs
    // alone; pages in turn come after, with their own peak.
    const judged = cases.filter((c) => c.judged);
    const reported = cases.filter((c) => !c.judged);
    const measure = async (phase: LoadCase[]) => {
      if (WARMUP > 0) {
        for (const c of phase) {
          for (const target of [server, floor]) await loadOn(target, c, WARMUP);
        }
      }
      for (let round = 1; round <= ROUNDS; round += 1) {
        for (const c of phase) {
          const ours = await loadOn(server, c, DURATION);
          const base = await loadOn(floor, c, DURATION);
          for (const [r, name] of [[ours, 'ours'], [base, 'floor']] as const) {
            if (Math.abs(r.bytesPerRequest - c.bytes) > 2048) {
              throw new Error(`${name} answered ${fmt(r.bytesPerRequest)} bytes per request for ${c.label}, expected about ${fmt(c.bytes)}`);
            }
          }
          c.measured.ours.push(ours);
          c.measured.floor.push(base);
          progress(`round ${round} ${c.label}: ours ${fmt(ours.rps)} req/s, floor ${fmt(base.rps)} req/s (${fmt((ours.rps / base.rps) * 100)}%), RSS now ${fmt(sampler!.sample() / 1024)} MB`);
        }
      }
    };
    await measure(judged);
    const hwmMb = sampler.highWaterKb() / 1024;
    const sampledMb = sampler.peakKb / 1024;
    sampler.peakKb = 0;
    await measure(reported);
    sampler.stop();
    const inTurnMb = sampler.peakKb / 1024;

    console.log('');
    const rows: string[][] = [];
    for (const c of cases) {
      for (const [name, runs] of [
        ['annostore', c.measured.ours],
        ['floor', c.measured.floor],
      ] as const) {
        const b = best(runs.map((r) => r.rps));
        const top = runs.find((r) => r.rps === b.best)!;
        rows.push([
          name,
          c.label,
          fmt(b.best),
          fmt(b.worst),
          `${fmt(b.spreadPct, 1)}%`,
          fmt(top.p50Ms),
          fmt(top.p99Ms),
          fmt(top.serverCpuMs, 2),
          fmt(top.clientCpuMs, 2),
          runs.map((r) => fmt(r.rps)).join(' / '),
        ]);
      }
    }
    printTable(
      ['server', 'load', 'best req/s', 'worst req/s', 'spread', 'p50 ms', 'p99 ms', 'server CPU ms/req', 'client CPU ms/req', 'each round'],
      rows,
    );
    console.log('');
    const ratioOf = (m: Measurement) => best(m.ours.map((r) => r.rps)).best / best(m.floor.map((r) => r.rps)).best;
    for (const c of cases) {
      const m = c.measured;
      const perRound = m.ours.map((r, i) => `${fmt((r.rps / m.floor[i]!.rps) * 100)}%`).join(' / ');
      console.log(`${c.label}: best ours / best floor = ${fmt(ratioOf(m) * 100, 1)}%; round by round ${perRound}${c.judged ? '' : ' (no target)'}`);
    }
    console.log(`server RSS under the judged loads: peak of VmRSS samples ${fmt(sampledMb, 1)} MB, VmHWM ${fmt(hwmMb, 1)} MB`);
    console.log(`server RSS under pages in turn (no target): peak of VmRSS samples ${fmt(inTurnMb, 1)} MB`);
    console.log('');

    let passed = true;
    for (const c of cases.filter((x) => x.judged)) {
      const m = c.measured;
      const ratio = ratioOf(m);
      const detail = `${fmt(ratio * 100, 1)}% of the floor (${fmt(best(m.ours.map((r) => r.rps)).best)} vs ${fmt(best(m.floor.map((r) => r.rps)).best)} req/s; target >= ${RATIO_TARGET * 100}%)`;
      passed = verdict(`${c.label} on ${DB}`, ratio >= RATIO_TARGET, detail) && passed;
    }
    const peakMb = Math.max(hwmMb, sampledMb);
    passed = verdict(`peak RSS on ${DB}`, peakMb < RSS_TARGET_MB, `${fmt(peakMb, 1)} MB (target < ${RSS_TARGET_MB} MB)`) && passed;
    process.exitCode = passed ? 0 : 1;
  } finally {
    sampler?.stop();
    for (const child of children.reverse()) await child.stop();
  }
}

await main();
