// A DTL export against the plain export it is measured by: the same project written as COCO, once
// as `{projectId, format: 'coco'}` and once through the graph `data → rename → bbox → coco`.
//
//   node --import tsx bench/dtl.ts [--db sqlite|postgres] [--images 100000] [--image-kb 4] [--rounds 3]
//                                  [--database-url URL] [--log-level warn]
//   node --import tsx bench/dtl.ts --pixels [--images 10000] [--rounds 3] [--db ...]
//
// Seeds (once, cached under .bench/) a project of N distinct images (random bytes) with 10 polygons
// each in 4 datasets, as bench/export.ts does. Each round runs both exports (their order alternating
// between rounds so neither always finds a warm cache), each in an `annostore serve` of its own so
// its peak RSS is its own, timed from the POST to the finished answer. The graph has no pixel layer: images are copied, and
// what is measured is the graph's own cost per image. Target: the best DTL round within 1.5 times the
// best plain round.
//
// With --pixels the graph changes pixels: N photo-like JPEGs of 1024 × 768 go through
// `data → resize (320 wide, aspect kept) → save` (a Supervisely archive with the resized images, which
// the save layer encodes as JPEG at quality 95), timed the same way. Its floor, measured in the same
// run and in this process: sharp alone reading the same stored files, resizing them to 320 wide and
// encoding them as the save layer does, one image at a time as the export runs them. No target: the
// report is images per second of both and their ratio.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Insertable } from 'kysely';
import sharp from 'sharp';
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
    pixels: { type: 'boolean', default: false },
    images: { type: 'string' },
    'image-kb': { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
    'log-level': { type: 'string', default: 'warn' },
  },
});

const DB = parseDbChoice(args.db);
const PIXELS = args.pixels;
const IMAGES = positive('images', args.images ?? (PIXELS ? '10000' : '100000'));
const IMAGE_BYTES = positive('image-kb', args['image-kb']) * 1024;
const ROUNDS = positive('rounds', args.rounds);
const DATASETS = 4;
const SEED_VERSION = 1;
const RATIO_TARGET = 1.5;
/** The width the resize graph and its floor scale to, and the JPEG quality the save layer encodes at (src/dtl/output.ts). */
const RESIZE_WIDTH = 320;
const SAVE_QUALITY = 95;

/** What the seeded images are: random bytes named JPEG (nothing decodes them), or photos to resize. */
interface Content {
  key: string;
  title: string;
  width: number;
  height: number;
  bytes(index: number): Promise<Buffer>;
}

const randomContent: Content = {
  key: `dtl_i${IMAGES}_k${IMAGE_BYTES / 1024}_v${SEED_VERSION}`,
  title: `bench dtl v${SEED_VERSION} ${IMAGES} images of ${IMAGE_BYTES / 1024} KiB`,
  width: 1280,
  height: 720,
  bytes: async () => randomBytes(IMAGE_BYTES),
};

const PHOTO_W = 1024;
const PHOTO_H = 768;
let texture: Promise<Buffer> | undefined;

/**
 * Photo-like JPEGs as bench/v2-files.ts makes them (blurred noise, tinted per image), but cut from
 * one texture twice their size at an offset of their own: blurring every photo anew would take most
 * of the seeding's time.
 */
