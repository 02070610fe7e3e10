// The gallery's "disagrees with the annotation" filter (GET /v2/images?disagreeModel=) at scale, and
// what keeping it costs a write of predictions.
//
//   node --import tsx bench/disagreement.ts [--db sqlite|postgres] [--images 100000] [--rounds 7]
//                                           [--database-url URL]
//
// (a) Reads. A project of `--images` images, each with predictions of model `m` and their 20
// prediction_agreement rows, seeded with INSERT … SELECT: every 100th image disagrees at IoU 0.5
// (1%), every other one at IoU 0.75 (50%). Each query is the service call of GET /v2/images (a page
// of 100), timed `--rounds` times after a warm-up. Floor: one image found by its exact name on its
// index; the existing predictionScore filter is shown beside.
// (b) Writes. storePredictions (the upsert of the predictions and their agreement with the
// annotation) of 10 and of 100 polygons against as many annotated ones on a 1024 × 1024 image, in a
// transaction; floor: the same upsert without the agreement (replacePredictions).
// The database is made for the run and removed after it (the folder under .bench/, the schema).
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { isoNow } from '../src/clock.ts';
import { serializeObjects } from '../src/formats/canonical.ts';
import { replacePredictions } from '../src/repositories/predictions.repository.ts';
import { insertProject } from '../src/repositories/projects.repository.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { type ImageListQuery, listImages } from '../src/services/image-list.service.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { storePredictions } from '../src/services/predictions.service.ts';
import type { PredictionObject } from '../src/services/prediction-objects.ts';
import { benchDatabase, parseDbChoice } from './databases.ts';
import { DEFAULT_DATABASE_URL, fmt, positive, printTable, progress, verdict } from './harness.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    images: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '7' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
  },
});

const DB = parseDbChoice(args.db);
const IMAGES = positive('images', args.images);
const ROUNDS = positive('rounds', args.rounds);
const TARGET_MS = 300;
const CHUNK = 50_000;

const numbers = (start: number, end: number) =>
  DB === 'postgres' ? sql`select n from generate_series(${start}::int, ${end}::int) as g(n)` : sql`with recursive g(n) as (select cast(${start} as integer) union all select n + 1 from g where n < ${end}) select n from g`;
const THRESHOLDS = sql.raw(
  ['bbox', 'segm']
    .flatMap((t) => [50, 55, 60, 65, 70, 75, 80, 85, 90, 95].map((i) => `select '${t}' as t, ${i} as i`))
    .join(' union all '),
);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A polygon of 16 points around (cx, cy). */
const ring = (cx: number, cy: number, r: number): [number, number][] =>
  Array.from({ length: 16 }, (_, k) => [Math.round(cx + r * Math.cos((k * Math.PI) / 8)), Math.round(cy + r * Math.sin((k * Math.PI) / 8))]);

