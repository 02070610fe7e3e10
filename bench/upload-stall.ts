// /healthz while large annotation files are uploaded: does one request stall the others?
//
//   node --import tsx bench/upload-stall.ts [--files 100] [--file-mb 60] [--per-request 10]
//                                           [--in-flight 2] [--idle-seconds 5] [--server-root DIR]
//                                           [--log-level warn]
//
// Generates (once, cached under .bench/) a Supervisely annotation of about 60 MB (polygons of 20
// points each). Starts `annostore serve --no-worker` on a fresh SQLite DATA_DIR, and a sampler process
// that asks for /healthz one request after another (keep-alive, 10 ms apart) and reports p50/p99/max:
//   - floor: the idle server, for --idle-seconds;
//   - load: the same sampler while --files copies of the annotation go to POST /v1/tasks/import/files,
//     --per-request files a request, --in-flight requests at once (each file streamed from disk).
// Every file must be accepted. Also reported: the upload's MB/s and the server's peak RSS (VmHWM),
// which says whether the files were held whole at once. Target: /healthz p99 under load < 100 ms.
// `--server-root` runs the server of another checkout (say, the commit before a change).
import { type ChildProcess, fork } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BENCH_API_KEY, BENCH_DIR, RssSampler, fmt, positive, printTable, progress, startAnnostore, verdict } from './harness.ts';

interface HealthFigures {
  answers: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const SAMPLE_GAP_MS = 10;

/** The sampler, run in its own process so the uploads' client work never delays its requests. */
async function sampleHealth(url: string): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let stopped = false;
  let first = true;
  process.on('message', () => (stopped = true));
  while (!stopped) {
    const start = performance.now();
    await new Promise<void>((resolve, reject) => {
      http
        .get(`${url}/healthz`, { agent }, (response) => {
          response.resume();
          response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`/healthz answered ${response.statusCode}`))));
        })
        .on('error', reject);
    });
    // The first answer opens the connection (and follows this process's start): it is not counted.
    if (first) {
      first = false;
      process.send!('ready');
    } else latencies.push(performance.now() - start);
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_GAP_MS));
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!;
  const figures: HealthFigures = { answers: latencies.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: latencies.at(-1)! };
  process.send!(figures, () => process.exit(0));
}

/** Starts the sampler and waits until it has its connection; `stop` answers its figures. */
async function startSampler(url: string): Promise<{ stop(): Promise<HealthFigures> }> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--sample-health', url], { execArgv: ['--import', 'tsx'] });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`the /healthz sampler exited (code ${code})`))));
  exited.catch(() => {});
  const message = () => Promise.race([new Promise<unknown>((resolve) => child.once('message', resolve)), exited]);
  await message();
  const figures = message() as Promise<HealthFigures>;
  return {
    async stop() {
      child.send('stop');
      return figures;
    },
  };
}

