// Jobs under load on PostgreSQL: annotators saving while a reviewer walks a queue.
//
//   node --import tsx bench/review-load.ts [--annotators 20] [--seconds 60] [--floor-seconds 20]
//                                          [--database-url URL] [--log-level warn]
//
// Seeds a fresh PostgreSQL schema with one project, one user and key per annotator and a reviewer, and
// starts `annostore serve --no-worker`. Floor: every annotator saves an image that is in no job, one a
// second, for --floor-seconds. Then the dataset is split into one job per annotator (POST
// /v2/datasets/:id/jobs) and, for --seconds, every annotator saves the next image of its job (PUT
// /v2/images/:id/annotation, which checks the job's lock and counts time spent) and submits it, once a
// second, while the reviewer walks the review queue (GET /v2/jobs/:id/next, then accept, or reject one
// in ten with an issue). Reported: errors, p50/p99 of the saves in both phases and their ratio, the
// reviewer's p99, and how many rows and bytes the annotation_revisions table grew by.
// Target: p99 of a save in a job under 150 ms, and no errors.
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { isoNow } from '../src/clock.ts';
import { insertProject } from '../src/repositories/projects.repository.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { putMember } from '../src/repositories/project-members.repository.ts';
import { DEFAULT_TEAM, createKey } from '../src/services/keys.service.ts';
import { benchDatabase } from './databases.ts';
import { BENCH_API_KEY, DEFAULT_DATABASE_URL, fmt, positive, progress, startAnnostore, verdict } from './harness.ts';

const { values: args } = parseArgs({
  options: {
    annotators: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '60' },
    'floor-seconds': { type: 'string', default: '20' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
    'log-level': { type: 'string', default: 'warn' },
  },
});

const ANNOTATORS = positive('annotators', args.annotators);
const SECONDS = positive('seconds', args.seconds);
const FLOOR_SECONDS = positive('floor-seconds', args['floor-seconds']);
const TARGET_MS = 150;

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function box(i: number): Record<string, unknown> {
  const x = 10 + (i % 50) * 3;
  return { classTitle: 'car', description: '', tags: [], points: { exterior: [[x, 10], [x + 40, 10], [x + 40, 50], [x, 50]], interior: [] } };
}

interface Seeded {
  projectId: number;
  jobDataset: number;
  floorImages: number[][];
  keys: string[];
  userIds: number[];
  reviewerKey: string;
  reviewerId: number;
}

