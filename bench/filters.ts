// The image list's combined filters and sorts, and the project statistics, over a project of
// 1,000,000 images of 10 objects each, against an exact-name lookup on its index in the same run and
// through the same database.
//
//   node --import tsx bench/filters.ts [--db sqlite|postgres] [--images 1000000] [--rounds 7]
//                                      [--database-url URL]
//
// Seeds once (cached under .bench/ or in its own PostgreSQL schema) with INSERT … SELECT of generated
// rows: images in 4 datasets with 10 objects each (every 50th none), and their image_classes rows as
// the write paths make them: one of 7 common classes and one of 2 others per image, a rare class on
// every 100th, box sides from 0 to 63 px; an image tag on every 10th (values red and blue). Each query
// is the service call its route makes (a page of 100 for the list; the statistics uncached), timed
// `--rounds` times after one warm-up; the median and the slowest are reported. See bench/README.md.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { isoNow } from '../src/clock.ts';
import type { Context } from '../src/context.ts';
import { insertProject } from '../src/repositories/projects.repository.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { type ImageListQuery, listImages } from '../src/services/image-list.service.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { projectStats } from '../src/services/project-stats.service.ts';
import type { ImageFilterQuery } from '../src/services/image-list.service.ts';
import { benchDatabase, parseDbChoice } from './databases.ts';
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
// 2: each image's image_classes rows written together (1 wrote them class by class, scattering them).
const SEED_VERSION = 2;
const TARGET_MS = 300;
const CHUNK = 100_000;

const projectTitle = () => `bench filters v${SEED_VERSION}: ${IMAGES} images`;

interface Seeded {
  teamId: number;
  projectId: number;
  datasets: number[];
  classes: number[];
  tagId: number;
}

async function seeded(ctx: Context): Promise<Seeded | null> {
  const db = ctx.db.kysely;
  const project = await db
    .selectFrom('projects')
    .innerJoin('teams', 'teams.id', 'projects.team_id')
    .select(['projects.id', 'teams.id as teamId'])
    .where('teams.name', '=', DEFAULT_TEAM)
    .where('projects.title', '=', projectTitle())
    .executeTakeFirst();
  if (!project) return null;
  const datasets = (await db.selectFrom('datasets').select('id').where('project_id', '=', project.id).orderBy('id').execute()).map((r) => r.id);
  const classes = (await db.selectFrom('classes').select('id').where('project_id', '=', project.id).orderBy('id').execute()).map((r) => r.id);
  const tag = await db.selectFrom('project_tags').select('id').where('project_id', '=', project.id).executeTakeFirstOrThrow();
  return { teamId: project.teamId, projectId: project.id, datasets, classes, tagId: tag.id };
}

/** Rows n from `start` to `end`, in either dialect. */
const numbers = (start: number, end: number) =>
  DB === 'postgres' ? sql`select n from generate_series(${start}::int, ${end}::int) as g(n)` : sql`with recursive g(n) as (select cast(${start} as integer) union all select n + 1 from g where n < ${end}) select n from g`;

