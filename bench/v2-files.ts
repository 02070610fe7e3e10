// The v2 image file routes under load, against a bare static file server sending the same files.
//
//   node --import tsx bench/v2-files.ts [--db sqlite|postgres] [--images 300] [--rounds 3]
//                                       [--duration 5] [--warmup 2] [--connections 10]
//                                       [--database-url URL] [--log-level warn]
//
// Seeds (once, cached under .bench/) N JPEG photos of 1280 × 720 and their 256 px thumbnails, and
// copies the same bytes into a folder. Then, round after round, on `annostore serve --no-worker` and
// on bench/floor-server.ts --static (a stat, an ETag and a read stream per request, no database, no
// key check), each URL of the N in turn:
//   - thumbnails: GET /v2/images/:id/thumbnail (made already) vs GET /static/<id>.webp;
//   - file range: GET /v2/images/:id/file with `Range: bytes=1000-66535` vs /static/<id>.jpg, same Range.
// Targets: thumbnails ≥ 70% of the floor's requests per second, file ranges ≥ 80%.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import type { Context } from '../src/context.ts';
import * as datasets from '../src/repositories/datasets.repository.ts';
import * as images from '../src/repositories/images.repository.ts';
import { insertProject } from '../src/repositories/projects.repository.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { type BenchDatabase, benchDatabase, parseDbChoice } from './databases.ts';
import {
  BENCH_API_KEY,
  BENCH_DIR,
  type ChildServer,
  DEFAULT_DATABASE_URL,
  type LoadResult,
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
import { sha256 } from './uploaded-state.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    images: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
    'log-level': { type: 'string', default: 'warn' },
  },
});

const DB = parseDbChoice(args.db);
const IMAGES = positive('images', args.images);
const ROUNDS = positive('rounds', args.rounds);
const DURATION = positive('duration', args.duration);
const WARMUP = Number(args.warmup);
const CONNECTIONS = positive('connections', args.connections);
const SEED_VERSION = 1;
const RANGE = 'bytes=1000-66535';
const TARGETS = { thumbnails: 0.7, range: 0.8 };

const projectTitle = () => `bench v2 files v${SEED_VERSION}: ${IMAGES} photos`;

