// Exports through the real app on both databases: a project with every shape exported in each format,
// downloaded, unpacked and imported again; stops, ranges, tenancy and refusals.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { SuperviselyWriter } from '../../src/formats/supervisely/writer.ts';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import { expireExports } from '../../src/services/export-retention.service.ts';
import { archiveKey } from '../../src/storage/archive-store.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { scratchDir, writeAll, writeEntries } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { type ImportFormat, importFolder, readExport } from '../helpers/export-round-trip.ts';
import { SAMPLE_PROJECT, sampleImages, sampleRecords } from '../helpers/export-samples.ts';
import { bulkImages } from '../helpers/bulk-images.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import type { TaskBody } from '../helpers/importing.ts';
import { startS3 } from '../helpers/s3.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface ExportAnswer {
  task: TaskBody;
  archive: { size: number } | null;
}

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

for (const dialect of dialects) {
  describe(`exports API on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner;
    let projectId: number;
    let projectTitle: string;

    before(async () => {
      t = await startTestApp(dialect);
      runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
      // The sample project (every shape, tags with and without values) made by a real import.
      const records = sampleRecords();
      const dir = scratchDir('export-source');
      const writer = new SuperviselyWriter(SAMPLE_PROJECT, { includeImages: true });
      await writeEntries(await writeAll(writer, records), dir, sampleImages(records));
      await writer.close();
      ({ projectId } = await importFolder(t, dir, 'supervisely'));
      projectTitle = (await readExport(t, projectId)).project.title;
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    const post = (payload: unknown, key?: string) => t.request({ method: 'POST', url: '/v2/exports', payload: payload as object, ...(key ? { key } : {}) });

    async function waitForExport(id: number, statuses = ['finished', 'error', 'stopped']): Promise<ExportAnswer> {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const res = await t.request({ method: 'GET', url: `/v2/exports/${id}` });
        assert.equal(res.statusCode, 200, res.body);
        const answer = json<ExportAnswer>(res);
        if (statuses.includes(answer.task.status)) return answer;
        if (Date.now() > deadline) assert.fail(`export ${id} still ${answer.task.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    /** Starts an export, waits for it to finish and downloads its archive. */
    async function exportArchive(format: string, options: Record<string, unknown> = {}): Promise<{ id: number; bytes: Buffer; answer: ExportAnswer }> {
      const res = await post({ projectId, format, options });
      assert.equal(res.statusCode, 201, res.body);
      const id = json<ExportAnswer>(res).task.id;
      const answer = await waitForExport(id);
      assert.equal(answer.task.status, 'finished', JSON.stringify(answer.task.meta));
      const download = await t.request({ method: 'GET', url: `/v2/exports/${id}/archive` });
      assert.equal(download.statusCode, 200);
      assert.equal(download.headers['content-type'], 'application/zip');
      assert.equal(download.headers['accept-ranges'], 'bytes');
      assert.equal(download.headers['x-content-type-options'], 'nosniff');
      assert.equal(
        download.headers['content-disposition'],
        `attachment; filename="${projectTitle}-${format}.zip"; filename*=UTF-8''${encodeURIComponent(`${projectTitle}-${format}.zip`)}`,
      );
      assert.equal(Number(download.headers['content-length']), download.rawPayload.length);
      assert.equal(answer.archive?.size, download.rawPayload.length);
      assert.ok(download.headers.etag);
      return { id, bytes: download.rawPayload, answer };
    }

    /** The archive unpacked by Info-ZIP's unzip, which also checks every CRC. */
    function unpack(bytes: Buffer, label: string): string {
      const dir = scratchDir(`export-${label}`);
      const file = path.join(dir, '..', `${path.basename(dir)}.zip`);
      fs.writeFileSync(file, bytes);
      execFileSync('unzip', ['-q', file, '-d', dir]);
      fs.rmSync(file);
      return dir;
    }

    test('Supervisely: the archive imported again is the same project, object for object', async () => {
      const { bytes, answer } = await exportArchive('supervisely');
      const meta = answer.task.meta;
      assert.equal(answer.task.type, 'export');
      assert.deepEqual(meta.settings, { batchSize: 200, nodesCount: 1 });
      assert.deepEqual(meta.path, { bucket: t.ctx.archives.bucket, objectName: archiveKey(await teamOf(t), answer.task.id) });
      assert.deepEqual(
        meta.config.map((l: { action: string; src: string[]; dst: string }) => [l.action, l.src, l.dst]),
        [
          ['data', [`${projectTitle}/*`], '$data'],
          ['save', ['$data'], meta.name],
        ],
      );
      assert.deepEqual(meta.progress, { done: 4, total: 4 });
      const again = await importFolder(t, unpack(bytes, 'sly'), 'supervisely');
      const source = await readExport(t, projectId);
      const copy = await readExport(t, again.projectId);
      assert.deepEqual(copy.records, source.records);
      assert.deepEqual(copy.project.classes, source.project.classes);
      assert.deepEqual(copy.project.tags, source.project.tags);
    });

    test('masks: the Supervisely project beside its masks, imported again exactly but for the names kept apart', async () => {
      const { bytes, answer } = await exportArchive('masks');
      // a.jpg and a.png would share a mask: one of them is renamed, and the task says so.
      assert.deepEqual(answer.task.meta.notices.map((n: { count: number }) => n.count), [1]);
      const dir = unpack(bytes, 'masks');
      assert.ok(fs.existsSync(path.join(dir, 'obj_class_to_machine_color.json')));
      const again = await importFolder(t, dir, 'supervisely', (p) => /(^|\/)masks_(machine|human)\//.test(p) || p === 'obj_class_to_machine_color.json');
      const unnamed = (records: { name: string }[]) => records.map(({ name: _name, ...rest }) => rest);
      assert.deepEqual(unnamed((await readExport(t, again.projectId)).records), unnamed((await readExport(t, projectId)).records));
    });

    for (const format of ['coco', 'yolo', 'pascal_voc'] as const satisfies ImportFormat[]) {
      test(`${format}: the archive imports again with the format's preset, every image in it`, async () => {
        const { bytes, answer } = await exportArchive(format);
        assert.ok(Array.isArray(answer.task.meta.notices));
        const again = await importFolder(t, unpack(bytes, format), format);
        const copy = await readExport(t, again.projectId);
        const source = await readExport(t, projectId);
        assert.equal(copy.records.length, source.records.length);
        assert.deepEqual(new Set(copy.records.map((r) => r.hash)), new Set(source.records.map((r) => r.hash)));
        // Every box the source has comes back as an object of its class.
        const count = (records: typeof source.records, cls: string) => records.reduce((n, r) => n + r.objects.filter((o) => o.classTitle === cls).length, 0);
        assert.equal(count(copy.records, 'car'), count(source.records, 'car'));
      });
    }

    test('options: without images, only annotated images, some classes', async () => {
      const { bytes, answer } = await exportArchive('supervisely', { includeImages: false, onlyAnnotated: true, classes: ['car'] });
      const dir = unpack(bytes, 'options');
      const files = (fs.readdirSync(dir, { recursive: true }) as string[]).map((p) => p.split(path.sep).join('/'));
      assert.ok(!files.some((f) => f.includes('/img/')), 'no image files');
      const source = await readExport(t, projectId);
      const withCars = source.records.filter((r) => r.objects.some((o) => o.classTitle === 'car'));
      const annotations = files.filter((f) => f.includes('/ann/')).sort();
      assert.deepEqual(annotations, withCars.map((r) => `${r.dataset}/ann/${r.name}.json`).sort());
      const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) as { classes: { title: string }[] };
      assert.deepEqual(meta.classes.map((c) => c.title), ['car']);
      assert.deepEqual(answer.task.meta.config.map((l: { action: string }) => l.action), ['data', 'drop_obj_by_class', 'save']);
    });

    test('a ranged download in two parts is the archive; a range past its end is a 416', async () => {
      const { id, bytes } = await exportArchive('coco');
      const half = Math.floor(bytes.length / 2);
      const first = await t.request({ method: 'GET', url: `/v2/exports/${id}/archive`, headers: { range: `bytes=0-${half - 1}` } });
      const second = await t.request({ method: 'GET', url: `/v2/exports/${id}/archive`, headers: { range: `bytes=${half}-` } });
      assert.equal(first.statusCode, 206);
      assert.equal(second.statusCode, 206);
      assert.equal(first.headers['content-range'], `bytes 0-${half - 1}/${bytes.length}`);
      assert.equal(second.headers['content-range'], `bytes ${half}-${bytes.length - 1}/${bytes.length}`);
      assert.ok(Buffer.concat([first.rawPayload, second.rawPayload]).equals(bytes));
      const one = await t.request({ method: 'GET', url: `/v2/exports/${id}/archive`, headers: { range: 'bytes=0-0' } });
      assert.equal(one.statusCode, 206);
      assert.ok(one.rawPayload.equals(bytes.subarray(0, 1)));
      const past = await t.request({ method: 'GET', url: `/v2/exports/${id}/archive`, headers: { range: `bytes=${bytes.length}-` } });
      assert.equal(past.statusCode, 416);
      assert.equal(past.headers['content-range'], `bytes */${bytes.length}`);
    });

    test('Authorization: Bearer works as x-api-key does; a read-only key reads but does not export', async () => {
      const viaBearer = await t.request({ method: 'POST', url: '/v2/exports', key: null, headers: { authorization: `Bearer ${t.key}` }, payload: { projectId, format: 'yolo' } });
      assert.equal(viaBearer.statusCode, 201, viaBearer.body);
      const id = json<ExportAnswer>(viaBearer).task.id;
      const readOnly = await post({ projectId, format: 'yolo' }, t.readOnlyKey);
      assert.equal(readOnly.statusCode, 403);
      assert.equal(json<{ code: string }>(readOnly).code, 'FORBIDDEN');
      assert.equal((await t.request({ method: 'GET', url: `/v2/exports/${id}`, key: t.readOnlyKey })).statusCode, 200);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/exports/${id}`, key: t.readOnlyKey })).statusCode, 403);
      assert.equal((await t.request({ method: 'GET', url: '/v2/exports/1', key: null })).statusCode, 401);
      await waitForExport(id);
    });

    test("another team's project and exports are 404 on every route", async () => {
      const res = await post({ projectId, format: 'coco' }, t.otherKey);
      assert.equal(res.statusCode, 404);
      const { id } = await exportArchive('supervisely', { includeImages: false });
      for (const [method, url] of [
        ['GET', `/v2/exports/${id}`],
        ['GET', `/v2/exports/${id}/archive`],
        ['DELETE', `/v2/exports/${id}`],
      ] as const) {
        const answer = await t.request({ method, url, key: t.otherKey });
        assert.equal(answer.statusCode, 404, `${method} ${url}`);
        assert.equal(json<{ code: string }>(answer).code, 'NOT_FOUND');
      }
      assert.equal((await t.request({ method: 'GET', url: `/v2/exports/${id}` })).statusCode, 200, 'still there for its team');
    });

    test('a bad format, option or class is a 400 and no task exists', async () => {
      const before = json<TaskBody[]>(await t.request({ method: 'GET', url: '/v1/tasks' })).length;
      for (const [payload, field] of [
        [{ projectId, format: 'tiff' }, '/format'],
        [{ projectId, format: 'coco', options: { segmentation: true } }, '/options/segmentation'],
        [{ projectId, format: 'yolo', options: { task: 'classify' } }, '/options/task'],
        [{ projectId, format: 'masks', options: { includeImages: 'yes' } }, '/options/includeImages'],
        [{ projectId, format: 'supervisely', options: { classes: ['car', 'unicorn'] } }, '/options/classes'],
        [{ format: 'supervisely' }, '/projectId'],
      ] as const) {
        const res = await post(payload);
        assert.equal(res.statusCode, 400, JSON.stringify(payload));
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        const body = json<{ type: string; status: number; code: string; detail: string; errors?: { pointer: string }[] }>(res);
        assert.equal(body.code, 'VALIDATION');
        assert.equal(body.status, 400);
        assert.equal(body.type, 'urn:annostore:problem:validation');
        assert.equal(body.errors?.[0]?.pointer, field, body.detail);
      }
      assert.equal((await post({ projectId: 2_000_000, format: 'coco' })).statusCode, 404);
      assert.equal(json<TaskBody[]>(await t.request({ method: 'GET', url: '/v1/tasks' })).length, before);
    });

    test('GET /v1/tasks lists an export with the v1 meta shape', async () => {
      const { id } = await exportArchive('pascal_voc', { includeImages: false });
      const [task] = json<TaskBody[]>(await t.request({ method: 'GET', url: `/v1/tasks?id=${id}` }));
      assert.equal(task!.type, 'export');
      assert.equal(task!.status, 'finished');
      assert.equal(typeof task!.meta.name, 'string');
      for (const layer of task!.meta.config as { dst: unknown; src: unknown; action: unknown; settings: unknown }[]) {
        assert.equal(typeof layer.dst, 'string');
        assert.ok(Array.isArray(layer.src));
        assert.equal(typeof layer.action, 'string');
        assert.equal(typeof layer.settings, 'object');
      }
      assert.equal(typeof task!.meta.path.bucket, 'string');
      assert.equal(typeof task!.meta.path.objectName, 'string');
      assert.match(task!.size, /^[1-9][0-9]*$/);
    });

    test('DELETE removes the archive and the task', async () => {
      const { id } = await exportArchive('yolo', { includeImages: false });
      const key = archiveKey(await teamOf(t), id);
      assert.ok(await t.ctx.archives.stat(key));
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/exports/${id}` })).statusCode, 204);
      assert.equal(await t.ctx.archives.stat(key), null);
      assert.equal((await t.request({ method: 'GET', url: `/v2/exports/${id}` })).statusCode, 404);
      assert.deepEqual(json<TaskBody[]>(await t.request({ method: 'GET', url: `/v1/tasks?id=${id}` })), []);
    });

    test('an export whose worker died is taken up again and written from the start', async () => {
      await runner.stop();
      const res = await post({ projectId, format: 'coco' });
      assert.equal(res.statusCode, 201, res.body);
      const id = json<ExportAnswer>(res).task.id;
      // A worker claims it and dies: its lease runs out without a word.
      const claimed = await tasks.claimTask(t.ctx.db.kysely, { owner: 'dead-worker', leaseMs: 50 });
      assert.equal(claimed?.id, id);
      await new Promise((resolve) => setTimeout(resolve, 100));
      runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
      const answer = await waitForExport(id);
      assert.equal(answer.task.status, 'finished', JSON.stringify(answer.task.meta));
      const download = await t.request({ method: 'GET', url: `/v2/exports/${id}/archive` });
      const dir = unpack(download.rawPayload, 'resumed');
      assert.ok(fs.existsSync(path.join(dir, 'annotations')));
    });

    test('a title with quotes, brackets, an apostrophe and accents names the file safely', async () => {
      const title = `Bob's "cars" (2)* é`;
      const project = await newProject(t.ctx, { title, classes: [{ title: 'car', shape: 'rectangle' }] });
      await newImage(t.ctx, await newDataset(t.ctx, project), { name: 'a.png' });
      const res = await post({ projectId: project, format: 'coco' });
      assert.equal(res.statusCode, 201, res.body);
      const id = json<ExportAnswer>(res).task.id;
      assert.equal((await waitForExport(id)).task.status, 'finished');
      const header = (await t.request({ method: 'GET', url: `/v2/exports/${id}/archive` })).headers['content-disposition'] as string;
      const [, plain, extended] = /^attachment; filename="([^"]*)"; filename\*=UTF-8''(.*)$/.exec(header) ?? [];
      assert.ok(plain !== undefined && extended !== undefined, header);
      assert.match(plain, /^[\x20-\x7e]+$/, 'the plain name is printable ASCII without quotes');
      assert.match(extended, /^[A-Za-z0-9%!#$&+.^_`|~-]+$/, 'filename* holds only RFC 5987 attribute characters');
      assert.equal(decodeURIComponent(extended), `${title}-coco.zip`);
    });

    test('a title with slashes, backslashes or a drive letter names the file without them', async () => {
      for (const [title, expected] of [['../../etc/passwd', '.._.._etc_passwd-coco.zip'], ['C:\\x\\..\\y', 'C__x_.._y-coco.zip']]) {
        const project = await newProject(t.ctx, { title: title!, classes: [{ title: 'car', shape: 'rectangle' }] });
        await newImage(t.ctx, await newDataset(t.ctx, project), { name: 'a.png' });
        const res = await post({ projectId: project, format: 'coco' });
        assert.equal(res.statusCode, 201, res.body);
        const id = json<ExportAnswer>(res).task.id;
        assert.equal((await waitForExport(id)).task.status, 'finished');
        const header = (await t.request({ method: 'GET', url: `/v2/exports/${id}/archive` })).headers['content-disposition'] as string;
        const [, plain, extended] = /^attachment; filename="([^"]*)"; filename\*=UTF-8''(.*)$/.exec(header) ?? [];
        assert.equal(decodeURIComponent(extended!), expected, header);
        assert.doesNotMatch(plain!, /[/\\:]/, header);
      }
    });

    test('a stopped export leaves no archive; its archive route is a 409', async () => {
      // Enough images that the export is caught while it runs: 1,500 could all be written before the
      // stop was asked on an idle machine.
      const big = await newProject(t.ctx, { title: 'big', classes: [{ title: 'car', shape: 'rectangle' }] });
      const dataset = await newDataset(t.ctx, big);
      await bulkImages(t.ctx, { datasetId: dataset, count: 30_000, bytes: await picture(32, 24, { seed: 9 }), width: 32, height: 24 });
      const res = await post({ projectId: big, format: 'supervisely' });
      assert.equal(res.statusCode, 201, res.body);
      const id = json<ExportAnswer>(res).task.id;
      await waitForExport(id, ['started', 'finished']);
      const stop = await t.request({ method: 'POST', url: `/v1/tasks/${id}/stop` });
      assert.equal(stop.statusCode, 200, 'stopped while running');
      const answer = await waitForExport(id);
      assert.equal(answer.task.status, 'stopped');
      assert.equal(answer.archive, null);
      assert.equal(await t.ctx.archives.stat(archiveKey(await teamOf(t), id)), null);
      const download = await t.request({ method: 'GET', url: `/v2/exports/${id}/archive` });
      assert.equal(download.statusCode, 409);
      const problem = json<{ status: number; code: string; taskStatus: string }>(download);
      assert.deepEqual([problem.status, problem.code, problem.taskStatus], [409, 'CONFLICT', 'stopped'], 'the task’s status beside the problem’s own');
    });

    test('the task of POST and GET /v2/exports is the task GET /v2/tasks/:id answers', async () => {
      const res = await post({ projectId, format: 'coco', options: { includeImages: false } });
      assert.equal(res.statusCode, 201, res.body);
      const posted = json<{ task: Record<string, unknown> }>(res).task;
      assert.equal(typeof posted.size, 'number');
      assert.equal(typeof posted.createdAt, 'string');
      const asTask = json<Record<string, unknown>>(await t.request({ method: 'GET', url: `/v2/tasks/${posted.id as number}` }));
      assert.deepEqual(Object.keys(posted).sort(), Object.keys(asTask).sort());
      assert.deepEqual([posted.size, posted.createdAt], [asTask.size, asTask.createdAt]);
      const answer = await waitForExport(posted.id as number);
      const finishedTask = json<Record<string, unknown>>(await t.request({ method: 'GET', url: `/v2/tasks/${posted.id as number}` }));
      assert.deepEqual(answer.task, finishedTask);
    });

    test('past its retention an export keeps its task and loses its archive; its download is 410', async () => {
      assert.equal(t.config.tasks.exportRetentionMs, 7 * 24 * 60 * 60 * 1000);
      const { id } = await exportArchive('yolo', { includeImages: false });
      const key = archiveKey(await teamOf(t), id);
      assert.equal(await expireExports(t.ctx), 0, 'nothing is old enough yet');
      assert.ok(await t.ctx.archives.stat(key));
      const later = new Date(Date.now() + 8 * 24 * 60 * 60 * 1000);
      assert.ok((await expireExports(t.ctx, later)) >= 1);
      assert.equal(await t.ctx.archives.stat(key), null);
      const answer = json<ExportAnswer>(await t.request({ method: 'GET', url: `/v2/exports/${id}` }));
      assert.equal(answer.task.status, 'finished');
      assert.equal(answer.task.meta.expiredAt, later.toISOString());
      assert.equal(answer.archive, null);
      const download = await t.request({ method: 'GET', url: `/v2/exports/${id}/archive` });
      assert.equal(download.statusCode, 410);
      assert.equal(json<{ code: string }>(download).code, 'GONE');
      assert.equal(await expireExports(t.ctx, later), 0, 'an expired export is not expired again');
    });
  });
}