/** A Supervisely annotation of at least `bytes` bytes, written once to `file`. */
function ensureAnnotation(file: string, bytes: number): void {
  if (fs.existsSync(file) && fs.statSync(file).size >= bytes) return;
  progress(`writing ${file}`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const out = fs.openSync(`${file}.partial`, 'w');
  fs.writeSync(out, '{"description":"","tags":[],"size":{"width":4000,"height":3000},"objects":[');
  let size = 0;
  for (let k = 0; size < bytes; k += 1) {
    const points = Array.from({ length: 20 }, (_, p) => `[${(k * 7 + p * 13) % 4000}.${p},${(k * 11 + p * 17) % 3000}.5]`);
    const object = `${k > 0 ? ',' : ''}{"classTitle":"car","geometryType":"polygon","tags":[],"description":"","points":{"exterior":[${points.join(',')}],"interior":[]}}`;
    size += fs.writeSync(out, object);
  }
  fs.writeSync(out, ']}');
  fs.closeSync(out);
  fs.renameSync(`${file}.partial`, file);
}

/** POSTs `count` copies of `file` in one multipart request, streamed from disk; checks every answer. */
async function uploadCopies(url: string, file: string, hash: string, first: number, count: number): Promise<void> {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const size = fs.statSync(file).size;
  const heads = Array.from({ length: count }, (_, k) => {
    const id = `ds/ann/${first + k}.png.json`;
    return Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="f${k}"\r\n\r\n${JSON.stringify({ id, hash, type: 'annotation', format: 'supervisely' })}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="f${k}-file"; filename="a.json"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
  });
  const tail = Buffer.from(`--${boundary}--\r\n`);
  const length = heads.reduce((n, h) => n + h.length + size + 2, 0) + tail.length;
  async function* body() {
    for (const head of heads) {
      yield head;
      yield* fs.createReadStream(file, { highWaterMark: 1024 * 1024 });
      yield Buffer.from('\r\n');
    }
    yield tail;
  }
  const text = await new Promise<string>((resolve, reject) => {
    const request = http.request(
      `${url}/v1/tasks/import/files`,
      { method: 'POST', headers: { 'x-api-key': BENCH_API_KEY, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const answer = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode === 200) resolve(answer);
          else reject(new Error(`upload answered ${response.statusCode}: ${answer.slice(0, 500)}`));
        });
      },
    );
    request.on('error', reject);
    Readable.from(body()).pipe(request);
  });
  const results = JSON.parse(text) as { id: string; errors: unknown[] }[];
  const refused = results.filter((r) => r.errors.length > 0);
  if (results.length !== count || refused.length > 0) throw new Error(`upload refused files: ${JSON.stringify(refused.slice(0, 3))}`);
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      files: { type: 'string', default: '100' },
      'file-mb': { type: 'string', default: '60' },
      'per-request': { type: 'string', default: '10' },
      'in-flight': { type: 'string', default: '2' },
      'idle-seconds': { type: 'string', default: '5' },
      'server-root': { type: 'string' },
      'log-level': { type: 'string', default: 'warn' },
    },
  });
  const FILES = positive('files', args.files);
  const FILE_BYTES = positive('file-mb', args['file-mb']) * 1_000_000;
  const PER_REQUEST = Math.min(100, positive('per-request', args['per-request']));
  const IN_FLIGHT = positive('in-flight', args['in-flight']);
  const IDLE_MS = positive('idle-seconds', args['idle-seconds']) * 1000;
  const TARGET_P99_MS = 100;

  const file = path.join(BENCH_DIR, 'upload-stall', `annotation-${FILE_BYTES / 1_000_000}mb.json`);
  ensureAnnotation(file, FILE_BYTES);
  const hash = createHash('sha256').update(fs.readFileSync(file)).digest('base64');
  const dataDir = path.join(BENCH_DIR, 'upload-stall', 'data');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const server = await startAnnostore({ name: 'upload-stall', serverRoot: args['server-root'], dataDir, logLevel: args['log-level'] });
  try {
    progress(`idle server: sampling /healthz for ${IDLE_MS / 1000} s`);
    const idleSampler = await startSampler(server.url);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = await idleSampler.stop();

    progress(`uploading ${FILES} files of ${fmt(FILE_BYTES / 1e6)} MB, ${PER_REQUEST} a request, ${IN_FLIGHT} requests at once`);
    const rss = new RssSampler(server.pid);
    rss.start();
    const sampler = await startSampler(server.url);
    const start = performance.now();
    const requests = Array.from({ length: Math.ceil(FILES / PER_REQUEST) }, (_, r) => ({ first: r * PER_REQUEST, count: Math.min(PER_REQUEST, FILES - r * PER_REQUEST) }));
    let next = 0;
    let done = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < requests.length) {
          const { first, count } = requests[next++]!;
          await uploadCopies(server.url, file, hash, first, count);
          done += count;
          progress(`${done} of ${FILES} files accepted`);
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    const busy = await sampler.stop();
    rss.stop();

    console.log(`\n/healthz beside ${FILES} uploaded annotation files of ${fmt(FILE_BYTES / 1e6)} MB (${PER_REQUEST} a request, ${IN_FLIGHT} at once)\n`);
    printTable(
      ['/healthz', 'answers', 'p50 ms', 'p99 ms', 'max ms'],
      [
        ['idle server (floor)', String(idle.answers), fmt(idle.p50Ms, 1), fmt(idle.p99Ms, 1), fmt(idle.maxMs, 1)],
        ['during the uploads', String(busy.answers), fmt(busy.p50Ms, 1), fmt(busy.p99Ms, 1), fmt(busy.maxMs, 1)],
      ],
    );
    console.log(`\nupload: ${fmt(seconds, 1)} s, ${fmt((FILES * FILE_BYTES) / 1e6 / seconds, 1)} MB/s of files; server peak RSS ${fmt(rss.highWaterKb() / 1024)} MB`);
    console.log(`p99 during the uploads / idle p99: ${fmt(busy.p99Ms / idle.p99Ms, 1)}×\n`);
    const passed = verdict('/healthz p99 during the uploads', busy.p99Ms < TARGET_P99_MS, `${fmt(busy.p99Ms, 1)} ms (target < ${TARGET_P99_MS} ms)`);
    process.exitCode = passed ? 0 : 1;
  } finally {
    await server.stop();
  }
}

if (process.argv[2] === '--sample-health') await sampleHealth(process.argv[3]!);
else await main();