/** A photo-like JPEG: blurred noise tinted per image, so every one differs and compresses as photos do. */
async function photo(index: number): Promise<Buffer> {
  return sharp({ create: { width: 1280, height: 720, channels: 3, background: { r: (index * 53) % 256, g: (index * 97) % 256, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .blur(1.2)
    .jpeg({ quality: 85 })
    .toBuffer();
}

async function seededImages(ctx: Context): Promise<number[]> {
  const project = await ctx.db.kysely.selectFrom('projects').select('id').where('title', '=', projectTitle()).executeTakeFirst();
  if (!project) return [];
  const rows = await ctx.db.kysely.selectFrom('images').select('id').where('project_id', '=', project.id).orderBy('id').execute();
  return rows.map((r) => r.id);
}

/** The photos, their rows and their thumbnails; the project's title is written last. */
async function seed(ctx: Context): Promise<number[]> {
  const db = ctx.db.kysely;
  const teamId = await ensureTeam(db, DEFAULT_TEAM);
  const projectId = await insertProject(db, teamId, `${projectTitle()} (seeding)`);
  const datasetId = await datasets.insertDataset(db, projectId, 'photos');
  const ids: number[] = [];
  for (let i = 0; i < IMAGES; i += 1) {
    const bytes = await photo(i);
    const hash = sha256(bytes);
    await ctx.blobs.putBytes(hash, bytes);
    const id = await db.transaction().execute(async (trx) => {
      await images.ensureBlob(trx, { hash, size: bytes.length, mediaType: 'image/jpeg', width: 1280, height: 720 });
      return images.insertImage(trx, { datasetId, projectId, name: `photo_${i}.jpg`, hash, size: bytes.length, width: 1280, height: 720 });
    });
    await ctx.thumbnails.make(hash, 256);
    ids.push(id);
    if (i % 50 === 49) progress(`seeded ${i + 1} / ${IMAGES} photos with their thumbnails`);
  }
  await db.updateTable('projects').set({ title: projectTitle() }).where('id', '=', projectId).execute();
  return ids;
}

/** The same bytes as files: <id>.jpg (the photo) and <id>.webp (its thumbnail). */
async function writeStatic(ctx: Context, ids: number[], dir: string): Promise<void> {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const rows = await ctx.db.kysely
    .selectFrom('images')
    .innerJoin('thumbnails', 'thumbnails.hash', 'images.hash')
    .select(['images.id', 'images.hash', 'thumbnails.key'])
    .where('images.id', 'in', ids)
    .where('thumbnails.size', '=', 256)
    .execute();
  if (rows.length !== ids.length) throw new Error(`${ids.length - rows.length} photos lack their thumbnail`);
  for (const row of rows) {
    fs.writeFileSync(path.join(dir, `${row.id}.jpg`), await ctx.blobs.readBytes(row.hash));
    fs.writeFileSync(path.join(dir, `${row.id}.webp`), await ctx.blobs.readBytes(row.key));
  }
}

async function prepare(database: BenchDatabase, dir: string): Promise<number[]> {
  let ctx = await database.open();
  try {
    let ids = await seededImages(ctx);
    if (ids.length !== IMAGES) {
      await ctx.close();
      await database.reset();
      ctx = await database.open();
      progress(`seeding ${IMAGES} photos into ${database.where}`);
      ids = await seed(ctx);
    }
    await writeStatic(ctx, ids, dir);
    return ids;
  } finally {
    await ctx.close();
  }
}

interface Case {
  label: string;
  target: number;
  ours: string[];
  floor: string[];
  headers: Record<string, string>;
  measured: { ours: LoadResult[]; floor: LoadResult[] };
}

async function main(): Promise<void> {
  const database = benchDatabase(DB, `v2files_i${IMAGES}_v${SEED_VERSION}`, args['database-url']);
  const staticDir = path.join(BENCH_DIR, `v2-files-static-${DB}`);
  const ids = await prepare(database, staticDir);
  const key = { 'x-api-key': BENCH_API_KEY };
  const cases: Case[] = [
    {
      label: 'thumbnail 256',
      target: TARGETS.thumbnails,
      ours: ids.map((id) => `/v2/images/${id}/thumbnail`),
      floor: ids.map((id) => `/static/${id}.webp`),
      headers: key,
      measured: { ours: [], floor: [] },
    },
    {
      label: `file, Range ${RANGE}`,
      target: TARGETS.range,
      ours: ids.map((id) => `/v2/images/${id}/file`),
      floor: ids.map((id) => `/static/${id}.jpg`),
      headers: { ...key, range: RANGE },
      measured: { ours: [], floor: [] },
    },
  ];

  const children: ChildServer[] = [];
  try {
    const server = await startAnnostore({ name: `v2-files-${DB}-server`, dataDir: database.dataDir, databaseUrl: database.databaseUrl, databaseSchema: database.databaseSchema, logLevel: args['log-level']! });
    children.push(server);
    const floor = await startFloor(`v2-files-${DB}-floor`, ['--static', staticDir], `/static/${ids[0]}.webp`);
    children.push(floor);
    // Every answer of ours is the floor's, byte for byte, before anything is timed.
    for (const c of cases) {
      for (let i = 0; i < Math.min(ids.length, 20); i += 1) {
        const [a, b] = await Promise.all([fetch(server.url + c.ours[i], { headers: c.headers }), fetch(floor.url + c.floor[i], { headers: c.headers })]);
        const [x, y] = [Buffer.from(await a.arrayBuffer()), Buffer.from(await b.arrayBuffer())];
        if (a.status !== b.status || !x.equals(y)) throw new Error(`${c.label}: ${c.ours[i]} answers ${a.status} with ${x.length} bytes, the floor ${b.status} with ${y.length}`);
      }
    }
    console.log(`v2 image files on ${DB} (${database.where}): ${IMAGES} photos 1280×720; ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds, ${WARMUP} s warm-up`);
    const loadOn = (target: ChildServer, paths: string[], headers: Record<string, string>, duration: number) =>
      load({ url: target.url, paths, pid: target.pid, connections: CONNECTIONS, duration, headers });
    if (WARMUP > 0) for (const c of cases) for (const [target, paths] of [[server, c.ours], [floor, c.floor]] as const) await loadOn(target, paths, c.headers, WARMUP);
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const c of cases) {
        c.measured.ours.push(await loadOn(server, c.ours, c.headers, DURATION));
        c.measured.floor.push(await loadOn(floor, c.floor, c.headers, DURATION));
      }
      progress(`round ${round} / ${ROUNDS} done`);
    }

    const rows: string[][] = [];
    let passed = true;
    const verdicts: [string, boolean, string][] = [];
    for (const c of cases) {
      const ours = best(c.measured.ours.map((r) => r.rps));
      const base = best(c.measured.floor.map((r) => r.rps));
      const ratio = ours.best / base.best;
      const last = c.measured.ours.at(-1)!;
      const lastFloor = c.measured.floor.at(-1)!;
      rows.push([c.label, fmt(ours.best), `${fmt(ours.spreadPct, 1)}%`, fmt(base.best), `${fmt(base.spreadPct, 1)}%`, `${fmt(ratio * 100, 1)}%`, fmt(last.bytesPerRequest), `${fmt(last.p99Ms, 1)} / ${fmt(lastFloor.p99Ms, 1)}`, `${fmt(last.serverCpuMs, 3)} / ${fmt(lastFloor.serverCpuMs, 3)}`]);
      verdicts.push([`${c.label} ≥ ${c.target * 100}% of the floor`, ratio >= c.target, `${fmt(ratio * 100, 1)}%`]);
    }
    printTable(['load', 'ours req/s', 'spread', 'floor req/s', 'spread', 'ours/floor', 'bytes/answer', 'p99 ms ours / floor', 'server CPU ms/req ours / floor'], rows);
    for (const [label, ok, detail] of verdicts) passed = verdict(label, ok, detail) && passed;
    process.exitCode = passed ? 0 : 1;
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}

await main();
