// GET /metrics: off unless METRICS_TOKEN is set, refused without the token, and in the Prometheus
// text format; request counts by route pattern, tasks and the queue read from the database, and the
// import counter moving while a real import runs.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { startWorkerProcess } from '../../src/worker.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { dialects } from '../helpers/dialects.ts';
import { hashOf } from '../helpers/factories.ts';
import { type ProjectFile, startImportRunner, uploadProject, waitForTask } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const TOKEN = 'scrape-token-0123456789';
const IMAGES = 300;
const defaults = loadConfig({});
const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

/** The value of one sample of a Prometheus text exposition, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = new Map([...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    if (wanted.every(([k, v]) => present.get(k) === v)) return Number(match[3]);
  }
  return undefined;
}

describe('GET /metrics without METRICS_TOKEN', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(dialects[0]!);
  });
  after(async () => t?.close());

  test('is not served at all (404), with or without a token', async () => {
    assert.equal((await t.request({ method: 'GET', url: '/metrics', key: null })).statusCode, 404);
    assert.equal((await t.request({ method: 'GET', url: '/metrics', key: null, headers: { authorization: `Bearer ${TOKEN}` } })).statusCode, 404);
  });
});

describe('GET /metrics of an `annostore worker` (WORKER_METRICS_PORT)', () => {
  test('serves the same metrics behind the same token, and nothing else', async () => {
    const sqlite = dialects[0]!;
    const config = sqlite.freshConfig({ host: '127.0.0.1', logLevel: 'silent', operations: { ...defaults.operations, metricsToken: TOKEN, workerMetricsPort: 0 } });
    const worker = await startWorkerProcess(config);
    try {
      assert.ok(worker.metricsUrl, 'the worker serves /metrics');
      assert.equal((await fetch(worker.metricsUrl)).status, 401);
      const res = await fetch(worker.metricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.equal(sample(text, 'annostore_import_images_total'), 0);
      assert.equal(sample(text, 'annostore_tasks', { type: 'import', status: 'queued' }), 0);
      assert.ok(sample(text, 'process_resident_memory_bytes')! > 0);
      assert.equal((await fetch(worker.metricsUrl.replace('/metrics', '/v2/me'), { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404);
    } finally {
      await worker.stop();
      await sqlite.cleanup(config);
    }
  });

  test('without WORKER_METRICS_PORT, or without METRICS_TOKEN, the worker serves nothing', async () => {
    const sqlite = dialects[0]!;
    for (const operations of [{ ...defaults.operations, metricsToken: TOKEN }, { ...defaults.operations, workerMetricsPort: 0 }]) {
      const config = sqlite.freshConfig({ logLevel: 'silent', operations });
      const worker = await startWorkerProcess(config);
      assert.equal(worker.metricsUrl, undefined);
      await worker.stop();
      await sqlite.cleanup(config);
    }
  });
});

for (const dialect of dialects) {
  describe(`GET /metrics on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner | undefined;
    let importedProjectId = 0;
    let exportRunner: TaskRunner | undefined;
    before(async () => {
      // Small batches: the import commits often enough to be seen half done.
      t = await startTestApp(dialect, { operations: { ...defaults.operations, metricsToken: TOKEN }, tasks: { ...defaults.tasks, importBatchSize: 10 } });
    });
    after(async () => {
      await runner?.stop();
      await exportRunner?.stop();
      await t?.close();
    });

    const scrape = async (): Promise<string> => {
      const res = await t.request({ method: 'GET', url: '/metrics', key: null, headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(res.statusCode, 200, res.body);
      return res.body;
    };

    test('asks for the token: none, another or a malformed one is a 401', async () => {
      for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, TOKEN, `Basic ${TOKEN}`]) {
        const res = await t.request({ method: 'GET', url: '/metrics', key: null, headers: authorization ? { authorization } : {} });
        assert.equal(res.statusCode, 401, String(authorization));
        assert.equal(res.headers['www-authenticate'], 'Bearer');
        assert.ok(!res.body.includes('annostore_'), 'no metric leaks in a refusal');
      }
      // An API key is not the token, even an admin's.
      assert.equal((await t.request({ method: 'GET', url: '/metrics', key: t.adminKey })).statusCode, 401);
    });

    test('answers the Prometheus text format with the process’s memory', async () => {
      const res = await t.request({ method: 'GET', url: '/metrics', key: null, headers: { authorization: `bearer ${TOKEN}` } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
      assert.match(res.body, /^# HELP annostore_http_requests_total /m);
      assert.match(res.body, /^# TYPE annostore_http_request_duration_seconds histogram$/m);
      assert.ok(sample(res.body, 'process_resident_memory_bytes')! > 0);
      assert.ok(sample(res.body, 'nodejs_heap_size_used_bytes')! > 0);
    });

    test('counts requests by method, route pattern and status, never by raw URL', async () => {
      const created = await t.request({ method: 'POST', url: '/v2/projects', payload: { title: 'counted' } });
      const id = json<{ id: number }>(created).id;
      const route = { method: 'GET', route: '/v2/projects/:id', status: '200' };
      const before = sample(await scrape(), 'annostore_http_requests_total', route) ?? 0;
      for (let i = 0; i < 3; i += 1) assert.equal((await t.request({ method: 'GET', url: `/v2/projects/${id}?n=${i}` })).statusCode, 200);
      await t.request({ method: 'GET', url: `/v2/projects/${id + 1000}` });
      await t.request({ method: 'GET', url: '/v2/no/such/route/1' });
      await t.request({ method: 'GET', url: '/v2/no/such/route/2' });
      await t.request({ method: 'GET', url: '/v2/projects/%E0%A4%A' });
      const text = await scrape();
      assert.equal(sample(text, 'annostore_http_requests_total', route), before + 3);
      assert.equal(sample(text, 'annostore_http_request_duration_seconds_count', route), before + 3);
      assert.equal(sample(text, 'annostore_http_requests_total', { method: 'GET', route: '/v2/projects/:id', status: '404' }), 1);
      assert.equal(sample(text, 'annostore_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 2);
      assert.equal(sample(text, 'annostore_http_requests_total', { method: 'GET', route: 'unmatched', status: '400' }), 1);
      assert.equal(sample(text, 'annostore_http_requests_total', { method: 'POST', route: '/v2/projects', status: '201' }), 1);
      assert.ok(!text.includes(`/v2/projects/${id}"`), 'a raw URL became a label');
      assert.ok(!text.includes('/v2/no/such'), 'an unmatched URL became a label');
    });

    test('counts failed database statements and blob store calls', async () => {
      const before = await scrape();
      await assert.rejects(sql`select * from no_such_table`.execute(t.ctx.db.kysely));
      await assert.rejects(t.ctx.blobs.readBytes(hashOf(Buffer.from('never stored'))));
      const after = await scrape();
      const other = { kind: 'other' };
      assert.equal(sample(after, 'annostore_database_errors_total', other), (sample(before, 'annostore_database_errors_total', other) ?? 0) + 1);
      assert.equal(sample(after, 'annostore_blob_store_errors_total', { operation: 'readBytes' }), 1);
    });

    test('the queue counts a queued task; scraped during an import, the counts move', async () => {
      const files: ProjectFile[] = [{ path: 'meta.json', type: 'class', content: Buffer.from(JSON.stringify({ classes: [] })) }];
      // Annotated, as real imports are: the task reads each annotation from the store, and so lets
      // requests in between its batches.
      const annotation = Buffer.from(JSON.stringify({ description: '', tags: [], size: { width: 4, height: 4 }, objects: [] }));
      for (let i = 0; i < IMAGES; i += 1) {
        files.push({ path: `ds/img/${i}.png`, type: 'image', content: await pngImage(4, 4, i) });
        files.push({ path: `ds/ann/${i}.png.json`, type: 'annotation', content: annotation });
      }
      const refs = await uploadProject(t, files);
      const started = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'scraped' }, preset: 1, files: refs } });
      assert.equal(started.statusCode, 200, started.body);
      const taskId = json<{ taskId: number }>(started).taskId;

      // No worker yet: the task waits in the queue.
      await sleep(20);
      const queued = await scrape();
      assert.equal(sample(queued, 'annostore_task_queue_depth', { type: 'import' }), 1);
      assert.equal(sample(queued, 'annostore_tasks', { type: 'import', status: 'queued' }), 1);
      assert.equal(sample(queued, 'annostore_tasks', { type: 'import', status: 'finished' }), 0);
      assert.ok(sample(queued, 'annostore_task_queue_oldest_age_seconds')! > 0);
      assert.equal(sample(queued, 'annostore_import_images_total'), 0);

      runner = startImportRunner(t);
      const seen: { imported: number; started: number }[] = [];
      for (;;) {
        const text = await scrape();
        seen.push({ imported: sample(text, 'annostore_import_images_total')!, started: sample(text, 'annostore_tasks', { type: 'import', status: 'started' })! });
        if (['finished', 'error', 'stopped'].some((status) => sample(text, 'annostore_tasks', { type: 'import', status }) === 1)) break;
        // As a scraper does, now and then: injected requests back to back would never let the
        // task's file reads complete.
        await sleep(5);
        assert.ok(seen.length < 2000, `the import did not finish: ${JSON.stringify(seen.slice(-3))} ${(await t.request({ method: 'GET', url: `/v2/tasks/${taskId}` })).body}`);
      }
      const finished = await waitForTask(t, taskId);
      assert.equal(finished.status, 'finished');
      importedProjectId = finished.meta.project.id as number;
      const during = seen.filter((s) => s.started === 1);
      assert.ok(during.length > 0, `no scrape saw the task running: ${JSON.stringify(seen)}`);
      const partial = new Set(during.map((s) => s.imported).filter((n) => n > 0 && n < IMAGES));
      assert.ok(partial.size >= 2, `the counter was seen at ${[...partial].join(', ')} while the import ran; expected it to move`);
      assert.deepEqual(
        seen.map((s) => s.imported),
        seen.map((s) => s.imported).toSorted((a, b) => a - b),
        'the counter never goes back',
      );

      const done = await scrape();
      assert.equal(sample(done, 'annostore_import_images_total'), IMAGES);
      assert.equal(sample(done, 'annostore_tasks', { type: 'import', status: 'finished' }), 1);
      assert.equal(sample(done, 'annostore_tasks', { type: 'import', status: 'started' }), 0);
      assert.equal(sample(done, 'annostore_task_queue_depth', { type: 'import' }), 0);
    });

    test('an export counts the images it writes', async () => {
      assert.ok(importedProjectId > 0, 'the import test ran first');
      // A runner claims tasks of any type: the import's runner would fail an export it cannot run.
      await runner?.stop();
      runner = undefined;
      exportRunner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
      const started = await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId: importedProjectId, format: 'coco' } });
      assert.equal(started.statusCode, 201, started.body);
      const id = json<{ task: { id: number } }>(started).task.id;
      const deadline = Date.now() + 30_000;
      let status = '';
      while (!['finished', 'error', 'stopped'].includes(status)) {
        assert.ok(Date.now() < deadline, 'the export did not finish');
        await sleep(20);
        status = json<{ status: string }>(await t.request({ method: 'GET', url: `/v2/tasks/${id}` })).status;
      }
      assert.equal(status, 'finished');
      const text = await scrape();
      assert.equal(sample(text, 'annostore_export_images_total'), IMAGES);
      assert.equal(sample(text, 'annostore_tasks', { type: 'export', status: 'finished' }), 1);
    });
  });
}
