// What both benchmarks share: child servers, the load generator, RSS sampling and the report.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Seeded databases, fetched pages and server logs; gitignored. */
export const BENCH_DIR = path.join(ROOT, '.bench');
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
/** The key the benchmarked server registers for user admin of team default at start. */
export const BENCH_API_KEY = 'ak_benchmark-key-not-for-production-use';

export interface ChildServer {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  readonly logFile: string;
  stop(): Promise<void>;
}

/** A JSON call to a server started here, with the benchmark key; throws on any non-2xx answer. */
export async function api<T>(server: { url: string }, method: string, url: string, body?: unknown): Promise<T> {
  const headers = { 'x-api-key': BENCH_API_KEY };
  const res = await fetch(server.url + url, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function tail(file: string, lines = 20): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Spawns `node <args>` with its output in a log file under .bench/logs and waits until `readyPath`
 * answers 200. The pid is the server's own (no shell in between), so /proc/<pid> is its memory.
 */
export async function startChild(options: {
  name: string;
  args: string[];
  env: Record<string, string | undefined>;
  port: number;
  readyPath: string;
}): Promise<ChildServer> {
  const logDir = path.join(BENCH_DIR, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${options.name}.log`);
  const log = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, options.args, { cwd: ROOT, env: options.env, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const url = `http://127.0.0.1:${options.port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const done = await Promise.race([exited(child).then(() => true), sleep(10_000).then(() => false)]);
    if (!done) {
      child.kill('SIGKILL');
      await exited(child);
    }
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${options.name} exited before it was ready:\n${tail(logFile)}`);
    }
    try {
      const res = await fetch(url + options.readyPath);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${options.name} was not ready within 60 s:\n${tail(logFile)}`);
    }
    await sleep(100);
  }
  return { name: options.name, url, pid: child.pid!, logFile, stop };
}

/** The environment of the server under test: ours only, nothing inherited that would change its setup. */
export function serverEnv(vars: Record<string, string | undefined>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATABASE_SCHEMA', 'STORAGE_URL', 'HOST', 'PORT', 'DATA_DIR', 'ANNOSTORE_API_KEY', 'LOG_LEVEL']) {
    delete env[name];
  }
  delete env.NODE_OPTIONS;
  return { ...env, ...vars };
}

/**
 * Starts `annostore serve --no-worker`, the way an operator runs it: from this checkout, or from
 * `serverRoot` (another checkout, say of the commit before a change) to compare the two.
 */
export async function startAnnostore(options: {
  name: string;
  serverRoot?: string;
  dataDir: string;
  databaseUrl?: string;
  databaseSchema?: string;
  logLevel: string;
}): Promise<ChildServer> {
  return startServer(options.name, [path.join(options.serverRoot ?? ROOT, 'bin', 'annostore.js'), 'serve', '--no-worker'], {
    DATA_DIR: options.dataDir,
    DATABASE_URL: options.databaseUrl,
    DATABASE_SCHEMA: options.databaseSchema,
    ANNOSTORE_API_KEY: BENCH_API_KEY,
    LOG_LEVEL: options.logLevel,
  });
}

const bundled = new Set<string>();

/**
 * bin/annostore.js bundles the sources at its first start after they changed, inside the process that
 * then serves: esbuild's memory and the build's garbage would be measured as the server's. A `--help`
 * run first leaves the bundle in place for the server to find.
 */
function bundleOnce(args: string[]): void {
  const command = args.find((arg) => arg.endsWith(path.join('bin', 'annostore.js')));
  if (!command || bundled.has(command)) return;
  execFileSync(process.execPath, [command, '--help'], { cwd: ROOT, stdio: 'ignore', env: serverEnv({}) });
  bundled.add(command);
}

/** `node <args>` as a server under test: serverEnv(vars) on a free PORT, ready once /healthz answers. */
export async function startServer(name: string, args: string[], vars: Record<string, string | undefined>): Promise<ChildServer> {
  bundleOnce(args);
  const port = await freePort();
  return startChild({ name, args, env: serverEnv({ ...vars, PORT: String(port) }), port, readyPath: '/healthz' });
}

