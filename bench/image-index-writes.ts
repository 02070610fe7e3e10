// What the image indexes of a migration cost the writes: the same bulk insert of image rows into a
// database migrated up to the migration before it (the floor) and into one migrated up to it, in
// alternating order, on a fresh database each time.
//
//   node --import tsx bench/image-index-writes.ts [--db sqlite|postgres] [--images 200000] [--rounds 3]
//                                                 [--migration 0042_image_order_covering] [--database-url URL]
//
// The rows are inserted as the filters benchmark seeds them (INSERT … SELECT in transactions of 50,000,
// with the triggers of the running totals firing as on every write). See bench/README.md.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { isoNow } from '../src/clock.ts';
import { createDb } from '../src/db/create-db.ts';
import { MIGRATION_NAMES, type MigrationName, migrateTo } from '../src/db/migrate.ts';
import { insertProject } from '../src/repositories/projects.repository.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { benchDatabase, parseDbChoice } from './databases.ts';
import { DEFAULT_DATABASE_URL, fmt, positive, printTable, progress } from './harness.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    images: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '3' },
    migration: { type: 'string', default: '0042_image_order_covering' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
  },
});

type Name = MigrationName;
const DB = parseDbChoice(args.db);
const IMAGES = positive('images', args.images);
const ROUNDS = positive('rounds', args.rounds);
const CHUNK = 50_000;
const names = MIGRATION_NAMES;
const target = args.migration as Name;
if (!names.includes(target) || names.indexOf(target) === 0) throw new Error(`--migration must name a migration after the first, got "${args.migration}"`);
const previous = names[names.indexOf(target) - 1]!;

const numbers = (start: number, end: number) =>
  DB === 'postgres' ? sql`select n from generate_series(${start}::int, ${end}::int) as g(n)` : sql`with recursive g(n) as (select cast(${start} as integer) union all select n + 1 from g where n < ${end}) select n from g`;

/** Seconds to insert the images into a fresh database migrated up to `upTo`. */
async function insertSeconds(upTo: Name): Promise<number> {
  const database = benchDatabase(DB, `index_writes_${upTo}`, args['database-url']);
  await database.reset();
  const db = await createDb(database.config);
  try {
    await migrateTo(db, upTo);
    const k = db.kysely;
    const now = isoNow();
    const projectId = await insertProject(k, await ensureTeam(k, DEFAULT_TEAM), 'index writes');
    const { id: datasetId } = await k.insertInto('datasets').values({ project_id: projectId, title: 'd', size: 0, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
    const hash = 'bench-index-writes-blob';
    await k.insertInto('blobs').values({ hash, size: 1000, media_type: 'image/jpeg', width: 640, height: 480, created_at: now }).execute();
    const started = performance.now();
    for (let start = 1; start <= IMAGES; start += CHUNK) {
      const end = Math.min(start + CHUNK - 1, IMAGES);
      await k.transaction().execute(async (trx) => {
        await sql`insert into images (dataset_id, project_id, name, hash, size, width, height, description, objects_json, object_count, created_at, updated_at)
          select ${datasetId}, ${projectId}, 'frame_' || n || '.jpg', ${hash}, 1000, 640, 480, '', '[]', n % 20, ${now}, ${now} from (${numbers(start, end)}) as g`.execute(trx);
      });
    }
    return (performance.now() - started) / 1000;
  } finally {
    await db.close();
    await database.reset();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const times: Record<'before' | 'after', number[]> = { before: [], after: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    const order: ('before' | 'after')[] = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const variant of order) {
      const seconds = await insertSeconds(variant === 'before' ? previous : target);
      times[variant].push(seconds);
      progress(`round ${round + 1}: ${variant} ${fmt(seconds, 2)} s`);
    }
  }
  const floor = median(times.before);
  console.log(`\n${DB}, ${fmt(IMAGES)} image rows inserted, median and slowest of ${ROUNDS} rounds (s)\n`);
  printTable(
    ['schema', 'median', 'slowest', '× floor'],
    (['before', 'after'] as const).map((v) => [v === 'before' ? `floor: up to ${previous}` : `up to ${target}`, fmt(median(times[v]), 2), fmt(Math.max(...times[v]), 2), fmt(median(times[v]) / floor, 3)]),
  );
}

await main();
