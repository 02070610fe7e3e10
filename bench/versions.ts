// A version of 100,000 images × 10 objects made through the API, against a floor: a plain
// `INSERT … SELECT` of the same image rows (their annotations by content hash) into version_images,
// run from this process in the same run.
//
//   node --import tsx bench/versions.ts [--db sqlite|postgres] [--images 100000] [--rounds 3]
//                                       [--database-url URL] [--log-level warn]
//
// Seeds (once, cached under .bench/ or in its own PostgreSQL schema) a project of N images with 10
// polygons each in four datasets, written as an import writes them (insertImages: class summaries,
// object counts, content hashes), starts `annostore serve --no-worker` as a child process, and each
// round makes a version with a stratified random split (the heaviest: every image's class counts are
// read to find its class) while sampling the server's resident memory, then deletes it; the floor
// copies the same rows with one statement. See bench/README.md.
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { isoNow } from '../src/clock.ts';
import type { Context } from '../src/context.ts';
import { serializeObjects } from '../src/formats/canonical.ts';
import type { ClassIdCache } from '../src/repositories/image-summary.repository.ts';
import { type NewImageInput, insertImages } from '../src/repositories/images.repository.ts';
import { insertProject } from '../src/repositories/projects.repository.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { type BenchDatabase, benchDatabase, parseDbChoice } from './databases.ts';
import { DEFAULT_DATABASE_URL, RssSampler, api, fmt, positive, printTable, progress, startAnnostore, verdict } from './harness.ts';
import { prng } from './uploaded-state.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    images: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
    'log-level': { type: 'string', default: 'warn' },
  },
});
const DB = parseDbChoice(args.db);
const IMAGES = positive('images', args.images);
const ROUNDS = positive('rounds', args.rounds);
const OBJECTS_PER_IMAGE = 10;
const DATASETS = 4;
const SECONDS_TARGET = 5;
const MEMORY_TARGET_MB = 50;
const SEED_VERSION = 2;
const CLASSES = ['car', 'person', 'bicycle'] as const;

const title = () => `versions bench ${IMAGES} v${SEED_VERSION}`;

/** Ten 12-point polygons of seeded classes and places. */
function objectsJson(i: number): string {
  const random = prng(i * 7919 + 17);
  const objects = Array.from({ length: OBJECTS_PER_IMAGE }, () => {
    const cx = 100 + random() * 1700;
    const cy = 100 + random() * 880;
    const exterior = Array.from({ length: 12 }, (_, k) => {
      const angle = (k / 12) * 2 * Math.PI;
      return [Math.round((cx + Math.cos(angle) * 40) * 100) / 100, Math.round((cy + Math.sin(angle) * 30) * 100) / 100] as [number, number];
    });
    return { classTitle: CLASSES[Math.floor(random() * CLASSES.length)]!, description: '', tags: [], bitmap: null, points: { exterior, interior: [] } };
  });
  return serializeObjects(objects);
}

async function seeded(ctx: Context): Promise<number | null> {
  const row = await ctx.db.kysely.selectFrom('projects').select('id').where('title', '=', title()).executeTakeFirst();
  return row?.id ?? null;
}