/** Starts bench/floor-server.ts with the given arguments (see that file). */
export async function startFloor(name: string, args: string[], readyPath: string): Promise<ChildServer> {
  const port = await freePort();
  return startChild({
    name,
    args: ['--import', 'tsx', path.join(ROOT, 'bench', 'floor-server.ts'), '--port', String(port), ...args],
    env: serverEnv({}),
    port,
    readyPath,
  });
}

/** Samples VmRSS of a process while it runs; also reads the kernel's own high-water mark (VmHWM). */
export class RssSampler {
  private timer: NodeJS.Timeout | null = null;
  peakKb = 0;

  constructor(private readonly pid: number) {}

  private field(name: 'VmRSS' | 'VmHWM'): number {
    try {
      const status = fs.readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
      return match ? Number(match[1]) : 0;
    } catch {
      return 0;
    }
  }

  start(intervalMs = 50): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  sample(): number {
    const kb = this.field('VmRSS');
    if (kb > this.peakKb) this.peakKb = kb;
    return kb;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sample();
  }

  /** Peak resident set since the process started, as the kernel counts it. */
  highWaterKb(): number {
    return this.field('VmHWM');
  }
}

/**
 * Writes out everything the system still holds to write (the previous run's files, and the discards of
 * the ones just removed) before a timed run begins. Otherwise a run that syncs what it writes pays for
 * the writeback of the run before it, and a run that never syncs leaves its own to the next.
 */
export function settleDisk(): void {
  execFileSync('sync');
}

/** CPU time a process has used so far, in ms (utime + stime of /proc/<pid>/stat, 100 ticks a second). */
export function cpuMsOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

export interface LoadResult {
  rps: number;
  bytesPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU the server process spent per answered request. */
  serverCpuMs: number;
  /** CPU this process (the load generator) spent per answered request. */
  clientCpuMs: number;
}

/** Runs autocannon against one URL; any error or non-2xx answer fails the benchmark. */
export async function load(options: {
  url: string;
  /** The process that serves `url`, for its CPU time. */
  pid: number;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  /**
   * Paths on `url`'s server asked for in turn, each request the next one whatever its connection;
   * without them every request asks for `url`.
   */
  paths?: string[];
}): Promise<LoadResult> {
  const serverCpu = cpuMsOf(options.pid);
  const clientCpu = process.cpuUsage();
  const paths = options.paths;
  let next = 0;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.duration,
    headers: options.headers ?? {},
    timeout: 30,
    ...(paths ? { requests: [{ setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }) }] } : {}),
  });
  if (result.errors > 0 || result.non2xx > 0 || result.requests.total === 0) {
    throw new Error(
      `load on ${options.url} failed: ${result.requests.total} answers, ${result.errors} errors ` +
        `(${result.timeouts} timeouts), ${result.non2xx} non-2xx ${JSON.stringify(result.statusCodeStats)}`,
    );
  }
  const client = process.cpuUsage(clientCpu);
  const answered = result.requests.total;
  return {
    serverCpuMs: (cpuMsOf(options.pid) - serverCpu) / answered,
    clientCpuMs: (client.user + client.system) / 1000 / answered,
    rps: result.requests.total / result.duration,
    bytesPerRequest: result.throughput.total / result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}

/** Best (highest) of the repeated figures and how far the worst one lies below it, in percent. */
export function best(values: number[]): { best: number; worst: number; spreadPct: number } {
  const top = Math.max(...values);
  const bottom = Math.min(...values);
  return { best: top, worst: bottom, spreadPct: top > 0 ? ((top - bottom) / top) * 100 : 0 };
}

export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

export const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** `PASS`/`FAIL` line of one target; answers whether it passed. */
export function verdict(label: string, passed: boolean, detail: string): boolean {
  console.log(`${passed ? 'PASS' : 'FAIL'} ${label}: ${detail}`);
  return passed;
}

/** A command-line option that must be a whole number of at least 1. */
export const positive = (name: string, raw: string): number => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got "${raw}"`);
  return n;
};

export function progress(message: string): void {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);
}
