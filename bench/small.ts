// A small answer under load: GET /v1/projects against Fastify's hello world, both in child processes.
//
//   node --import tsx bench/small.ts [--db sqlite|postgres] [--duration 10] [--connections 10]
//                                    [--rounds 3] [--warmup 2] [--database-url URL] [--log-level warn]
//                                    [--server-root DIR]
//
// What it measures is the fixed cost of one /v1 request (routing, the key check, hooks, validation, a
// few small queries, serialisation) against the least a Fastify server can do. See bench/README.md.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isoNow } from '../src/clock.ts';
import type { Context } from '../src/context.ts';
import { insertProject } from '../src/repositories/projects.repository.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { type BenchDatabase, benchDatabase, parseDbChoice } from './databases.ts';
import {
  BENCH_API_KEY,
  DEFAULT_DATABASE_URL,
  type ChildServer,
  type LoadResult,
  best,
  fmt,
  load,
  printTable,
  progress,
  startAnnostore,
  startFloor,
  verdict,
  positive,
} from './harness.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
    'log-level': { type: 'string', default: 'warn' },
    'server-root': { type: 'string' },
  },
});

const DB = parseDbChoice(args.db);
const DURATION = positive('duration', args.duration);
const CONNECTIONS = positive('connections', args.connections);
const ROUNDS = positive('rounds', args.rounds);
const WARMUP = Number(args.warmup);
const PROJECTS = 4;
const RATIO_TARGET = 0.5;
const SEED_VERSION = 1;
const MARKER = `bench small v${SEED_VERSION}`;

const CLASSES = [
  { title: 'car', shape: 'polygon', color: '#E6194B' },
  { title: 'person', shape: 'polygon', color: '#3CB44B' },
  { title: 'traffic sign', shape: 'rectangle', color: '#4363D8' },
];
const TAGS = [
  { scope: 'images', title: 'reviewed' },
  { scope: 'images', title: 'night' },
  { scope: 'figures', title: 'occluded' },
  { scope: 'figures', title: 'truncated' },
];

/** The team's projects, the last one named `MARKER` once seeding finished. */
async function isSeeded(ctx: Context): Promise<boolean> {
  const row = await ctx.db.kysely
    .selectFrom('projects')
    .innerJoin('teams', 'teams.id', 'projects.team_id')
    .select('projects.id')
    .where('teams.name', '=', DEFAULT_TEAM)
    .where('projects.title', '=', MARKER)
    .executeTakeFirst();
  return row !== undefined;
}

async function seed(ctx: Context): Promise<void> {
  const db = ctx.db.kysely;
  const now = isoNow();
  const teamId = await ensureTeam(db, DEFAULT_TEAM);
  const titles = [...Array.from({ length: PROJECTS - 1 }, (_, i) => `street scenes ${i + 1}`), MARKER];
  for (const title of titles) {
    const projectId = await insertProject(db, teamId, title);
    await db
      .insertInto('classes')
      .values(CLASSES.map((c) => ({ project_id: projectId, ...c, created_at: now })))
      .execute();
    await db
      .insertInto('project_tags')
      .values(TAGS.map((t) => ({ project_id: projectId, ...t, hotkey: '', created_by: null, created_at: now, updated_at: now })))
      .execute();
    await db.updateTable('projects').set({ size: 1_234_567_890 }).where('id', '=', projectId).execute();
  }
}

async function ensureSeeded(database: BenchDatabase): Promise<void> {
  let ctx = await database.open();
  try {
    if (await isSeeded(ctx)) {
      progress(`reusing the seeded database at ${database.where}`);
      return;
    }
    await ctx.close();
    await database.reset();
    ctx = await database.open();
    progress(`seeding ${PROJECTS} projects into ${database.where}`);
    await seed(ctx);
  } finally {
    await ctx.close();
  }
}