async function seed(database: ReturnType<typeof benchDatabase>): Promise<Seeded> {
  await database.reset();
  const ctx = await database.open();
  try {
    const db = ctx.db.kysely;
    const now = isoNow();
    const teamId = await ensureTeam(db, DEFAULT_TEAM);
    const projectId = await insertProject(db, teamId, 'bench review load');
    await db.insertInto('classes').values({ project_id: projectId, title: 'car', shape: 'polygon', color: '#E6194B', created_at: now }).execute();
    const dataset = async (title: string) =>
      (await db.insertInto('datasets').values({ project_id: projectId, title, size: 0, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow()).id;
    const jobDataset = await dataset('jobs');
    const floorDataset = await dataset('floor');
    const hash = createHash('sha256').update('bench review load').digest('base64');
    await db.insertInto('blobs').values({ hash, size: 1000, media_type: 'image/jpeg', width: 640, height: 480, created_at: now }).execute();
    const insertImages = async (datasetId: number, n: number, prefix: string): Promise<number[]> => {
      const ids: number[] = [];
      for (let from = 0; from < n; from += 500) {
        const rows = Array.from({ length: Math.min(500, n - from) }, (_, k) => ({
          dataset_id: datasetId,
          project_id: projectId,
          name: `${prefix}-${String(from + k).padStart(6, '0')}.jpg`,
          hash,
          size: 1000,
          width: 640,
          height: 480,
          description: '',
          objects_json: '[]',
          created_at: now,
          updated_at: now,
        }));
        ids.push(...(await db.insertInto('images').values(rows).returning('id').execute()).map((r) => r.id));
      }
      return ids;
    };
    // One more image a second than the phase lasts: an annotator never runs out.
    await insertImages(jobDataset, ANNOTATORS * (SECONDS + 5), 'job');
    const floor = await insertImages(floorDataset, ANNOTATORS * (FLOOR_SECONDS + 5), 'floor');
    const keys: string[] = [];
    const userIds: number[] = [];
    for (let i = 0; i < ANNOTATORS; i += 1) {
      keys.push(await createKey(db, { team: DEFAULT_TEAM, user: `annotator${i}` }));
      userIds.push((await db.selectFrom('users').select('id').where('login', '=', `annotator${i}`).executeTakeFirstOrThrow()).id);
    }
    const reviewerKey = await createKey(db, { team: DEFAULT_TEAM, user: 'reviewer' });
    const reviewerId = (await db.selectFrom('users').select('id').where('login', '=', 'reviewer').executeTakeFirstOrThrow()).id;
    // Members of a new project are viewers by default: the annotators save, on the floor's images too,
    // as annotators of the project, and the reviewer reviews as its reviewer.
    for (const userId of userIds) await putMember(db, projectId, userId, 'annotator');
    await putMember(db, projectId, reviewerId, 'reviewer');
    const per = FLOOR_SECONDS + 5;
    return { projectId, jobDataset, floorImages: keys.map((_, i) => floor.slice(i * per, (i + 1) * per)), keys, userIds, reviewerKey, reviewerId };
  } finally {
    await ctx.close();
  }
}

async function revisionsSize(database: ReturnType<typeof benchDatabase>): Promise<{ rows: number; bytes: number }> {
  const ctx = await database.open();
  try {
    const db = ctx.db.kysely;
    const rows = Number((await db.selectFrom('annotation_revisions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const table = `${database.databaseSchema}.annotation_revisions`;
    const bytes = (await sql<{ bytes: string }>`select pg_total_relation_size(${table}::regclass) as bytes`.execute(db)).rows[0]!.bytes;
    const snapshots = `${database.databaseSchema}.annotation_snapshots`;
    const snapshotBytes = (await sql<{ bytes: string }>`select pg_total_relation_size(${snapshots}::regclass) as bytes`.execute(db)).rows[0]!.bytes;
    return { rows, bytes: Number(bytes) + Number(snapshotBytes) };
  } finally {
    await ctx.close();
  }
}

async function main(): Promise<void> {
  const database = benchDatabase('postgres', `review_load_a${ANNOTATORS}_s${SECONDS}`, args['database-url']);
  const seeded = await seed(database);
  const server = await startAnnostore({ name: 'review-load', dataDir: database.dataDir, databaseUrl: database.databaseUrl, databaseSchema: database.databaseSchema, logLevel: args['log-level']! });
  const errors: string[] = [];
  const call = async (key: string, method: string, path: string, body?: unknown): Promise<{ status: number; ms: number; json: unknown }> => {
    const started = performance.now();
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    if (res.status >= 300) errors.push(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return { status: res.status, ms, json: text ? (JSON.parse(text) as unknown) : null };
  };
  try {
    // Floor: the same saves on images in no job.
    progress(`floor: ${ANNOTATORS} annotators, one save a second each, ${FLOOR_SECONDS} s, images in no job`);
    const floorTimes: number[] = [];
    await Promise.all(
      seeded.keys.map(async (key, a) => {
        for (let s = 0; s < FLOOR_SECONDS; s += 1) {
          const started = performance.now();
          floorTimes.push((await call(key, 'PUT', `/v2/images/${seeded.floorImages[a]![s]}/annotation`, { objects: [box(s)] })).ms);
          await sleep(Math.max(0, 1000 - (performance.now() - started)));
        }
      }),
    );

    const split = await call(BENCH_API_KEY, 'POST', `/v2/datasets/${seeded.jobDataset}/jobs`, { imagesPerJob: SECONDS + 5, assigneeIds: seeded.userIds, reviewerId: seeded.reviewerId });
    if (split.status !== 201) throw new Error(`split: ${JSON.stringify(split.json)}`);
    const jobs = (split.json as { items: { id: number }[] }).items.map((j) => j.id);
    const before = await revisionsSize(database);
    progress(`jobs: ${ANNOTATORS} annotators save and submit an image a second each for ${SECONDS} s; a reviewer walks the queue`);
    const saveTimes: number[] = [];
    const reviewTimes: number[] = [];
    let reviewed = 0;
    let running = true;
    const reviewer = (async () => {
      while (running) {
        let found = false;
        for (const jobId of jobs) {
          const next = await call(seeded.reviewerKey, 'GET', `/v2/jobs/${jobId}/next?queue=review`);
          reviewTimes.push(next.ms);
          const image = (next.json as { image: { imageId: number } | null }).image;
          if (!image) continue;
          found = true;
          reviewed += 1;
          const verdictCall =
            reviewed % 10 === 0
              ? await call(seeded.reviewerKey, 'POST', `/v2/jobs/${jobId}/images/${image.imageId}/reject`, { issues: [{ x: 5, y: 5, comment: 'check the box' }] })
              : await call(seeded.reviewerKey, 'POST', `/v2/jobs/${jobId}/images/${image.imageId}/accept`);
          reviewTimes.push(verdictCall.ms);
        }
        if (!found) await sleep(100);
      }
    })();
    await Promise.all(
      seeded.keys.map(async (key, a) => {
        const jobId = jobs[a]!;
        const images = (await call(key, 'GET', `/v2/jobs/${jobId}/images?limit=1000`)).json as { items: { imageId: number }[] };
        for (let s = 0; s < SECONDS; s += 1) {
          const started = performance.now();
          const imageId = images.items[s]!.imageId;
          saveTimes.push((await call(key, 'PUT', `/v2/images/${imageId}/annotation`, { objects: [box(s), box(s + 7)] })).ms);
          await call(key, 'POST', `/v2/jobs/${jobId}/images/${imageId}/submit`);
          await sleep(Math.max(0, 1000 - (performance.now() - started)));
        }
      }),
    );
    running = false;
    await reviewer;
    const after = await revisionsSize(database);

    floorTimes.sort((x, y) => x - y);
    saveTimes.sort((x, y) => x - y);
    reviewTimes.sort((x, y) => x - y);
    const p99 = percentile(saveTimes, 99);
    const floorP99 = percentile(floorTimes, 99);
    console.log(`PostgreSQL, ${ANNOTATORS} annotators, one save a second each`);
    console.log(`floor (images in no job, ${FLOOR_SECONDS} s): ${floorTimes.length} saves, p50 ${fmt(percentile(floorTimes, 50), 1)} ms, p99 ${fmt(floorP99, 1)} ms`);
    console.log(`in jobs (${SECONDS} s, reviewer walking): ${saveTimes.length} saves, p50 ${fmt(percentile(saveTimes, 50), 1)} ms, p99 ${fmt(p99, 1)} ms (${fmt(p99 / floorP99, 2)}× the floor's p99)`);
    console.log(`reviewer: ${reviewed} images reviewed, ${reviewTimes.length} requests, p99 ${fmt(percentile(reviewTimes, 99), 1)} ms`);
    console.log(`annotation revisions: +${fmt(after.rows - before.rows)} rows, +${fmt((after.bytes - before.bytes) / 1024)} KiB (revisions and snapshots, with indexes)`);
    console.log(`errors: ${errors.length}${errors.length ? `; first: ${errors[0]}` : ''}`);
    const passed = verdict(`p99 of a save under ${TARGET_MS} ms, no errors`, p99 < TARGET_MS && errors.length === 0, `${fmt(p99, 1)} ms, ${errors.length} errors`);
    process.exitCode = passed ? 0 : 1;
  } finally {
    await server.stop();
    await database.reset();
  }
}

await main();