async function seed(ctx: Context): Promise<number> {
  const db = ctx.db.kysely;
  const now = isoNow();
  const teamId = await ensureTeam(db, DEFAULT_TEAM);
  const projectId = await insertProject(db, teamId, `${title()} (seeding)`);
  for (const [i, c] of CLASSES.entries()) {
    await db.insertInto('classes').values({ project_id: projectId, title: c, shape: 'polygon', color: ['#E6194B', '#3CB44B', '#4363D8'][i]!, created_at: now }).execute();
  }
  const datasetIds: number[] = [];
  for (let d = 0; d < DATASETS; d += 1) {
    const row = await db.insertInto('datasets').values({ project_id: projectId, title: `batch-${d + 1}`, size: 0, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
    datasetIds.push(row.id);
  }
  const blobs = Array.from({ length: 8 }, (_, i) => createHash('sha256').update(`versions bench blob ${i}`).digest('base64'));
  await db
    .insertInto('blobs')
    .values(blobs.map((hash) => ({ hash, size: 250_000, media_type: 'image/jpeg', width: 1920, height: 1080, created_at: now })))
    .onConflict((oc) => oc.column('hash').doNothing())
    .execute();
  const perDataset = Math.ceil(IMAGES / DATASETS);
  const classIds: ClassIdCache = new Map();
  for (let start = 0; start < IMAGES; start += 10_000) {
    const end = Math.min(start + 10_000, IMAGES);
    await db.transaction().execute(async (trx) => {
      for (let chunk = start; chunk < end; chunk += 500) {
        const rows: NewImageInput[] = [];
        for (let i = chunk; i < Math.min(chunk + 500, end); i += 1) {
          rows.push({
            datasetId: datasetIds[Math.floor(i / perDataset)]!,
            projectId,
            name: `frame_${String(i + 1).padStart(6, '0')}.jpg`,
            hash: blobs[i % blobs.length]!,
            size: 250_000,
            width: 1920,
            height: 1080,
            description: '',
            objectsJson: objectsJson(i),
          });
        }
        // As an import writes them: with their class summaries, object counts and content hashes.
        await insertImages(trx, rows, classIds);
      }
    });
    progress(`seeded ${fmt(end)} / ${fmt(IMAGES)} images`);
  }
  if (DB === 'postgres') await sql`vacuum analyze`.execute(db);
  await db.updateTable('projects').set({ title: title() }).where('id', '=', projectId).execute();
  return projectId;
}

async function ensureSeeded(database: BenchDatabase): Promise<number> {
  let ctx = await database.open();
  try {
    const existing = await seeded(ctx);
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

/** The floor: the same rows copied by one plain statement into a throwaway version, then removed. */
async function floorCopy(ctx: Context, projectId: number, round: number): Promise<number> {
  const db = ctx.db.kysely;
  const version = await db
    .insertInto('versions')
    .values({ project_id: projectId, name: `floor-${round}-${Date.now()}`, description: '', split: '{"method":"none"}', image_count: 0, object_count: 0, created_by: null, created_at: isoNow() })
    .returning('id')
    .executeTakeFirstOrThrow();
  const started = performance.now();
  await sql`insert into version_images (version_id, image_id, dataset_id, dataset_title, name, hash, width, height, annotation_hash)
    select ${version.id}, images.id, images.dataset_id, datasets.title, images.name, images.hash, images.width, images.height, images.annotation_hash
    from images join datasets on datasets.id = images.dataset_id where images.project_id = ${projectId}`.execute(db);
  const seconds = (performance.now() - started) / 1000;
  await db.deleteFrom('version_images').where('version_id', '=', version.id).execute();
  await db.deleteFrom('versions').where('id', '=', version.id).execute();
  return seconds;
}

async function main(): Promise<void> {
  const database = benchDatabase(DB, `versions_i${IMAGES}_v${SEED_VERSION}`, args['database-url']);
  const projectId = await ensureSeeded(database);
  const server = await startAnnostore({ name: `versions-${DB}`, dataDir: database.dataDir, databaseUrl: database.databaseUrl, databaseSchema: database.databaseSchema, logLevel: args['log-level']! });
  const ctx = await database.open();
  const rows: string[][] = [];
  const ours: { seconds: number; growthMb: number }[] = [];
  const floors: number[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round += 1) {
      const sampler = new RssSampler(server.pid);
      const before = sampler.sample();
      sampler.start(20);
      const started = performance.now();
      const version = await api<{ id: number; imageCount: number; objectCount: number }>(server, 'POST', `/v2/projects/${projectId}/versions`, {
        name: `bench-${round}-${Date.now()}`,
        split: { method: 'random', ratios: { train: 0.8, val: 0.1, test: 0.1 }, seed: round, stratify: true },
      });
      const seconds = (performance.now() - started) / 1000;
      sampler.stop();
      const growthMb = (sampler.peakKb - before) / 1024;
      if (version.imageCount !== IMAGES || version.objectCount !== IMAGES * OBJECTS_PER_IMAGE) throw new Error(`the version holds ${version.imageCount} images, ${version.objectCount} objects`);
      await api(server, 'DELETE', `/v2/versions/${version.id}`).catch(() => undefined);
      const floor = await floorCopy(ctx, projectId, round);
      ours.push({ seconds, growthMb });
      floors.push(floor);
      rows.push([String(round), fmt(seconds, 2), fmt(floor, 2), `${fmt(seconds / floor, 1)}×`, fmt(growthMb, 1)]);
      progress(`round ${round}: ${fmt(seconds, 2)} s, floor ${fmt(floor, 2)} s, +${fmt(growthMb, 1)} MB`);
    }
  } finally {
    await ctx.close();
    await server.stop();
  }
  console.log(`\nA version of ${fmt(IMAGES)} images × ${OBJECTS_PER_IMAGE} objects (stratified split) on ${DB}`);
  printTable(['round', 'version s', 'floor s', 'ratio', 'server +MB'], rows);
  const fastest = Math.min(...ours.map((o) => o.seconds));
  const most = Math.max(...ours.map((o) => o.growthMb));
  const ok = [
    verdict(`made in < ${SECONDS_TARGET} s`, fastest < SECONDS_TARGET, `${fmt(fastest, 2)} s (floor ${fmt(Math.min(...floors), 2)} s)`),
    verdict(`server memory growth < ${MEMORY_TARGET_MB} MB`, most < MEMORY_TARGET_MB, `${fmt(most, 1)} MB at most`),
  ];
  process.exitCode = ok.every(Boolean) ? 0 : 1;
}

await main();