const photoContent: Content = {
  key: `dtl_px_i${IMAGES}_v${SEED_VERSION}`,
  title: `bench dtl pixels v${SEED_VERSION} ${IMAGES} photos of ${PHOTO_W}x${PHOTO_H}`,
  width: PHOTO_W,
  height: PHOTO_H,
  async bytes(index) {
    texture ??= sharp({ create: { width: PHOTO_W * 2, height: PHOTO_H * 2, channels: 3, background: { r: 128, g: 128, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
      .blur(1.2)
      .raw()
      .toBuffer();
    const random = prng(index * 7919 + 11);
    const tint = [0.7 + 0.6 * random(), 0.7 + 0.6 * random(), 0.7 + 0.6 * random()];
    return sharp(await texture, { raw: { width: PHOTO_W * 2, height: PHOTO_H * 2, channels: 3 } })
      .extract({ left: Math.floor(random() * PHOTO_W), top: Math.floor(random() * PHOTO_H), width: PHOTO_W, height: PHOTO_H })
      .linear(tint, [(index * 53) % 40, (index * 97) % 40, (index * 31) % 40])
      .jpeg({ quality: 85 })
      .toBuffer();
  },
};

const CONTENT = PIXELS ? photoContent : randomContent;
const projectTitle = () => CONTENT.title;

function objectsOf(index: number): AnnotationObject[] {
  const random = prng(index * 104_729 + 3);
  return Array.from({ length: 10 }, () => {
    const x = Math.round(random() * (CONTENT.width - 100));
    const y = Math.round(random() * (CONTENT.height - 100));
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
  const { width, height } = CONTENT;
  let total = 0;
  for (let start = 0; start < IMAGES; start += 500) {
    const images: Insertable<Database['images']>[] = [];
    const blobs: Insertable<Database['blobs']>[] = [];
    for (let i = start; i < Math.min(start + 500, IMAGES); i += 1) {
      const bytes = await CONTENT.bytes(i);
      const hash = sha256(bytes);
      const file = path.join(root, blobKey(hash));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, bytes);
      total += bytes.length;
      blobs.push({ hash, size: bytes.length, media_type: 'image/jpeg', width, height, created_at: now });
      images.push({
        dataset_id: datasetIds[Math.floor(i / perDataset)]!,
        project_id: projectId,
        name: `frame_${String(i + 1).padStart(6, '0')}.jpg`,
        hash,
        size: bytes.length,
        width,
        height,
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
  await db.updateTable('projects').set({ title: projectTitle(), size: total }).where('id', '=', projectId).execute();
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

interface Measured {
  seconds: number;
  /** The archive's size. */
  bytes: number;
  /** The server's peak RSS. */
  peakMiB: number;
}

/** One export in an `annostore serve` of its own, so that its peak RSS is its own. */
async function exportInServer(database: BenchDatabase, name: string, label: string, body: unknown): Promise<Measured> {
  const server = await startServer(name, [path.join(ROOT, 'bin', 'annostore.js'), 'serve'], {
    DATA_DIR: database.dataDir,
    DATABASE_URL: database.databaseUrl,
    DATABASE_SCHEMA: database.databaseSchema,
    ANNOSTORE_API_KEY: BENCH_API_KEY,
    LOG_LEVEL: args['log-level'],
    TASK_POLL_MS: '100',
  });
  const sampler = new RssSampler(server.pid);
  sampler.start();
  let result: { seconds: number; bytes: number };
  try {
    progress(`${label} (load average ${loadAverage()})`);
    result = await timedExport(server.url, body);
  } finally {
    sampler.stop();
    await server.stop();
  }
  return { ...result, peakMiB: Math.max(sampler.peakKb, sampler.highWaterKb()) / 1024 };
}

const loadAverage = () => os.loadavg().map((n) => fmt(n, 2)).join(' ');

/** The COCO export of random bytes, plain and through `data → rename → bbox → coco`. */
async function graphAgainstPlain(database: BenchDatabase, projectId: number): Promise<void> {
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
  for (let round = 1; round <= ROUNDS; round += 1) {
    const order: ['plain' | 'dtl', unknown][] = [
      ['plain', { projectId, format: 'coco' }],
      ['dtl', { config: graph }],
    ];
    if (round % 2 === 0) order.reverse();
    for (const [kind, body] of order) {
      const label = `round ${round}: ${kind === 'plain' ? 'plain COCO export' : 'data → rename → bbox → coco'}`;
      const r = await exportInServer(database, `dtl-${DB}-${kind}-${round}`, label, body);
      (kind === 'plain' ? plain : dtl).push(r.seconds);
      sizes[kind] = r.bytes;
      peaks[kind] = Math.max(peaks[kind], r.peakMiB);
    }
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

/** The stored files of the project's images, in the order the export reads them (dataset, then id). */
async function sourceFiles(database: BenchDatabase, projectId: number): Promise<string[]> {
  const ctx = await database.open();
  try {
    const rows = await ctx.db.kysely
      .selectFrom('images')
      .select('hash')
      .where('project_id', '=', projectId)
      .orderBy('dataset_id')
      .orderBy('id')
      .execute();
    return rows.map((r) => path.join(database.dataDir, 'blobs', 'objects', blobKey(r.hash)));
  } finally {
    await ctx.close();
  }
}

/**
 * sharp alone over the same files: read, decode, resize to RESIZE_WIDTH wide, encode as the save
 * layer does. One image at a time, as the export task runs them (libvips' own threads as sharp's
 * default, in both). Answers seconds and the encoded bytes.
 */
async function resizeFloor(files: readonly string[]): Promise<{ seconds: number; bytes: number }> {
  settleDisk();
  const started = Date.now();
  let bytes = 0;
  for (const file of files) {
    const out = await sharp(await fsp.readFile(file)).resize(RESIZE_WIDTH).jpeg({ quality: SAVE_QUALITY }).toBuffer();
    bytes += out.length;
  }
  return { seconds: (Date.now() - started) / 1000, bytes };
}

/** The resize graph in a server against sharp's own loop over the same files, alternating which goes first. */
async function resizeAgainstFloor(database: BenchDatabase, projectId: number): Promise<void> {
  const graph = [
    { action: 'data', src: [`${projectTitle()}/*`], dst: '$data', settings: { classes_mapping: 'default' } },
    { action: 'resize', src: ['$data'], dst: '$small', settings: { width: RESIZE_WIDTH, height: -1, aspect_ratio: { keep: true } } },
    { action: 'save', src: ['$small'], dst: 'small', settings: { images: true } },
  ];
  const files = await sourceFiles(database, projectId);
  if (files.length !== IMAGES) throw new Error(`the seeded project has ${files.length} images, not ${IMAGES}`);
  const ours: number[] = [];
  const floor: number[] = [];
  const sizes = { ours: 0, floor: 0 };
  let peak = 0;
  const loads: string[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const order: ('ours' | 'floor')[] = round % 2 === 0 ? ['floor', 'ours'] : ['ours', 'floor'];
    for (const kind of order) {
      if (kind === 'ours') {
        const r = await exportInServer(database, `dtl-pixels-${DB}-${round}`, `round ${round}: data → resize → save`, { config: graph });
        ours.push(r.seconds);
        sizes.ours = r.bytes;
        peak = Math.max(peak, r.peakMiB);
      } else {
        progress(`round ${round}: sharp's own resize loop (load average ${loadAverage()})`);
        const r = await resizeFloor(files);
        floor.push(r.seconds);
        sizes.floor = r.bytes;
      }
    }
    loads.push(loadAverage());
  }
  const rate = (seconds: number) => IMAGES / seconds;
  const bestOurs = Math.min(...ours);
  const bestFloor = Math.min(...floor);
  console.log(`\n${fmt(IMAGES)} photos of ${PHOTO_W}×${PHOTO_H} resized to ${RESIZE_WIDTH} wide (${DB}), ${ROUNDS} rounds, one image at a time\n`);
  printTable(
    ['', 'best (images/s)', 'rounds (s)', 'output (MB)', 'peak RSS (MiB)'],
    [
      ['graph data → resize → save (server)', fmt(rate(bestOurs), 1), ours.map((s) => fmt(s, 2)).join(' / '), fmt(sizes.ours / 1e6, 1), fmt(peak, 1)],
      [`floor: sharp resize + jpeg q${SAVE_QUALITY}`, fmt(rate(bestFloor), 1), floor.map((s) => fmt(s, 2)).join(' / '), fmt(sizes.floor / 1e6, 1), '-'],
    ],
  );
  console.log(`\nours / floor: ${fmt(rate(bestOurs) / rate(bestFloor), 2)} of the floor's images per second (${fmt(bestOurs / bestFloor, 2)}× its time)`);
  console.log(`load average (1, 5, 15 min) after each round: ${loads.join(' | ')}; ${os.cpus().length} cores`);
}

async function main(): Promise<void> {
  const database = benchDatabase(DB, CONTENT.key, args['database-url']);
  const projectId = await ensureSeeded(database);
  if (PIXELS) await resizeAgainstFloor(database, projectId);
  else await graphAgainstPlain(database, projectId);
}

await main();
