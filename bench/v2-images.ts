// GET /v2/images?datasetId=…&limit=1000 under load, first page and last page, against a floor that
// sends the same bytes from memory.
//
//   node --import tsx bench/v2-images.ts [--db sqlite|postgres] [--images 100000] [--duration 10]
//                                        [--connections 4] [--rounds 3] [--warmup 2]
//                                        [--database-url URL] [--log-level warn]
//
// Seeds (once, cached under .bench/ or in its own PostgreSQL schema) one dataset of N images with 10
// polygons each, starts `annostore serve --no-worker`, walks the list once by its cursors to learn
// the last page's URL and every page's bytes, hands those to bench/floor-server.ts, then loads both
// with autocannon, round after round. See bench/README.md.
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
  positive,
  printTable,
  progress,
  startAnnostore,
  startFloor,
  verdict,
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
  },
});

const DB = parseDbChoice(args.db);
const IMAGES = positive('images', args.images);
const DURATION = positive('duration', args.duration);
const CONNECTIONS = positive('connections', args.connections);
const ROUNDS = positive('rounds', args.rounds);
const WARMUP = Number(args.warmup);
const LIMIT = 1000;
const OBJECTS_PER_IMAGE = 10;
const RATIO_TARGET = 0.7;
/** Bumped whenever the generated data changes, so an old cache is not reused. */
const SEED_VERSION = 1;
const CLASSES = ['car', 'person', 'bicycle'] as const;

/** Ten small polygons of the three classes, the same for the same image index in every run. */
function objectsOf(imageIndex: number): AnnotationObject[] {
  const random = prng(imageIndex * 7919 + 17);
  return Array.from({ length: OBJECTS_PER_IMAGE }, () => {
    const x = Math.round(random() * 1800);
    const y = Math.round(random() * 1000);
    const cls = CLASSES[Math.floor(random() * CLASSES.length)]!;
    const exterior: [number, number][] = [[x, y], [x + 40, y], [x + 40, y + 30], [x, y + 30], [x, y]];
    return { classTitle: cls, description: '', tags: [], bitmap: null, points: { exterior, interior: [] } };
  });
}

const projectTitle = () => `bench v2 images v${SEED_VERSION}: ${IMAGES} images in one dataset`;

async function seededDataset(ctx: Context): Promise<number | null> {
  const row = await ctx.db.kysely
    .selectFrom('datasets')
    .innerJoin('projects', 'projects.id', 'datasets.project_id')
    .innerJoin('teams', 'teams.id', 'projects.team_id')
    .select('datasets.id')
    .where('teams.name', '=', DEFAULT_TEAM)
    .where('projects.title', '=', projectTitle())
    .executeTakeFirst();
  return row?.id ?? null;
}

