// `annostore export` against a real server process: the archive it downloads is the project, read
// back by unzip and imported again by `annostore import`; refusals and bad keys have their exit codes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AnnostoreClient } from '../../src/client/index.ts';
import type { ImportSummary } from '../../src/client/import-folder.ts';
import type { Config } from '../../src/config.ts';
import { SuperviselyWriter } from '../../src/formats/supervisely/writer.ts';
import { scratchDir, writeAll, writeEntries } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { SAMPLE_PROJECT, sampleImages, sampleRecords } from '../helpers/export-samples.ts';
import { check2018Project } from '../helpers/supervisely-2018-rules.ts';
import { type ServerProcess, runCommand, runImport, startServerProcess } from '../helpers/server-process.ts';

const KEY = 'ak_cli-export-test-key-0123456789';
const sqlite = dialects.find((d) => d.name === 'sqlite')!;

describe('annostore export', () => {
  let config: Config;
  let server: ServerProcess;
  let projectId: number;
  let client: AnnostoreClient;

  before(async () => {
    config = sqlite.freshConfig();
    server = await startServerProcess({ DATA_DIR: config.dataDir, ANNOSTORE_API_KEY: KEY, TASK_POLL_MS: '50' });
    client = new AnnostoreClient({ url: server.url, key: KEY });
    const records = sampleRecords();
    const dir = scratchDir('cli-export-source');
    const writer = new SuperviselyWriter(SAMPLE_PROJECT, { includeImages: true });
    await writeEntries(await writeAll(writer, records), dir, sampleImages(records));
    await writer.close();
    const run = await runImport([dir, '--url', server.url, '--key', KEY, '--project', 'sample', '--json']);
    assert.equal(run.code, 0, run.stderr);
    projectId = (JSON.parse(run.stdout) as ImportSummary).projectId!;
  });
  after(async () => {
    await server?.kill();
    await sqlite.cleanup(config);
  });

  /** Every image's name and objects, as the API gives them, by name. */
  const annotationsOf = async (id: number) => {
    const all: { name: string; objects: unknown }[] = [];
    for await (const a of client.allAnnotations({ projectId: id })) all.push({ name: a.data.name, objects: a.data.objects });
    return all.sort((a, b) => a.name.localeCompare(b.name));
  };

  test('downloads the archive, which imports again as the same project', async () => {
    const cwd = scratchDir('cli-export-out');
    const run = await runCommand(['export', '--url', server.url, '--key', KEY, '--project', String(projectId), '--format', 'supervisely', '--json'], undefined, { cwd });
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout) as { status: string; file: string; size: number; taskId: number };
    assert.equal(summary.status, 'finished');
    assert.equal(summary.file, path.join(cwd, 'sample-supervisely.zip'));
    assert.equal(fs.statSync(summary.file).size, summary.size);
    assert.ok(!fs.existsSync(`${summary.file}.part`));
    const unpacked = scratchDir('cli-export-unpacked');
    execFileSync('unzip', ['-q', summary.file, '-d', unpacked]);
    const again = await runImport([unpacked, '--url', server.url, '--key', KEY, '--project', 'sample again', '--json']);
    assert.equal(again.code, 0, again.stderr);
    const copy = (JSON.parse(again.stdout) as ImportSummary).projectId!;
    assert.deepEqual(await annotationsOf(copy), await annotationsOf(projectId));
  });

  test('format options, --no-images and --out', async () => {
    const out = path.join(scratchDir('cli-export-yolo'), 'labels.zip');
    const run = await runCommand([
      'export', '--url', server.url, '--key', KEY, '--project-id', String(projectId), '--format', 'yolo', '--option', 'task=segment', '--no-images', '--out', out,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const names = execFileSync('unzip', ['-Z1', out], { encoding: 'utf8' }).trim().split('\n');
    assert.ok(names.includes('data.yaml'));
    assert.ok(!names.some((n) => n.startsWith('images/')), names.join(' '));
  });

  test('--option layout=2018 writes the 2018 Supervisely layout, which annostore import reads back', async () => {
    const out = path.join(scratchDir('cli-export-2018'), 'old.zip');
    const run = await runCommand(['export', '--url', server.url, '--key', KEY, '--project-id', String(projectId), '--format', 'supervisely', '--option', 'layout=2018', '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /note: tag values left out: the 2018 layout names tags only \(2, first train\/a\.jpg\)/);
    const unpacked = scratchDir('cli-export-2018-unpacked');
    execFileSync('unzip', ['-q', out, '-d', unpacked]);
    assert.deepEqual(check2018Project(unpacked), []);
    const again = await runImport([unpacked, '--url', server.url, '--key', KEY, '--project', 'sample 2018', '--json']);
    assert.equal(again.code, 0, again.stderr);
    const copy = (JSON.parse(again.stdout) as ImportSummary).projectId!;
    // a.png shares its stem with a.jpg: the 2018 layout names it a_1.png.
    const renamed = (await annotationsOf(projectId)).map((a) => (a.name === 'a.png' ? { ...a, name: 'a_1.png' } : a)).sort((a, b) => a.name.localeCompare(b.name));
    assert.deepEqual(await annotationsOf(copy), renamed);
  });

  test('--dataset exports those datasets alone', async () => {
    const datasets = await client.listDatasets({ projectId });
    assert.ok(datasets.length > 1, 'the sample has several datasets');
    const chosen = datasets[0]!;
    const out = path.join(scratchDir('cli-export-dataset'), 'one.zip');
    const run = await runCommand(['export', '--url', server.url, '--key', KEY, '--dataset', String(chosen.id), '--format', 'supervisely', '--no-images', '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    const names = execFileSync('unzip', ['-Z1', out], { encoding: 'utf8' }).trim().split('\n');
    const folders = new Set(names.filter((n) => n.includes('/ann/')).map((n) => n.slice(0, n.indexOf('/'))));
    assert.deepEqual([...folders], [chosen.title]);
  });

  test('--config runs a DTL graph from a file; a graph the server refuses is exit 1, said why', async () => {
    const dir = scratchDir('cli-export-dtl');
    const graph = path.join(dir, 'graph.json');
    fs.writeFileSync(
      graph,
      JSON.stringify([
        { action: 'data', src: ['sample/*'], dst: '$data', settings: { classes_mapping: 'default' } },
        { action: 'bbox', src: ['$data'], dst: '$boxes', settings: { classes_mapping: { __other__: '__default__' } } },
        { action: 'coco', src: ['$boxes'], dst: 'boxes', settings: { images: false } },
      ]),
    );
    const out = path.join(dir, 'boxes.zip');
    const run = await runCommand(['export', '--url', server.url, '--key', KEY, '--config', graph, '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    const names = execFileSync('unzip', ['-Z1', out], { encoding: 'utf8' }).trim().split('\n');
    assert.ok(names.some((n) => n.startsWith('annotations/') && n.endsWith('.json')), names.join(' '));
    fs.writeFileSync(graph, JSON.stringify([{ action: 'data', src: ['sample/*'], dst: '$data', settings: { classes_mapping: 'default' } }, { action: 'coco', src: ['$nothing'], dst: 'x', settings: {} }]));
    const refused = await runCommand(['export', '--url', server.url, '--key', KEY, '--config', graph, '--out', out]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /layer 1 \(coco\): no layer writes \$nothing/);
    const both = await runCommand(['export', '--url', server.url, '--key', KEY, '--config', graph, '--format', 'coco']);
    assert.equal(both.code, 2);
  });

  test('the client takes a download cut midway up from where it stopped', async () => {
    const { task } = await client.startExport({ projectId, format: 'pascal_voc' });
    assert.equal((await client.waitForTask(task.id, { intervalMs: 50 })).status, 'finished');
    const dir = scratchDir('cli-export-resume');
    const whole = path.join(dir, 'whole.zip');
    await client.downloadExport(task.id, whole);

    // The network, not the project: the first answer's connection breaks after 1,000 bytes.
    const resumed = path.join(dir, 'resumed.zip');
    const ranges: (string | null)[] = [];
    const flaky: typeof fetch = async (url, init) => {
      const response = await fetch(url, init);
      ranges.push(new Headers(init?.headers).get('range'));
      if (ranges.length > 1) return response;
      const reader = response.body!.getReader();
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent >= 1000) {
            // Once the bytes before the break are on disk: the resume starts after them.
            const deadline = Date.now() + 10_000;
            while (partSize(`${resumed}.part`) < 1000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
            return controller.error(new Error('connection reset'));
          }
          const { value, done } = await reader.read();
          if (done) return controller.close();
          const piece = value.subarray(0, 1000 - sent);
          sent += piece.length;
          controller.enqueue(piece);
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    await new AnnostoreClient({ url: server.url, key: KEY, fetch: flaky }).downloadExport(task.id, resumed);
    assert.deepEqual(ranges, [null, 'bytes=1000-']);
    assert.ok(fs.readFileSync(resumed).equals(fs.readFileSync(whole)));
    assert.ok(!fs.existsSync(`${resumed}.part`));
  });

  test('an option the format does not take: exit 1, said why; a bad key: exit 4', async () => {
    const refused = await runCommand(['export', '--url', server.url, '--key', KEY, '--project-id', String(projectId), '--format', 'coco', '--option', 'task=segment']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /unknown option "task" for format coco/);
    const badKey = await runCommand(['export', '--url', server.url, '--key', 'ak_not-a-key-of-this-server-000000', '--project-id', String(projectId), '--format', 'coco']);
    assert.equal(badKey.code, 4);
    const usage = await runCommand(['export', '--url', server.url, '--key', KEY, '--format', 'coco']);
    assert.equal(usage.code, 2);
  });
});

/** The size of a download's part file so far; 0 before it exists. */
const partSize = (file: string): number => (fs.existsSync(file) ? fs.statSync(file).size : 0);
