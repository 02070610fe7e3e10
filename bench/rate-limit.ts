// The cost of the rate limiter per request: GET /v2/projects under autocannon, one key, against
// `annostore serve --no-worker` with the request limit off, with its buckets in memory, and with its
// buckets in PostgreSQL (one UPSERT a request on the key's row), rounds interleaved. The limit is set
// far above what the load reaches, so every request is charged and none refused.
//
//   node --import tsx bench/rate-limit.ts [--rounds 3] [--connections 50] [--duration 10] [--database-url …]
//
// See bench/README.md ("Rate limits") and docs/rate-limits.md for the figures.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BENCH_API_KEY, DEFAULT_DATABASE_URL, type LoadResult, ROOT, best, fmt, load, positive, printTable, progress, startServer } from './harness.ts';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    duration: { type: 'string', default: '10' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
  },
});
const ROUNDS = positive('rounds', args.rounds);
const CONNECTIONS = positive('connections', args.connections);
const DURATION = positive('duration', args.duration);
const DATABASE_URL = args['database-url'];
const SCHEMA = `bench_rate_limit_${process.pid}`;

const MODES = {
  off: {},
  memory: { RATE_LIMIT_REQUESTS_PER_SECOND: '1000000000', RATE_LIMIT_STORE: 'memory' },
  database: { RATE_LIMIT_REQUESTS_PER_SECOND: '1000000000', RATE_LIMIT_STORE: 'database' },
} as const;
type Mode = keyof typeof MODES;

async function run(mode: Mode): Promise<LoadResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `annostore-bench-rate-${mode}-`));
  const server = await startServer(`rate-limit-${mode}`, [path.join(ROOT, 'bin', 'annostore.js'), 'serve', '--no-worker'], {
    DATA_DIR: dataDir,
    DATABASE_URL,
    DATABASE_SCHEMA: SCHEMA,
    ANNOSTORE_API_KEY: BENCH_API_KEY,
    LOG_LEVEL: 'warn',
    ...MODES[mode],
  });
  try {
    const url = `${server.url}/v2/projects`;
    const headers = { 'x-api-key': BENCH_API_KEY };
    await load({ url, pid: server.pid, connections: CONNECTIONS, duration: 2, headers }); // warm-up
    return await load({ url, pid: server.pid, connections: CONNECTIONS, duration: DURATION, headers });
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function dropSchema(): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${SCHEMA}" cascade`);
  } finally {
    await client.end();
  }
}

const results: Record<Mode, LoadResult[]> = { off: [], memory: [], database: [] };
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const mode of Object.keys(MODES) as Mode[]) {
      progress(`round ${round}/${ROUNDS}: limiter ${mode}`);
      results[mode].push(await run(mode));
    }
  }
} finally {
  await dropSchema();
}

const baseline = best(results.off.map((r) => r.rps)).best;
const rows = (Object.keys(MODES) as Mode[]).map((mode) => {
  const rps = best(results[mode].map((r) => r.rps));
  const top = results[mode].find((r) => r.rps === rps.best)!;
  return [
    mode,
    fmt(rps.best),
    `${fmt(rps.spreadPct, 1)}%`,
    `${fmt((rps.best / baseline) * 100, 1)}%`,
    fmt(top.p50Ms, 1),
    fmt(top.p99Ms, 1),
    fmt(top.serverCpuMs, 3),
    fmt((1 / rps.best - 1 / baseline) * 1e6, 0),
  ];
});
console.log(`\nGET /v2/projects, one key, ${CONNECTIONS} connections, ${DURATION} s, best of ${ROUNDS} (PostgreSQL ${DATABASE_URL})`);
printTable(['limiter', 'req/s', 'spread', 'vs off', 'p50 ms', 'p99 ms', 'server CPU ms/req', 'µs/req added'], rows);
