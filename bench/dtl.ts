// A DTL export against the plain export it is measured by: the same project written as COCO, once
// as `{projectId, format: 'coco'}` and once through the graph `data → rename → bbox → coco`.
//
//   node --import tsx bench/dtl.ts [--db sqlite|postgres] [--images 100000] [--image-kb 4] [--rounds 3]
//                                  [--database-url URL] [--log-level warn]
//
// Seeds (once, cached under .bench/) a project of N distinct images (random bytes) with 10 polygons
// each in 4 datasets, as bench/export.ts does. Each round runs both exports (their order alternating
// between rounds so neither always finds a warm cache), each in an `annostore serve` of its own so
// its peak RSS is its own, timed from the POST to the finished answer. The graph has no pixel layer: images are copied, and
// what is measured is the graph's own cost per image. Target: the best DTL round within 1.5 times the
// best plain round.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Insertable } from 'kysely';
import { isoNow } from '../src/clock.ts';
import type { Context } from '../src/context.ts';
import type { Database } from '../src/db/types.ts';
import { type AnnotationObject, serializeObjects } from '../src/formats/canonical.ts';
import { insertProject } from '../src/repositories/projects.repository.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { blobKey } from '../src/storage/blob-store.ts';
import { type BenchDatabase, benchDatabase, parseDbChoice } from './databases.ts';
import { BENCH_API_KEY, DEFAULT_DATABASE_URL, ROOT, RssSampler, fmt, positive, printTable, progress, settleDisk, startServer, verdict } from './harness.ts';
import { prng, sha256 } from './uploaded-state.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    images: { type: 'string', default: '100000' },
    'image-kb': { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
    'log-level': { type: 'string', default: 'warn' },
  },
});

const DB = parseDbChoice(args.db);
const IMAGES = positive('images', args.images);
const IMAGE_BYTES = positive('image-kb', args['image-kb']) * 1024;
const ROUNDS = positive('rounds', args.rounds);
const DATASETS = 4;
const SEED_VERSION = 1;
const RATIO_TARGET = 1.5;
const IMAGE_W = 1280;
const IMAGE_H = 720;

const projectTitle = () => `bench dtl v${SEED_VERSION} ${IMAGES} images of ${IMAGE_BYTES / 1024} KiB`;

function objectsOf(index: number): AnnotationObject[] {
  const random = prng(index * 104_729 + 3);
  return Array.from({ length: 10 }, () => {
    const x = Math.round(random() * (IMAGE_W - 100));
    const y = Math.round(random() * (IMAGE_H - 100));
    const exterior: [number, number][] = [[x, y], [x + 80, y + 5], [x + 90, y + 70], [x + 10, y + 90], [x, y]];
    return { classTitle: random() < 0.6 ? 'car' : 'person', description: '', tags: [], bitmap: null, points: { exterior, interior: [] } };
  });
}

/** Blobs written straight into the local store's folder, rows inserted in bulk; the title comes last. */
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
  const root = path.join(dataDir, 'blobs', 'objects');
  for (let start = 0; start < IMAGES; start += 500) {
    const images: Insertable<Database['images']>[] = [];
    const blobs: Insertable<Database['blobs']>[] = [];
    for (let i = start; i < Math.min(start + 500, IMAGES); i += 1) {
      const bytes = randomBytes(IMAGE_BYTES);
      const hash = sha256(bytes);
      const file = path.join(root, blobKey(hash));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, bytes);
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
    if ((start / 500) % 20 === 19 || start + 500 >= IMAGES) progress(`seeded ${fmt(Math.min(start + 500, IMAGES))} / ${fmt(IMAGES)} images`);
  }
  await db.updateTable('projects').set({ title: projectTitle(), size: IMAGES * IMAGE_BYTES }).where('id', '=', projectId).execute();
  return projectId;
}

async function ensureSeeded(database: BenchDatabase): Promise<number> {
  let ctx = await database.open();
  try {
    const row = await ctx.db.kysely.selectFrom('projects').select('id').where('title', '=', projectTitle()).executeTakeFirst();
    if (row) return row.id;
    await ctx.close();
    await database.reset();
    ctx = await database.open();
    progress(`seeding ${fmt(IMAGES)} images into ${database.where}`);
    return await seed(ctx, database.dataDir);
  } finally {
    await ctx.close();
  }
}

