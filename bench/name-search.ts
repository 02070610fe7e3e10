// The gallery's name search (`nameContains`) in a dataset of 1,000,000 images, against an exact-name
// lookup on the (dataset_id, name) index in the same run and through the same service.
//
//   node --import tsx bench/name-search.ts [--db sqlite|postgres] [--images 1000000] [--rounds 7]
//                                          [--database-url URL]
//
// Seeds once (cached under .bench/ or in its own PostgreSQL schema) with INSERT … SELECT of generated
// rows, so the trigram index is kept by the triggers (SQLite) or the GIN index (PostgreSQL) as any
// import keeps it. Each query is the service call the list route makes (a page of 100), timed
// `--rounds` times after one warm-up; the median is reported. See bench/README.md.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { isoNow } from '../src/clock.ts';
import type { Context } from '../src/context.ts';
import { imageMetadataOf } from '../src/repositories/image-metadata.repository.ts';
import { insertProject } from '../src/repositories/projects.repository.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { type ImageListQuery, listImages } from '../src/services/image-list.service.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { type BenchDatabase, benchDatabase, parseDbChoice } from './databases.ts';
import { DEFAULT_DATABASE_URL, fmt, positive, printTable, progress, verdict } from './harness.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    images: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '7' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
  },
});

const DB = parseDbChoice(args.db);
const IMAGES = positive('images', args.images);
const ROUNDS = positive('rounds', args.rounds);
const SEED_VERSION = 1;
/** "Well under a second": a search of 3 characters or more, median of the rounds. */
const TARGET_MS = 250;
/** A short text's worst case: a scan of the whole dataset for a rare pair of characters. */
const SHORT_TARGET_MS = 1000;
const CHUNK = 100_000;
/** Names the generated pattern never makes, ten of each, spread over the dataset. */
const RARE = [(k: number) => `clip-MP4-1-take${k}.png`, (k: number) => `CAFÉ ${k}.png`];

const projectTitle = () => `bench name search v${SEED_VERSION}: ${IMAGES} images`;
/** cam3/drive_123_frame_123456.jpg: the same text in both dialects' SQL. */
const generatedName = sql`'cam' || (n % 16) || '/drive_' || (n / 1000) || '_frame_' || n || '.jpg'`;

async function seededDataset(ctx: Context): Promise<{ teamId: number; datasetId: number } | null> {
  const row = await ctx.db.kysely
    .selectFrom('datasets')
    .innerJoin('projects', 'projects.id', 'datasets.project_id')
    .innerJoin('teams', 'teams.id', 'projects.team_id')
    .select(['datasets.id', 'teams.id as teamId'])
    .where('teams.name', '=', DEFAULT_TEAM)
    .where('projects.title', '=', projectTitle())
    .executeTakeFirst();
  return row ? { teamId: row.teamId, datasetId: row.id } : null;
}