/** Seeds in bulk; the project gets its final title last, so an interrupted seeding is done again. */
async function seed(ctx: Context, dialect: string): Promise<number> {
  const db = ctx.db.kysely;
  const started = Date.now();
  const now = isoNow();
  const teamId = await ensureTeam(db, DEFAULT_TEAM);
  const projectId = await insertProject(db, teamId, `${projectTitle()} (seeding)`);
  for (const title of CLASSES) {
    await db.insertInto('classes').values({ project_id: projectId, title, shape: 'polygon', color: '#E6194B', created_at: now }).execute();
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
  const dataset = await db
    .insertInto('datasets')
    .values({ project_id: projectId, title: 'frames', size: 0, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const blobs = Array.from({ length: 8 }, (_, i) => ({ hash: createHash('sha256').update(`bench v2 blob ${i}`).digest('base64'), size: 250_000 + i * 1_013 }));
  await db
    .insertInto('blobs')
    .values(blobs.map((b) => ({ hash: b.hash, size: b.size, media_type: 'image/jpeg', width: 1920, height: 1080, created_at: now })))
    .onConflict((oc) => oc.column('hash').doNothing())
    .execute();
  let total = 0;
  for (let start = 0; start < IMAGES; start += 10_000) {
    const end = Math.min(start + 10_000, IMAGES);
    await db.transaction().execute(async (trx) => {
      for (let chunk = start; chunk < end; chunk += 500) {
        const rows = [];
        for (let i = chunk; i < Math.min(chunk + 500, end); i += 1) {
          const blob = blobs[i % blobs.length]!;
          total += blob.size;
          rows.push({
            dataset_id: dataset.id,
            project_id: projectId,
            name: `frame_${String(i + 1).padStart(6, '0')}.jpg`,
            hash: blob.hash,
            size: blob.size,
            width: 1920,
            height: 1080,
            description: i % 20 === 0 ? 'checked by the second annotator' : '',
            // Every seventh image is not annotated yet.
            objects_json: serializeObjects(i % 7 === 0 ? [] : objectsOf(i)),
            created_at: now,
            updated_at: now,
          });
        }
        await trx.insertInto('images').values(rows).execute();
      }
    });
    progress(`seeded ${fmt(end)} / ${fmt(IMAGES)} images`);
  }
  await sql`insert into image_tags (image_id, tag_id) select id, ${tagIds[0]!} from images where project_id = ${projectId} and id % 10 = 0`.execute(db);
  await sql`insert into image_tags (image_id, tag_id, value) select id, ${tagIds[1]!}, '"dusk"' from images where project_id = ${projectId} and id % 25 = 0`.execute(db);
  await db.updateTable('datasets').set({ size: total }).where('id', '=', dataset.id).execute();
  if (dialect === 'postgres') await sql`vacuum analyze`.execute(db);
  await db.updateTable('projects').set({ title: projectTitle(), size: total }).where('id', '=', projectId).execute();
  progress(`seeding took ${fmt((Date.now() - started) / 1000, 1)} s`);
  return dataset.id;
}

async function ensureSeeded(database: BenchDatabase): Promise<number> {
  let ctx = await database.open();
  try {
    const existing = await seededDataset(ctx);
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

interface LoadCase {
  label: string;
  paths: string[];
  bytes: number;
  judged: boolean;
  ours: LoadResult[];
  floor: LoadResult[];
}

async function main(): Promise<void> {
  const database = benchDatabase(DB, `v2images_i${IMAGES}_o${OBJECTS_PER_IMAGE}_v${SEED_VERSION}`, args['database-url']);
  const datasetId = await ensureSeeded(database);
  const headers = { 'x-api-key': BENCH_API_KEY };
  const children: ChildServer[] = [];
  let sampler: RssSampler | null = null;
  try {
    const server = await startAnnostore({
      name: `v2-images-${DB}-server`,
      dataDir: database.dataDir,
      databaseUrl: database.databaseUrl,
      databaseSchema: database.databaseSchema,
      logLevel: args['log-level'],
    });
    children.push(server);
    sampler = new RssSampler(server.pid);
    sampler.start();

    // Walk the whole list once by its cursors: every page's URL and bytes, each page checked.
    const pageDir = path.join(BENCH_DIR, 'pages');
    fs.mkdirSync(pageDir, { recursive: true });
    const pages: { url: string; bytes: number }[] = [];
    const bodySpecs: string[] = [];
    const seen = new Set<number>();
    let url: string | null = `/v2/images?datasetId=${datasetId}&limit=${LIMIT}`;
    const walkStarted = Date.now();
    while (url) {
      const res = await fetch(server.url + url, { headers });
      const bytes = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200) throw new Error(`${url}: status ${res.status}: ${bytes.toString('utf8', 0, 300)}`);
      const page = JSON.parse(bytes.toString('utf8')) as { items: { id: number; objectCounts: unknown[] }[]; nextCursor: string | null };
      for (const item of page.items) {
        if (seen.has(item.id)) throw new Error(`image ${item.id} listed twice`);
        seen.add(item.id);
      }
      const file = path.join(pageDir, `v2-images-${DB}-page-${pages.length + 1}.json`);
      fs.writeFileSync(file, bytes);
      bodySpecs.push('--body', `${url}=${file}`);
      pages.push({ url, bytes: bytes.length });
      url = page.nextCursor ? `/v2/images?datasetId=${datasetId}&limit=${LIMIT}&cursor=${encodeURIComponent(page.nextCursor)}` : null;
    }
    if (seen.size !== IMAGES) throw new Error(`the walk listed ${seen.size} images, expected ${IMAGES}`);
    progress(`walked ${pages.length} pages in ${fmt((Date.now() - walkStarted) / 1000, 2)} s`);
    const floor = await startFloor(`v2-images-${DB}-floor`, bodySpecs, pages[0]!.url);
    children.push(floor);

    const first = pages[0]!;
    const last = pages.at(-1)!.bytes < first.bytes / 2 && pages.length > 1 ? pages.at(-2)! : pages.at(-1)!;
    const cases: LoadCase[] = [
      { label: 'first page', paths: [first.url], bytes: first.bytes, judged: true, ours: [], floor: [] },
      { label: `last full page (${pages.indexOf(last) + 1})`, paths: [last.url], bytes: last.bytes, judged: true, ours: [], floor: [] },
      {
        label: `all ${pages.length} pages in turn`,
        paths: pages.map((p) => p.url),
        bytes: pages.reduce((a, p) => a + p.bytes, 0) / pages.length,
        judged: false,
        ours: [],
        floor: [],
      },
    ];
    console.log(
      `GET /v2/images on ${DB} (${database.where}): ${fmt(IMAGES)} images in one dataset, ${OBJECTS_PER_IMAGE} polygons each, ` +
        `limit ${LIMIT}; ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds, ${WARMUP} s warm-up`,
    );
    console.log(cases.map((c) => `${c.label}: ${fmt(c.bytes)} bytes`).join('; '));

    const loadOn = (target: ChildServer, c: LoadCase, duration: number) =>
      load({ url: target.url, paths: c.paths, pid: target.pid, connections: CONNECTIONS, duration, headers });
    for (const phase of [cases.filter((c) => c.judged), cases.filter((c) => !c.judged)]) {
      if (WARMUP > 0) for (const c of phase) for (const target of [server, floor]) await loadOn(target, c, WARMUP);
      for (let round = 1; round <= ROUNDS; round += 1) {
        for (const c of phase) {
          const ours = await loadOn(server, c, DURATION);
          const base = await loadOn(floor, c, DURATION);
          // Headers differ a little (our Link and ETag-free list answers carry a Link): bodies are equal.
          for (const [r, name] of [[ours, 'ours'], [base, 'floor']] as const) {
            if (Math.abs(r.bytesPerRequest - c.bytes) > 2048) throw new Error(`${name} answered ${fmt(r.bytesPerRequest)} bytes per request for ${c.label}, expected about ${fmt(c.bytes)}`);
          }
          c.ours.push(ours);
          c.floor.push(base);
          progress(`round ${round} ${c.label}: ours ${fmt(ours.rps)} req/s, floor ${fmt(base.rps)} req/s (${fmt((ours.rps / base.rps) * 100)}%)`);
        }
      }
    }
    sampler.stop();

    console.log('');
    const rows: string[][] = [];
    for (const c of cases) {
      for (const [name, runs] of [['annostore', c.ours], ['floor', c.floor]] as const) {
        const b = best(runs.map((r) => r.rps));
        const top = runs.find((r) => r.rps === b.best)!;
        rows.push([name, c.label, fmt(b.best), fmt(b.worst), `${fmt(b.spreadPct, 1)}%`, fmt(top.p50Ms), fmt(top.p99Ms), fmt(top.serverCpuMs, 2), runs.map((r) => fmt(r.rps)).join(' / ')]);
      }
    }
    printTable(['server', 'load', 'best req/s', 'worst req/s', 'spread', 'p50 ms', 'p99 ms', 'server CPU ms/req', 'each round'], rows);
    console.log('');
    const bestOf = (runs: LoadResult[]) => best(runs.map((r) => r.rps)).best;
    for (const c of cases) {
      console.log(`${c.label}: best ours / best floor = ${fmt((bestOf(c.ours) / bestOf(c.floor)) * 100, 1)}%${c.judged ? '' : ' (no target)'}`);
    }
    console.log(`server RSS: peak of VmRSS samples ${fmt(sampler.peakKb / 1024, 1)} MB`);
    console.log('');

    let passed = true;
    for (const c of cases.filter((x) => x.judged)) {
      const ratio = bestOf(c.ours) / bestOf(c.floor);
      passed = verdict(`${c.label} on ${DB}`, ratio >= RATIO_TARGET, `${fmt(ratio * 100, 1)}% of the floor (target >= ${RATIO_TARGET * 100}%)`) && passed;
    }
    const [firstCase, lastCase] = cases;
    // "No slower": within the rounds' own spread of each other, judged by the best rounds.
    const lastRatio = bestOf(lastCase!.ours) / bestOf(firstCase!.ours);
    passed = verdict(`last page against first on ${DB}`, lastRatio >= 0.9, `${fmt(lastRatio * 100, 1)}% of the first page's rate (target >= 90%)`) && passed;
    process.exitCode = passed ? 0 : 1;
  } finally {
    sampler?.stop();
    for (const child of children.reverse()) await child.stop();
  }
}

await main();
