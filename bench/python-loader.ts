// annostore.torch.AnnostoreDataset through DataLoader(num_workers=2) from a warm cache, against a floor.
//
//   node --import tsx bench/python-loader.ts [--images 2000] [--rounds 3] [--batch 32] [--log-level warn]
//
// The data: N distinct 640×480 JPEGs (generated once under .bench/), uploaded to a fresh `annostore
// serve` with one rectangle each, frozen as a version. bench/python-loader.py (Debian's python3, its
// torch) then reads the version once to warm the cache, and in each round times one epoch of the floor
// and one of ours, both DataLoader(batch_size, num_workers=2) from a fresh start of the workers:
// - floor: a minimal Dataset that reads the same JPEG files from a local folder and decodes them with
//   the loader's own decode (torchvision's decode_image), no target;
// - ours: AnnostoreDataset (detection), every image read from its cache, with its target.
// Targets: ours ≥ 70% of the floor, and ≥ 1,000 images/s. Reported beside: images per CPU-second of
// each (the parent's and its workers' CPU time), and two ceilings measured in one process without
// workers: the same files decoded in a tight loop, and that with each batch handed over as a worker
// hands it (pickled to shared memory, unpickled); two idle cores give at most twice either, and carry
// ours at most at twice its images per CPU-second.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { BENCH_API_KEY, BENCH_DIR, ROOT, api, startAnnostore } from './harness.ts';

const RATIO_TARGET = 0.7;
const RATE_TARGET = 1000;
const PYTHON = process.env.ANNOSTORE_PYTHON ?? '/usr/bin/python3';

const { values: args } = parseArgs({
  options: {
    images: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '3' },
    batch: { type: 'string', default: '32' },
    'log-level': { type: 'string', default: 'warn' },
  },
});
const IMAGES = Number(args.images);
const ROUNDS = Number(args.rounds);
const BATCH = Number(args.batch);
if (!(IMAGES > 0 && ROUNDS > 0 && BATCH > 0)) throw new Error('usage: --images N --rounds N --batch N');

const log = (message: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);

/** N distinct 640×480 JPEGs of quality 85: a smooth picture (a small noise upscaled) with fine grain, as photos are. */
async function jpegFolder(): Promise<string> {
  const dir = path.join(BENCH_DIR, `python-loader-${IMAGES}`);
  const done = path.join(dir, '.complete');
  if (fs.existsSync(done)) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < IMAGES; i += 1) {
    const coarse = Buffer.alloc(40 * 30 * 3);
    for (let k = 0; k < coarse.length; k += 1) coarse[k] = (k * 7919 + i * 104_729 + ((k * i) % 251)) % 256;
    const jpeg = await sharp(coarse, { raw: { width: 40, height: 30, channels: 3 } })
      .resize(640, 480, { kernel: 'cubic' })
      .jpeg({ quality: 85 })
      .toBuffer();
    fs.writeFileSync(path.join(dir, `img_${String(i).padStart(5, '0')}.jpg`), jpeg);
  }
  fs.writeFileSync(done, '');
  return dir;
}