describe('exports API on S3 storage (s3rver)', () => {
  let t: TestApp;
  let runner: TaskRunner;
  let s3: Awaited<ReturnType<typeof startS3>>;
  before(async () => {
    s3 = await startS3();
    t = await startTestApp(dialects[0]!, { storageUrl: s3.url });
    runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
  });
  after(async () => {
    await runner?.stop();
    await t?.close();
    await s3?.stop();
  });

  test('the archive is a multipart object in the bucket, downloaded whole and by range, and imported again', async () => {
    const records = sampleRecords();
    const dir = scratchDir('export-s3-source');
    const writer = new SuperviselyWriter(SAMPLE_PROJECT, { includeImages: true });
    await writeEntries(await writeAll(writer, records), dir, sampleImages(records));
    await writer.close();
    const { projectId } = await importFolder(t, dir, 'supervisely');
    const res = await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId, format: 'supervisely' } });
    assert.equal(res.statusCode, 201, res.body);
    const { task } = json<ExportAnswer>(res);
    assert.equal(task.meta.path.bucket, new URL(s3.url).hostname);
    let answer: ExportAnswer;
    do {
      await new Promise((resolve) => setTimeout(resolve, 20));
      answer = json<ExportAnswer>(await t.request({ method: 'GET', url: `/v2/exports/${task.id}` }));
    } while (!['finished', 'error', 'stopped'].includes(answer.task.status));
    assert.equal(answer.task.status, 'finished', JSON.stringify(answer.task.meta));
    const whole = await t.request({ method: 'GET', url: `/v2/exports/${task.id}/archive` });
    assert.equal(whole.statusCode, 200);
    assert.equal(whole.rawPayload.length, answer.archive?.size);
    const tail = await t.request({ method: 'GET', url: `/v2/exports/${task.id}/archive`, headers: { range: 'bytes=-100' } });
    assert.equal(tail.statusCode, 206);
    assert.ok(tail.rawPayload.equals(whole.rawPayload.subarray(whole.rawPayload.length - 100)));
    // Read around the app: the object s3rver holds is the archive.
    const { endpoint, bucket } = Object.fromEntries(new URL(s3.url).searchParams) as { endpoint: string; bucket?: string };
    const stored = await fetch(`${endpoint}/${bucket ?? new URL(s3.url).hostname}/${task.meta.path.objectName}`);
    assert.ok(Buffer.from(await stored.arrayBuffer()).equals(whole.rawPayload));

    const unpacked = scratchDir('export-s3');
    const file = `${unpacked}.zip`;
    fs.writeFileSync(file, whole.rawPayload);
    execFileSync('unzip', ['-q', file, '-d', unpacked]);
    fs.rmSync(file);
    const again = await importFolder(t, unpacked, 'supervisely');
    assert.deepEqual((await readExport(t, again.projectId)).records, (await readExport(t, projectId)).records);
  });
});

async function teamOf(t: TestApp): Promise<number> {
  const row = await t.ctx.db.kysely.selectFrom('teams').select('id').where('name', '=', 'alpha').executeTakeFirstOrThrow();
  return row.id;
}