async function api<T>(url: string, method: string, body?: unknown): Promise<T> {
  const res = await fetch(url, { method, headers: { 'x-api-key': BENCH_API_KEY, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Seconds from the POST to the finished answer, and the archive's size. */
async function timedExport(url: string, body: unknown): Promise<{ seconds: number; bytes: number }> {
  settleDisk();
  const started = Date.now();
  const { task } = await api<{ task: { id: number } }>(`${url}/v2/exports`, 'POST', body);
  for (;;) {
    const { task: now, archive } = await api<{ task: { status: string; meta: Record<string, unknown> }; archive: { size: number } | null }>(`${url}/v2/exports/${task.id}`, 'GET');
    if (now.status === 'finished') {
      const seconds = (Date.now() - started) / 1000;
      await api(`${url}/v2/exports/${task.id}`, 'DELETE');
      return { seconds, bytes: archive!.size };
    }
    if (now.status === 'error' || now.status === 'stopped') throw new Error(`the export ${now.status}: ${JSON.stringify(now.meta)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function main(): Promise<void> {
  const database = benchDatabase(DB, `dtl_i${IMAGES}_k${IMAGE_BYTES / 1024}_v${SEED_VERSION}`, args['database-url']);
  const projectId = await ensureSeeded(database);
  const graph = [
    { action: 'data', src: [`${projectTitle()}/*`], dst: '$data', settings: { classes_mapping: 'default' } },
    { action: 'rename', src: ['$data'], dst: '$renamed', settings: { classes_mapping: { car: 'vehicle' } } },
    { action: 'bbox', src: ['$renamed'], dst: '$boxes', settings: { classes_mapping: { __other__: '__default__' } } },
    { action: 'coco', src: ['$boxes'], dst: 'boxes', settings: {} },
  ];
  const plain: number[] = [];
  const dtl: number[] = [];
  const peaks = { plain: 0, dtl: 0 };
  const sizes = { plain: 0, dtl: 0 };
  /** One export in a server of its own, so that its peak RSS is its own. */
  const measured = async (kind: 'plain' | 'dtl', round: number, body: unknown) => {
    const server = await startServer(`dtl-${DB}-${kind}-${round}`, [path.join(ROOT, 'bin', 'annostore.js'), 'serve'], {
      DATA_DIR: database.dataDir,
      DATABASE_URL: database.databaseUrl,
      DATABASE_SCHEMA: database.databaseSchema,
      ANNOSTORE_API_KEY: BENCH_API_KEY,
      LOG_LEVEL: args['log-level'],
      TASK_POLL_MS: '100',
    });
    const sampler = new RssSampler(server.pid);
    sampler.start();
    try {
      progress(`round ${round}: ${kind === 'plain' ? 'plain COCO export' : 'data → rename → bbox → coco'}`);
      const r = await timedExport(server.url, body);
      (kind === 'plain' ? plain : dtl).push(r.seconds);
      sizes[kind] = r.bytes;
    } finally {
      sampler.stop();
      peaks[kind] = Math.max(peaks[kind], Math.max(sampler.peakKb, sampler.highWaterKb()) / 1024);
      await server.stop();
    }
  };
  for (let round = 1; round <= ROUNDS; round += 1) {
    const order: ['plain' | 'dtl', unknown][] = [
      ['plain', { projectId, format: 'coco' }],
      ['dtl', { config: graph }],
    ];
    if (round % 2 === 0) order.reverse();
    for (const [kind, body] of order) await measured(kind, round, body);
  }
  const bestPlain = Math.min(...plain);
  const bestDtl = Math.min(...dtl);
  console.log(`\nCOCO export of ${fmt(IMAGES)} images of ${IMAGE_BYTES / 1024} KiB (${DB}), ${ROUNDS} rounds\n`);
  printTable(
    ['', 'best (s)', 'rounds (s)', 'archive (MB)', 'peak RSS (MiB)'],
    [
      ['plain {projectId, format: coco}', fmt(bestPlain, 2), plain.map((s) => fmt(s, 2)).join(' / '), fmt(sizes.plain / 1e6, 1), fmt(peaks.plain, 1)],
      ['graph data → rename → bbox → coco', fmt(bestDtl, 2), dtl.map((s) => fmt(s, 2)).join(' / '), fmt(sizes.dtl / 1e6, 1), fmt(peaks.dtl, 1)],
    ],
  );
  console.log('');
  const ratio = bestDtl / bestPlain;
  process.exitCode = verdict('time', ratio <= RATIO_TARGET, `the graph takes ${fmt(ratio, 2)}× the plain export (target <= ${RATIO_TARGET}×)`) ? 0 : 1;
}

await main();