async function seed(ctx: Context): Promise<{ teamId: number; datasetId: number }> {
  const db = ctx.db.kysely;
  const started = performance.now();
  const now = isoNow();
  const teamId = await ensureTeam(db, DEFAULT_TEAM);
  const projectId = await insertProject(db, teamId, `${projectTitle()} (seeding)`);
  const { id: datasetId } = await db
    .insertInto('datasets')
    .values({ project_id: projectId, title: 'frames', size: 0, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const hash = 'bench-name-search-blob';
  await db.insertInto('blobs').values({ hash, size: 1000, media_type: 'image/jpeg', width: 640, height: 480, created_at: now }).onConflict((oc) => oc.column('hash').doNothing()).execute();
  const values = sql`${datasetId}, ${projectId}, ${generatedName}, ${hash}, 1000, 640, 480, '', '[]', ${now}, ${now}`;
  const columns = sql`(dataset_id, project_id, name, hash, size, width, height, description, objects_json, created_at, updated_at)`;
  for (let start = 1; start <= IMAGES; start += CHUNK) {
    const end = Math.min(start + CHUNK - 1, IMAGES);
    if (DB === 'postgres') await sql`insert into images ${columns} select ${values} from generate_series(${start}::int, ${end}::int) as g(n)`.execute(db);
    else await sql`with recursive g(n) as (select cast(${start} as integer) union all select n + 1 from g where n < ${end}) insert into images ${columns} select ${values} from g`.execute(db);
    for (const rare of RARE) {
      const name = rare(Math.floor(start / CHUNK));
      await db
        .insertInto('images')
        .values({ dataset_id: datasetId, project_id: projectId, name, hash, size: 1000, width: 640, height: 480, description: '', objects_json: '[]', created_at: now, updated_at: now })
        .execute();
    }
    progress(`seeded ${fmt(end)} / ${fmt(IMAGES)} images`);
  }
  if (DB === 'postgres') await sql`vacuum analyze`.execute(db);
  else await sql`analyze`.execute(db);
  await db.updateTable('projects').set({ title: projectTitle() }).where('id', '=', projectId).execute();
  progress(`seeding took ${fmt((performance.now() - started) / 1000, 1)} s`);
  return { teamId, datasetId };
}

async function ensureSeeded(database: BenchDatabase): Promise<Context> {
  let ctx = await database.open();
  if (await seededDataset(ctx)) {
    progress(`reusing the seeded database at ${database.where}`);
    return ctx;
  }
  await ctx.close();
  await database.reset();
  ctx = await database.open();
  progress(`seeding ${fmt(IMAGES)} images into ${database.where}`);
  await seed(ctx);
  return ctx;
}

/** The floor: one image found by its exact name on the (dataset_id, name) index, and its metadata. */
async function exactName(ctx: Context, datasetId: number): Promise<number> {
  const n = Math.floor(IMAGES * 0.54) + 1;
  const name = `cam${n % 16}/drive_${Math.floor(n / 1000)}_frame_${n}.jpg`;
  const row = await ctx.db.kysely.selectFrom('images').select('id').where('dataset_id', '=', datasetId).where('name', '=', name).executeTakeFirst();
  return (await imageMetadataOf(ctx.db.kysely, row ? [row.id] : [])).length;
}

interface Case {
  label: string;
  query: Omit<ImageListQuery, 'datasetId' | 'limit'>;
  target: number;
}

const CASES: Case[] = [
  { label: '"mp4-1" (10 matches)', query: { nameContains: 'mp4-1' }, target: TARGET_MS },
  { label: '"café" for CAFÉ (10 matches)', query: { nameContains: 'café' }, target: TARGET_MS },
  { label: '"_frame_54322" (11 matches)', query: { nameContains: '_frame_54322' }, target: TARGET_MS },
  { label: '"frame_12" (~11,000), by id', query: { nameContains: 'frame_12' }, target: TARGET_MS },
  { label: '"frame_12" (~11,000), by name', query: { nameContains: 'frame_12', sort: 'name' }, target: TARGET_MS },
  { label: '"frame_12" with the total', query: { nameContains: 'frame_12', count: true }, target: TARGET_MS },
  { label: '"jpg" (all), by id', query: { nameContains: 'JPG' }, target: TARGET_MS },
  { label: '"jpg" (all), by name', query: { nameContains: 'JPG', sort: 'name' }, target: TARGET_MS },
  { label: '"jpg" (all) with the total', query: { nameContains: 'JPG', count: true }, target: SHORT_TARGET_MS },
  { label: '"zzq" (none)', query: { nameContains: 'zzq' }, target: TARGET_MS },
  { label: 'short "é" (10 matches): a scan', query: { nameContains: 'é' }, target: SHORT_TARGET_MS },
  { label: 'short "99" (many), by id', query: { nameContains: '99' }, target: SHORT_TARGET_MS },
];

const WRITE_ROWS = 50_000;

/**
 * What keeping the index costs a write: WRITE_ROWS new images inserted with it, then as many without
 * it (its triggers or index dropped), in one transaction rolled back. Answers both times in ms.
 */
async function writeCost(ctx: Context, datasetId: number): Promise<{ withIndex: number; without: number }> {
  const times = { withIndex: 0, without: 0 };
  await ctx.db.kysely
    .transaction()
    .execute(async (trx) => {
      const { project_id: projectId } = await trx.selectFrom('datasets').select('project_id').where('id', '=', datasetId).executeTakeFirstOrThrow();
      const now = isoNow();
      const insert = async (title: string) => {
        const { id } = await trx.insertInto('datasets').values({ project_id: projectId, title, size: 0, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
        const values = sql`${id}, ${projectId}, ${generatedName}, 'bench-name-search-blob', 1000, 640, 480, '', '[]', ${now}, ${now}`;
        const columns = sql`(dataset_id, project_id, name, hash, size, width, height, description, objects_json, created_at, updated_at)`;
        const started = performance.now();
        if (DB === 'postgres') await sql`insert into images ${columns} select ${values} from generate_series(1, ${WRITE_ROWS}::int) as g(n)`.execute(trx);
        else await sql`with recursive g(n) as (select 1 union all select n + 1 from g where n < ${WRITE_ROWS}) insert into images ${columns} select ${values} from g`.execute(trx);
        return performance.now() - started;
      };
      times.withIndex = await insert('write cost, indexed');
      if (DB === 'postgres') await sql`drop index images_name_trgm_idx`.execute(trx);
      else for (const trigger of ['images_names_insert', 'images_names_delete', 'images_names_rename']) await sql`drop trigger ${sql.id(trigger)}`.execute(trx);
      times.without = await insert('write cost, not indexed');
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return times;
}

class RolledBack extends Error {}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const database = benchDatabase(DB, `namesearch_i${IMAGES}_v${SEED_VERSION}`, args['database-url']);
  const ctx = await ensureSeeded(database);
  try {
    const { teamId, datasetId } = (await seededDataset(ctx))!;
    const rows: string[][] = [];
    let floor = 0;
    let passed = true;
    const verdicts: [string, boolean, string][] = [];
    const timed = async (label: string, run: () => Promise<number>, target: number | null) => {
      let found = await run();
      const times: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const started = performance.now();
        found = await run();
        times.push(performance.now() - started);
      }
      const ms = median(times);
      if (target === null) floor = ms;
      rows.push([label, String(found), fmt(ms, 1), fmt(Math.min(...times), 1), fmt(Math.max(...times), 1), fmt(ms / floor, 1)]);
      if (target !== null) verdicts.push([label, ms < target, `${fmt(ms, 1)} ms median, target < ${target} ms`]);
    };
    await timed('floor: one exact name on its index', () => exactName(ctx, datasetId), null);
    for (const c of CASES) {
      const query: ImageListQuery = { datasetId, limit: 100, ...c.query };
      await timed(c.label, async () => (await listImages(ctx.db.kysely, teamId, query, 'manager')).items.length, c.target);
    }
    const write = await writeCost(ctx, datasetId);
    console.log(`\n${DB}, ${fmt(IMAGES)} images in one dataset, a page of 100, median of ${ROUNDS} rounds (ms)\n`);
    printTable(['query', 'items', 'median', 'min', 'max', '× floor'], rows);
    console.log(
      `\nwriting ${fmt(WRITE_ROWS)} images in one statement: ${fmt(write.withIndex)} ms with the name index, ${fmt(write.without)} ms without (${fmt(write.withIndex / write.without, 2)}×)`,
    );
    console.log('');
    for (const [label, ok, detail] of verdicts) passed = verdict(label, ok, detail) && passed;
    process.exitCode = passed ? 0 : 1;
  } finally {
    await ctx.close();
  }
}

await main();