async function main(): Promise<void> {
  const database = benchDatabase(DB, `disagreement_i${IMAGES}`, args['database-url']);
  await database.reset();
  const ctx = await database.open();
  try {
    const db = ctx.db.kysely;
    const now = isoNow();
    const teamId = await ensureTeam(db, DEFAULT_TEAM);
    const projectId = await insertProject(db, teamId, 'bench disagreement');
    const { id: datasetId } = await db.insertInto('datasets').values({ project_id: projectId, title: 'all', size: 0, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
    const { id: classId } = await db.insertInto('classes').values({ project_id: projectId, title: 'thing', shape: 'polygon', color: '#1F77B4', created_at: now }).returning('id').executeTakeFirstOrThrow();
    const hash = 'bench-disagreement-blob';
    await db.insertInto('blobs').values({ hash, size: 1000, media_type: 'image/jpeg', width: 1024, height: 1024, created_at: now }).execute();
    const started = performance.now();
    for (let start = 1; start <= IMAGES; start += CHUNK) {
      const end = Math.min(start + CHUNK - 1, IMAGES);
      await db.transaction().execute(async (trx) => {
        await sql`insert into images (dataset_id, project_id, name, hash, size, width, height, description, objects_json, object_count, created_at, updated_at)
          select ${datasetId}, ${projectId}, 'frame_' || n || '.jpg', ${hash}, 1000, 1024, 1024, '', '[]', 0, ${now}, ${now} from (${numbers(start, end)}) as g`.execute(trx);
        const first = await trx.selectFrom('images').select((eb) => eb.fn.min('id').as('id')).where('project_id', '=', projectId).where('name', '=', `frame_${start}.jpg`).executeTakeFirstOrThrow();
        const base = Number(first.id) - start;
        await sql`insert into image_predictions (image_id, project_id, model, objects_json, object_count, max_score, created_at, updated_at)
          select ${base} + n, ${projectId}, 'm', '[]', 0, (n % 10) / 10.0, ${now}, ${now} from (${numbers(start, end)}) as g`.execute(trx);
        await sql`insert into prediction_agreement (image_id, model, iou_type, iou, agree_above, agree_upto)
          select ${base} + n, 'm', v.t, v.i,
            case when (v.i = 50 and n % 100 = 0) or (v.i = 75 and n % 2 = 0) then 1 else -1 end,
            case when (v.i = 50 and n % 100 = 0) or (v.i = 75 and n % 2 = 0) then 0 else 1 end
          from (${numbers(start, end)}) as g cross join (${THRESHOLDS}) as v`.execute(trx);
      });
      progress(`seeded ${fmt(end)} / ${fmt(IMAGES)} images`);
    }
    if (DB === 'postgres') await sql`vacuum analyze`.execute(db);
    else await sql`analyze`.execute(db);
    progress(`seeding took ${fmt((performance.now() - started) / 1000, 1)} s`);

    const rows: string[][] = [];
    const verdicts: [string, boolean, string][] = [];
    let floor = 0;
    const timed = async (label: string, run: () => Promise<number>, target: number | null) => {
      let found = await run();
      const times: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const t0 = performance.now();
        found = await run();
        times.push(performance.now() - t0);
      }
      const ms = median(times);
      const worst = Math.max(...times);
      if (target === null) floor = ms;
      rows.push([label, fmt(found), fmt(ms, 2), fmt(worst, 2), fmt(ms / floor, 1)]);
      if (target !== null) verdicts.push([label, worst < target, `${fmt(ms, 1)} ms median, ${fmt(worst, 1)} ms slowest, target < ${target} ms`]);
    };
    const n = Math.floor(IMAGES * 0.54);
    await timed('floor: one exact name on its index', async () => (await db.selectFrom('images').select('id').where('project_id', '=', projectId).where('name', '=', `frame_${n}.jpg`).execute()).length, null);
    const lists: [string, Omit<ImageListQuery, 'projectId' | 'limit'>][] = [
      ['predictionScore=0.9 (10%), for comparison', { predictionScore: 0.9 }],
      ['predictionScore=0.9 (10%), with the total, for comparison', { predictionScore: 0.9, count: true }],
      ['disagreeModel=m (1%)', { disagreeModel: 'm' }],
      ['disagreeModel=m (1%), with the total', { disagreeModel: 'm', count: true }],
      ['disagreeModel=m, IoU 0.75 (50%)', { disagreeModel: 'm', disagreeIou: 0.75 }],
      ['disagreeModel=m, IoU 0.75 (50%), with the total', { disagreeModel: 'm', disagreeIou: 0.75, count: true }],
      ['disagreeModel=m (1%), newest first', { disagreeModel: 'm', sort: '-id' }],
    ];
    for (const [label, query] of lists) {
      await timed(label, async () => {
        const page = await listImages(db, teamId, { projectId, limit: 100, ...query }, 'manager');
        return page.total ?? page.items.length;
      }, TARGET_MS);
    }

    // (b) writes
    const writes: string[][] = [];
    for (const count of [10, 100]) {
      const objects = Array.from({ length: count }, (_, i) => ring(40 + (i % 10) * 100, 40 + Math.floor(i / 10) * 100, 35));
      const { id: imageId } = await db
        .insertInto('images')
        .values({ dataset_id: datasetId, project_id: projectId, name: `written_${count}.jpg`, hash, size: 1000, width: 1024, height: 1024, description: '', objects_json: serializeObjects(objects.map((exterior) => ({ classTitle: 'thing', description: '', tags: [], bitmap: null, points: { exterior, interior: [] } }))), object_count: count, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const predictions: PredictionObject[] = objects.map((exterior, i) => ({
        classId,
        classTitle: 'thing',
        geometryType: 'polygon',
        bitmap: null,
        points: { exterior: exterior.map(([x, y]) => [x + 3, y] as [number, number]), interior: [] },
        score: 0.5 + i / (2 * count),
      }));
      const time = async (run: () => Promise<void>) => {
        await run();
        const times: number[] = [];
        for (let round = 0; round < ROUNDS; round += 1) {
          const t0 = performance.now();
          await run();
          times.push(performance.now() - t0);
        }
        return median(times);
      };
      const objectsJson = JSON.stringify(predictions);
      const bare = await time(() =>
        db.transaction().execute((trx) => replacePredictions(trx, { imageId, projectId, model: 'm', objectsJson, objectCount: count, maxScore: 1, now: isoNow() })),
      );
      const kept = await time(async () => {
        await db.transaction().execute((trx) => storePredictions(trx, { id: imageId, projectId }, 'm', predictions));
      });
      writes.push([`${count} predictions, ${count} objects`, fmt(kept, 1), fmt(bare, 1), fmt(kept / bare, 1)]);
    }

    console.log(`\n${DB}, ${fmt(IMAGES)} images with predictions, a page of 100, median and slowest of ${ROUNDS} rounds (ms)\n`);
    printTable(['query', 'items (or total)', 'median', 'slowest', '× floor'], rows);
    console.log(`\nA write of a model's predictions for one 1024 × 1024 image, median of ${ROUNDS} (ms)\n`);
    printTable(['write', 'with agreement', 'upsert alone (floor)', '× floor'], writes);
    console.log('');
    let passed = true;
    for (const [label, ok, detail] of verdicts) passed = verdict(label, ok, detail) && passed;
    process.exitCode = passed ? 0 : 1;
  } finally {
    await ctx.close();
    await database.reset();
  }
}

await main();