async function seed(ctx: Context): Promise<void> {
  const db = ctx.db.kysely;
  const started = performance.now();
  const now = isoNow();
  const teamId = await ensureTeam(db, DEFAULT_TEAM);
  const projectId = await insertProject(db, teamId, `${projectTitle()} (seeding)`);
  const datasets: number[] = [];
  for (let d = 0; d < 4; d += 1) {
    const { id } = await db.insertInto('datasets').values({ project_id: projectId, title: `part ${d}`, size: 0, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
    datasets.push(id);
  }
  const classes: number[] = [];
  for (let c = 0; c < 10; c += 1) {
    const { id } = await db.insertInto('classes').values({ project_id: projectId, title: `class ${c}`, shape: 'rectangle', color: '#1F77B4', created_at: now }).returning('id').executeTakeFirstOrThrow();
    classes.push(id);
  }
  const { id: tagId } = await db
    .insertInto('project_tags')
    .values({ project_id: projectId, scope: 'images', title: 'review', hotkey: '', value_type: 'any_string', created_by: null, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const hash = 'bench-filters-blob';
  await db.insertInto('blobs').values({ hash, size: 1000, media_type: 'image/jpeg', width: 640, height: 480, created_at: now }).onConflict((oc) => oc.column('hash').doNothing()).execute();
  const d0 = datasets[0]!;
  const c0 = classes[0]!;
  for (let start = 1; start <= IMAGES; start += CHUNK) {
    const end = Math.min(start + CHUNK - 1, IMAGES);
    await db.transaction().execute(async (trx) => {
      // Dataset ids and class ids are consecutive: the first plus an offset.
      await sql`insert into images (dataset_id, project_id, name, hash, size, width, height, description, objects_json, object_count, created_at, updated_at)
        select ${d0} + (n % 4), ${projectId}, 'frame_' || n || '.jpg', ${hash}, 1000, 640, 480, '', '[]', case when n % 50 = 0 then 0 else 10 end, ${now}, ${now}
        from (${numbers(start, end)}) as g`.execute(trx);
      const first = await trx.selectFrom('images').select((eb) => eb.fn.min('id').as('id')).where('project_id', '=', projectId).where('name', '=', `frame_${start}.jpg`).executeTakeFirstOrThrow();
      const base = Number(first.id) - start;
      const columns = sql`(image_id, class_id, project_id, objects, min_area, max_area, min_side, max_side, area_3, aspect_3, grid_5)`;
      const side = sql`(n % 64)`;
      // Kind 0: a common class, 1: one of two others, 2: the rare class. An image's rows are written
      // together, in image order, as the write paths write them (image-summary.repository.ts), so they
      // lie side by side in the table.
      const lit = (v: unknown) => (typeof v === 'number' ? sql.lit(v) : v);
      const of = (common: unknown, other: unknown, rare: unknown) => sql`case k when 0 then ${lit(common)} when 1 then ${lit(other)} else ${lit(rare)} end`;
      await sql`insert into image_classes ${columns}
        select ${base} + n, ${of(sql`${c0} + (n % 7)`, sql`${c0} + 7 + (n % 2)`, sql`${c0} + 9`)}, ${projectId}, ${of(6, 3, 1)},
          ${of(sql`${side} * ${side}`, 400, 100)}, ${of(sql`${side} * ${side} + 500`, 900, 100)}, ${of(side, 20, 10)}, ${of(sql`${side} + 10`, 30, 10)},
          ${of(6, 3, 1)}, ${of(6, 3, 1)}, ${of(6, 3, 1)}
        from (${numbers(start, end)}) as g cross join (select 0 as k union all select 1 union all select 2) as kinds
        where n % 50 <> 0 and (k < 2 or n % 100 = 1)
        order by n, k`.execute(trx);
      await sql`insert into image_tags (image_id, tag_id, value)
        select ${base} + n, ${tagId}, case when n % 20 = 0 then '"red"' else '"blue"' end from (${numbers(start, end)}) as g where n % 10 = 0`.execute(trx);
    });
    progress(`seeded ${fmt(end)} / ${fmt(IMAGES)} images`);
  }
  if (DB === 'postgres') await sql`vacuum analyze`.execute(db);
  else await sql`analyze`.execute(db);
  await db.updateTable('projects').set({ title: projectTitle() }).where('id', '=', projectId).execute();
  progress(`seeding took ${fmt((performance.now() - started) / 1000, 1)} s`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const database = benchDatabase(DB, `filters_i${IMAGES}_v${SEED_VERSION}`, args['database-url']);
  let ctx = await database.open();
  if (!(await seeded(ctx))) {
    await ctx.close();
    await database.reset();
    ctx = await database.open();
    progress(`seeding ${fmt(IMAGES)} images into ${database.where}`);
    await seed(ctx);
  } else progress(`reusing the seeded database at ${database.where}`);
  try {
    const s = (await seeded(ctx))!;
    const db = ctx.db.kysely;
    const c = s.classes;
    const rows: string[][] = [];
    const verdicts: [string, boolean, string][] = [];
    let floor = 0;
    const timed = async (label: string, run: () => Promise<number>, target: number | null) => {
      let found = await run();
      const times: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const started = performance.now();
        found = await run();
        times.push(performance.now() - started);
      }
      const ms = median(times);
      const worst = Math.max(...times);
      if (target === null) floor = ms;
      rows.push([label, fmt(found), fmt(ms, 1), fmt(worst, 1), fmt(ms / floor, 1)]);
      if (target !== null) verdicts.push([label, worst < target, `${fmt(ms, 1)} ms median, ${fmt(worst, 1)} ms slowest, target < ${target} ms`]);
    };
    const n = Math.floor(IMAGES * 0.54);
    await timed('floor: one exact name on its index', async () => (await db.selectFrom('images').select('id').where('project_id', '=', s.projectId).where('name', '=', `frame_${n}.jpg`).execute()).length, null);
    const lists: [string, Omit<ImageListQuery, 'projectId' | 'limit'>][] = [
      ['classAny: a common class', { classAny: [c[2]!] }],
      ['classAny: the rare class (1%)', { classAny: [c[9]!] }],
      ['classAll: two classes', { classAll: [c[1]!, c[7]!] }],
      ['classAny of two, classNone of one', { classAny: [c[0]!, c[1]!], classNone: [c[8]!] }],
      ['no objects (maxObjects=0, 2%)', { maxObjects: 0 }],
      ['object count 5 to 12, most first', { minObjects: 5, maxObjects: 12, sort: '-objects' }],
      ['most objects first, a page in the middle (offset)', { sort: '-objects', offset: Math.floor(IMAGES / 2) }],
      ['box: the rare class fits in 32 × 32', { boxClassId: c[9]!, boxMaxSide: 32 }],
      ['box: any object of area ≥ 4,000', { boxMinArea: 4000 }],
      ['tagAny and two datasets', { tagAny: [s.tagId], datasetIds: [s.datasets[0]!, s.datasets[2]!] }],
      ['tagValue review:red', { tagValue: [`${s.tagId}:red`] }],
      ['rare class, by name', { classAny: [c[9]!], sort: 'name' }],
      ['rare class with the total', { classAny: [c[9]!], count: true }],
    ];
    for (const [label, query] of lists) {
      await timed(label, async () => (await listImages(db, s.teamId, { projectId: s.projectId, limit: 100, ...query }, 'manager')).items.length, TARGET_MS);
    }
    const stats: [string, ImageFilterQuery][] = [
      ['statistics: the whole project', {}],
      ['statistics: the rare class', { classAny: [c[9]!] }],
      ['statistics: one dataset', { datasetIds: [s.datasets[1]!] }],
    ];
    for (const [label, query] of stats) await timed(label, async () => (await projectStats(db, s.teamId, s.projectId, query, 'manager')).images, TARGET_MS);
    console.log(`\n${DB}, ${fmt(IMAGES)} images of 10 objects, a page of 100, median and slowest of ${ROUNDS} rounds (ms)\n`);
    printTable(['query', 'items', 'median', 'slowest', '× floor'], rows);
    console.log('');
    let passed = true;
    for (const [label, ok, detail] of verdicts) passed = verdict(label, ok, detail) && passed;
    process.exitCode = passed ? 0 : 1;
  } finally {
    await ctx.close();
  }
}

await main();