async function main(): Promise<void> {
  const database = benchDatabase(DB, `small_p${PROJECTS}_v${SEED_VERSION}`, args['database-url']);
  await ensureSeeded(database);
  const headers = { 'x-api-key': BENCH_API_KEY };
  const children: ChildServer[] = [];
  try {
    const server = await startAnnostore({
      name: `small-${DB}-server`,
      dataDir: database.dataDir,
      databaseUrl: database.databaseUrl,
      databaseSchema: database.databaseSchema,
      logLevel: args['log-level'],
      serverRoot: args['server-root'] ? path.resolve(args['server-root']) : undefined,
    });
    children.push(server);
    const floor = await startFloor(`small-${DB}-floor`, ['--hello'], '/hello');
    children.push(floor);

    const res = await fetch(`${server.url}/v1/projects`, { headers });
    const body = await res.text();
    const projects = res.ok ? (JSON.parse(body) as { classes: unknown[]; tags: unknown[] }[]) : [];
    if (projects.length !== PROJECTS || projects.some((p) => p.classes.length !== CLASSES.length || p.tags.length !== TAGS.length)) {
      throw new Error(`GET /v1/projects answered ${res.status}: ${body.slice(0, 300)}`);
    }
    console.log(
      `GET /v1/projects on ${DB} (${database.where}): ${PROJECTS} projects with ${CLASSES.length} classes and ` +
        `${TAGS.length} tags each, ${Buffer.byteLength(body)} bytes; against GET /hello of a bare Fastify; ` +
        `${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds, ${WARMUP} s warm-up`,
    );

    const targets = [
      { name: 'annostore /v1/projects', server, url: `${server.url}/v1/projects`, runs: [] as LoadResult[] },
      { name: 'fastify hello world', server: floor, url: `${floor.url}/hello`, runs: [] as LoadResult[] },
    ];
    if (WARMUP > 0) {
      for (const t of targets) await load({ url: t.url, pid: t.server.pid, connections: CONNECTIONS, duration: WARMUP, headers });
    }
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const t of targets) {
        t.runs.push(await load({ url: t.url, pid: t.server.pid, connections: CONNECTIONS, duration: DURATION, headers }));
      }
      const [ours, floorRun] = targets.map((t) => t.runs.at(-1)!);
      progress(`round ${round}: ours ${fmt(ours!.rps)} req/s, floor ${fmt(floorRun!.rps)} req/s (${fmt((ours!.rps / floorRun!.rps) * 100)}%)`);
    }

    console.log('');
    printTable(
      ['server', 'best req/s', 'worst req/s', 'spread', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'client CPU µs/req', 'each round'],
      targets.map((t) => {
        const b = best(t.runs.map((r) => r.rps));
        const top = t.runs.find((r) => r.rps === b.best)!;
        return [
          t.name,
          fmt(b.best),
          fmt(b.worst),
          `${fmt(b.spreadPct, 1)}%`,
          fmt(top.p50Ms, 1),
          fmt(top.p99Ms, 1),
          fmt(top.serverCpuMs * 1000),
          fmt(top.clientCpuMs * 1000),
          t.runs.map((r) => fmt(r.rps)).join(' / '),
        ];
      }),
    );
    console.log('');
    const [ours, floorTarget] = targets;
    const ratio = best(ours!.runs.map((r) => r.rps)).best / best(floorTarget!.runs.map((r) => r.rps)).best;
    const perRound = ours!.runs.map((r, i) => `${fmt((r.rps / floorTarget!.runs[i]!.rps) * 100)}%`).join(' / ');
    console.log(`best ours / best floor = ${fmt(ratio * 100, 1)}%; round by round ${perRound}`);
    console.log('');
    const passed = verdict(
      `GET /v1/projects on ${DB}`,
      ratio >= RATIO_TARGET,
      `${fmt(ratio * 100, 1)}% of hello world (${fmt(best(ours!.runs.map((r) => r.rps)).best)} vs ${fmt(best(floorTarget!.runs.map((r) => r.rps)).best)} req/s; target >= ${RATIO_TARGET * 100}%)`,
    );
    process.exitCode = passed ? 0 : 1;
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}

await main();
