// `annostore import DIR` from folder to finished task, against the upload floor.
//
//   node --import tsx bench/client-import.ts [--images 2000] [--rounds 3] [--concurrency 4]
//                                            [--db sqlite|postgres] [--database-url URL]
//
// The folder: a Supervisely project of N distinct ~200 KiB noise PNGs (generated once under .bench/),
// meta.json and one small annotation per image. Each round runs the real command as a child process
// against a fresh `annostore serve` (API and worker in one process, fresh DATA_DIR) and times it from
// start to exit (hashing, check-images, uploads, the import task).
// The floor: the same files, already in memory, sent in requests of 100 files (the command sends as
// many requests, each image with its annotation), the same number in flight, to
// bench/import-floor.ts, the bare multipart server of bench/import.ts that only streams each part to
// disk while hashing it. Reported: seconds and the floor's time as a share of ours.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import sharp from 'sharp';
import { BENCH_API_KEY, BENCH_DIR, ROOT, settleDisk, startServer } from './harness.ts';

const TARGET = 0.7;

const { values: args } = parseArgs({
  options: {
    images: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '4' },
    db: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
const IMAGES = Number(args.images);
const ROUNDS = Number(args.rounds);
const CONCURRENCY = Number(args.concurrency);
const SCHEMA = 'bench_client_import';
if (!(IMAGES > 0 && ROUNDS > 0 && CONCURRENCY > 0) || !['sqlite', 'postgres'].includes(args.db)) {
  throw new Error('usage: --images N --rounds N --concurrency N --db sqlite|postgres');
}

const log = (message: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);

/** The project folder, generated once: meta.json, ds0/img/*.png (~200 KiB of noise), ds0/ann/*.json. */
async function projectFolder(): Promise<string> {
  const dir = path.join(BENCH_DIR, `client-import-${IMAGES}`);
  const done = path.join(dir, '.complete');
  if (fs.existsSync(done)) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'ds0', 'img'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'ds0', 'ann'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ classes: [{ title: 'car', shape: 'rectangle', color: '#00AA00' }], tags_images: [], tags_objects: [] }));
  for (let i = 0; i < IMAGES; i += 1) {
    const name = `img_${String(i).padStart(5, '0')}.png`;
    // 264×264 RGB noise: ~209 KB of pixels that PNG cannot compress.
    const png = await sharp(randomBytes(264 * 264 * 3), { raw: { width: 264, height: 264, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer();
    fs.writeFileSync(path.join(dir, 'ds0', 'img', name), png);
    const objects = [{ classTitle: 'car', description: '', tags: [], bitmap: null, points: { exterior: [[i % 200, 10], [i % 200 + 50, 90]], interior: [] } }];
    fs.writeFileSync(path.join(dir, 'ds0', 'ann', `${name}.json`), JSON.stringify({ description: '', tags: [], size: { width: 264, height: 264 }, objects }));
    if (i % 500 === 499) log(`generated ${i + 1} / ${IMAGES} images`);
  }
  fs.writeFileSync(done, '');
  return dir;
}

/** Every file of the folder, as the floor sends them: multipart bodies of 100 files, built in memory up front. */
function floorRequests(dir: string): { body: Buffer; type: string }[] {
  const files = ['meta.json'];
  for (const sub of ['img', 'ann']) for (const name of fs.readdirSync(path.join(dir, 'ds0', sub)).sort()) files.push(`ds0/${sub}/${name}`);
  const requests = [];
  for (let start = 0; start < files.length; start += 100) {
    const boundary = `----floor${randomBytes(8).toString('hex')}`;
    const chunks: Buffer[] = [];
    files.slice(start, start + 100).forEach((file, j) => {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f${j}"\r\n\r\n${JSON.stringify({ id: file, type: 'image', format: 'supervisely' })}\r\n`));
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f${j}-file"; filename="${path.basename(file)}"\r\n\r\n`));
      chunks.push(fs.readFileSync(path.join(dir, file)), Buffer.from('\r\n'));
    });
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    requests.push({ body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` });
  }
  return requests;
}

async function floorSeconds(requests: { body: Buffer; type: string }[], runDir: string): Promise<number> {
  const floor = await startServer('client-import-floor', ['--import', 'tsx', path.join(ROOT, 'bench', 'import-floor.ts'), '--dir', path.join(runDir, 'floor')], {});
  try {
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < requests.length) {
        const r = requests[next++]!;
        const res = await fetch(`${floor.url}/upload`, { method: 'POST', headers: { 'content-type': r.type }, body: r.body });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`floor answered ${res.status}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return (performance.now() - started) / 1000;
  } finally {
    await floor.stop();
  }
}

async function dropSchema(): Promise<void> {
  const client = new pg.Client({ connectionString: args['database-url'] });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${SCHEMA} cascade`);
  } finally {
    await client.end();
  }
}

interface Summary {
  imagesUploaded: number;
  bytesUploaded: number;
  status: string;
  seconds: number;
}

async function clientSeconds(dir: string, runDir: string): Promise<{ wall: number; summary: Summary }> {
  if (args.db === 'postgres') await dropSchema();
  const server = await startServer('client-import-server', [path.join(ROOT, 'bin', 'annostore.js'), 'serve'], {
    LOG_LEVEL: 'warn',
    DATA_DIR: path.join(runDir, 'data'),
    ANNOSTORE_API_KEY: BENCH_API_KEY,
    TASK_POLL_MS: '50',
    ...(args.db === 'postgres' ? { DATABASE_URL: args['database-url'], DATABASE_SCHEMA: SCHEMA } : {}),
  });
  try {
    const started = performance.now();
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'annostore.js'), 'import', dir, '--url', server.url, '--key', BENCH_API_KEY, '--json', '--concurrency', String(CONCURRENCY)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const wall = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`annostore import exited ${code}:\n${stderr}`);
    return { wall, summary: JSON.parse(stdout.trim().split('\n').pop()!) as Summary };
  } finally {
    await server.stop();
  }
}

const dir = await projectFolder();
const requests = floorRequests(dir);
const totalMb = requests.reduce((n, r) => n + r.body.length, 0) / 1e6;
console.log(`annostore import: ${IMAGES} images + annotations (${totalMb.toFixed(1)} MB in ${requests.length} requests of 100 files), ${CONCURRENCY} in flight, ${args.db}, ${ROUNDS} rounds`);
const ours: number[] = [];
const inside: number[] = [];
const floors: number[] = [];
for (let round = 1; round <= ROUNDS; round += 1) {
  const runDir = path.join(BENCH_DIR, 'client-import-run');
  // The floor and ours take turns going first.
  for (const which of round % 2 ? ['ours', 'floor'] : ['floor', 'ours']) {
    fs.rmSync(runDir, { recursive: true, force: true });
    settleDisk();
    if (which === 'floor') floors.push(await floorSeconds(requests, runDir));
    else {
      const { wall, summary } = await clientSeconds(dir, runDir);
      if (summary.status !== 'finished' || summary.imagesUploaded !== IMAGES) throw new Error(`unexpected summary ${JSON.stringify(summary)}`);
      ours.push(wall);
      inside.push(summary.seconds);
    }
  }
  fs.rmSync(runDir, { recursive: true, force: true });
  log(`round ${round}: annostore import ${ours.at(-1)!.toFixed(2)} s (in-process ${inside.at(-1)!.toFixed(2)} s), floor ${floors.at(-1)!.toFixed(2)} s`);
}
if (args.db === 'postgres') await dropSchema();
const best = (xs: number[]) => Math.min(...xs);
const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
console.log(`annostore import, folder to finished task: best ${best(ours).toFixed(2)} s = ${(totalMb / best(ours)).toFixed(1)} MB/s (${list(ours)} s; in-process ${list(inside)} s)`);
console.log(`upload floor (same files, same requests, bare multipart server): best ${best(floors).toFixed(2)} s = ${(totalMb / best(floors)).toFixed(1)} MB/s (${list(floors)} s)`);
const ratio = best(floors) / best(ours);
console.log(`${ratio >= TARGET ? 'PASS' : 'FAIL'} client import: ${(ratio * 100).toFixed(1)}% of the floor's throughput (target >= ${TARGET * 100}%)`);
process.exitCode = ratio >= TARGET ? 0 : 1;