async function seed(url: string, folder: string): Promise<{ projectId: number }> {
  const server = { url };
  const project = await api<{ id: number }>(server, 'POST', '/v2/projects', { title: 'python-loader' });
  await api(server, 'POST', `/v2/projects/${project.id}/classes`, { title: 'thing', shape: 'rectangle', color: '#00AA00' });
  const dataset = await api<{ id: number }>(server, 'POST', `/v2/projects/${project.id}/datasets`, { title: 'all' });
  const files = fs.readdirSync(folder).filter((f) => f.endsWith('.jpg')).sort();
  const ids: number[] = [];
  for (let start = 0; start < files.length; start += 100) {
    const form = new FormData();
    for (const name of files.slice(start, start + 100)) form.append('file', new Blob([fs.readFileSync(path.join(folder, name))]), name);
    const res = await fetch(`${url}/v2/datasets/${dataset.id}/images`, { method: 'POST', headers: { 'x-api-key': BENCH_API_KEY }, body: form });
    if (!res.ok) throw new Error(`upload: ${res.status} ${await res.text()}`);
    ids.push(...((await res.json()) as { items: { id: number }[] }).items.map((i) => i.id));
  }
  log(`uploaded ${ids.length} images`);
  for (const [i, id] of ids.entries()) {
    const x = (i * 37) % 500;
    await api(server, 'PUT', `/v2/images/${id}/annotation`, { objects: [{ classTitle: 'thing', points: { exterior: [[x, 40], [x + 120, 300]], interior: [] } }] });
  }
  await api(server, 'POST', `/v2/projects/${project.id}/versions`, { name: 'bench' });
  return { projectId: project.id };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const probe = spawnSync(PYTHON, ['-c', 'import torch, torchvision, numpy, PIL'], { encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(`${PYTHON} lacks torch, torchvision, numpy or PIL (apt-get install python3-torch python3-torchvision python3-numpy python3-pil)`);
  const folder = await jpegFolder();
  const dataDir = path.join(BENCH_DIR, 'python-loader-data');
  const cache = path.join(BENCH_DIR, 'python-loader-cache');
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(cache, { recursive: true, force: true });
  const server = await startAnnostore({ name: 'python-loader', dataDir, logLevel: args['log-level'] });
  try {
    const { projectId } = await seed(server.url, folder);
    log('timing the loaders');
    const run = spawnSync(PYTHON, [path.join(ROOT, 'bench', 'python-loader.py'), server.url, BENCH_API_KEY, String(projectId), 'bench', folder, cache, String(ROUNDS), String(BATCH)], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
      maxBuffer: 1 << 24,
    });
    if (run.status !== 0) throw new Error(`python-loader.py failed:\n${run.stdout}\n${run.stderr}`);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { ours: number[]; floor: number[]; oursCpu: number[]; floorCpu: number[]; decodeCpu: number[]; serialCpu: number[]; images: number };
    const ratios = result.ours.map((rate, i) => rate / result.floor[i]!);
    const ours = median(result.ours);
    const ratio = median(ratios);
    const fmt = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');
    console.log(`${result.images} JPEGs of 640×480, batch ${BATCH}, DataLoader(num_workers=2), ${ROUNDS} rounds`);
    console.log(`floor (local folder, same decode): ${fmt(result.floor)} images/s, median ${median(result.floor).toFixed(0)}`);
    console.log(`ours (AnnostoreDataset, warm cache): ${fmt(result.ours)} images/s, median ${ours.toFixed(0)}`);
    console.log(`images per CPU-second: floor ${fmt(result.floorCpu)}, ours ${fmt(result.oursCpu)}`);
    const decode = median(result.decodeCpu);
    const serial = median(result.serialCpu);
    console.log(`one process, no workers, images per CPU-second: decode ${fmt(result.decodeCpu)}; decode and hand-over ${fmt(result.serialCpu)}`);
    console.log(`ceiling on two idle cores: ${(2 * decode).toFixed(0)} images/s decoding alone, ${(2 * serial).toFixed(0)} with the hand-over, ${(2 * median(result.oursCpu)).toFixed(0)} for ours at its CPU cost`);
    console.log(`ours / floor: ${ratios.map((r) => `${(r * 100).toFixed(0)}%`).join(', ')}; median ${(ratio * 100).toFixed(0)}% (target ≥ ${RATIO_TARGET * 100}%)`);
    console.log(`images/s: ${ours >= RATE_TARGET ? 'pass' : 'FAIL'} (${ours.toFixed(0)} against ≥ ${RATE_TARGET}); ratio: ${ratio >= RATIO_TARGET ? 'pass' : 'FAIL'}`);
    process.exitCode = ratio >= RATIO_TARGET && ours >= RATE_TARGET ? 0 : 1;
  } finally {
    await server.stop();
  }
}

await main();
