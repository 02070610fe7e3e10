// Quality under /v2 on both databases (docs/jobs.md "Quality"): ground truth marked by a manager,
// honeypots mixed into jobs and hidden from the annotator and from galleries, counts, statistics,
// versions and exports, each submitted honeypot compared with its truth, and the report per
// annotator and class against figures worked out by hand below.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { AnnostoreClient } from '../../src/client/index.ts';
import { encodeMask } from '../../src/dtl/transform.ts';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import { createKey } from '../../src/services/keys.service.ts';
import { recordNewImages } from '../../src/services/annotation-revisions.service.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { scratchDir } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon, userId } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { type List, assertProblem } from '../helpers/v2.ts';
import type { Figures } from '../../src/services/quality.service.ts';

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

const rect = (classTitle: string, x0: number, y0: number, x1: number, y1: number): AnnotationObject => ({
  classTitle,
  description: '',
  tags: [],
  bitmap: null,
  points: { exterior: [[x0, y0], [x1, y1]], interior: [] },
});
const square = (classTitle: string, x0: number, y0: number, x1: number, y1: number): AnnotationObject => polygon(classTitle, [[x0, y0], [x0, y1], [x1, y1], [x1, y0]]);
/** A bitmap whose set pixels are the columns x0..x1 and rows y0..y1 (inclusive). */
function block(classTitle: string, x0: number, y0: number, x1: number, y1: number): AnnotationObject {
  const width = x1 - x0 + 1;
  const height = y1 - y0 + 1;
  const bitmap = encodeMask({ width, height, pixels: new Uint8Array(width * height).fill(1) }, [x0, y0])!;
  return { classTitle, description: '', tags: [], bitmap: { origin: bitmap.origin, data: bitmap.data }, points: { exterior: [], interior: [] } };
}

interface Report {
  projectId: number;
  matchIou: number;
  annotators: (Figures & {
    userId: number;
    login: string;
    honeypots: number;
    classes: (Figures & { classTitle: string; honeypots: number })[];
    items: (Figures & { imageId: number; jobId: number | null; sourceImageId: number; name: string; classes: { classTitle: string; iouType: string; matches: { truth: number; answer: number; iou: number }[]; misses: number[]; extras: number[] }[] })[];
  })[];
}

const close = (actual: number | null, expected: number | null, what: string): void => {
  if (expected === null) return assert.equal(actual, null, what);
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);
};
const assertFigures = (actual: Figures, expected: Figures, what: string): void => {
  assert.deepEqual([actual.truths, actual.answers, actual.matched], [expected.truths, expected.answers, expected.matched], what);
  close(actual.precision, expected.precision, `${what} precision`);
  close(actual.recall, expected.recall, `${what} recall`);
  close(actual.meanIou, expected.meanIou, `${what} mean IoU`);
};

for (const dialect of dialects) {
  describe(`job quality on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner;
    let projectId: number;
    let gtDataset: number;
    let workDataset: number;
    const gt: number[] = [];
    const work: number[] = [];
    let ann1: string;
    let ann2: string;
    const ids = { ann1: 0, ann2: 0 };
    let jobIds: number[] = [];
    /** Per job, its honeypots by the ground-truth image each copies. */
    const honeypots: Map<number, number>[] = [];

    // The truth of the first ground-truth image: two cars (boxes), a road (a polygon of 20 × 20
    // pixels) and a spot (a bitmap of 20 × 10 pixels); of the second, one car.
    const truth1 = [rect('car', 0, 0, 10, 10), rect('car', 50, 50, 70, 70), square('road', 20, 0, 40, 20), block('spot', 60, 0, 79, 9)];
    const truth2 = [rect('car', 10, 10, 30, 30)];

    before(async () => {
      t = await startTestApp(dialect);
      runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
      const db = t.ctx.db.kysely;
      ann1 = await createKey(db, { team: 'alpha', user: 'ann1' });
      ann2 = await createKey(db, { team: 'alpha', user: 'ann2' });
      for (const login of ['ann1', 'ann2'] as const) ids[login] = await userId(t.ctx, 'alpha', login);
      projectId = await newProject(t.ctx, {
        title: 'quality',
        classes: [
          { title: 'car', shape: 'rectangle' },
          { title: 'road', shape: 'polygon' },
          { title: 'spot', shape: 'bitmap' },
        ],
      });
      // Ground truth lives in a managers-only dataset.
      gtDataset = await newDataset(t.ctx, projectId, 'reference', { managersOnly: true });
      workDataset = await newDataset(t.ctx, projectId, 'work');
      gt.push((await newImage(t.ctx, gtDataset, { name: 'g1.png', width: 100, height: 100, objects: truth1 })).id);
      gt.push((await newImage(t.ctx, gtDataset, { name: 'g2.png', width: 100, height: 100, objects: truth2 })).id);
      for (let i = 0; i < 4; i++) work.push((await newImage(t.ctx, workDataset, { name: `w${i}.png`, width: 100, height: 100 })).id);
      // The work images' first revisions, as an upload records them.
      const { team_id: teamId } = await db.selectFrom('projects').select('team_id').where('id', '=', projectId).executeTakeFirstOrThrow();
      await db.transaction().execute((trx) => recordNewImages(trx, { teamId, keyId: null, userId: ids.ann2, taskId: null }, work.map((imageId) => ({ imageId, objectsJson: '[]' }))));
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    const request = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, key: string, payload?: unknown) =>
      t.request({ method, url, key, ...(payload === undefined ? {} : { payload: payload as object }) });
    const get = async <T>(url: string, key = t.adminKey): Promise<T> => {
      const res = await request('GET', url, key);
      assert.equal(res.statusCode, 200, res.body);
      return json<T>(res);
    };

    test('a manager marks images as ground truth, lists and unmarks them; others get 403', async () => {
      const url = `/v2/projects/${projectId}/ground-truth`;
      assertProblem(await request('PUT', url, ann1, { imageIds: gt }), 403, 'PROJECT_ROLE_REQUIRED');
      const missing = assertProblem(await request('PUT', url, t.adminKey, { imageIds: [gt[0], 2_000_000] }), 404, 'NOT_FOUND');
      assert.deepEqual((missing as unknown as { imageIds: number[] }).imageIds, [2_000_000]);
      // An image of an ordinary dataset, which every role sees, is refused, and nothing is marked.
      const ordinary = assertProblem(await request('PUT', url, t.adminKey, { imageIds: [gt[0], work[1], work[0]] }), 400, 'VALIDATION');
      assert.deepEqual((ordinary as unknown as { imageIds: number[] }).imageIds, [work[0], work[1]]);
      assert.match(ordinary.detail, /managers-only/);
      assert.deepEqual((await get<List<unknown>>(url)).items, []);
      assert.equal((await request('PUT', url, t.adminKey, { imageIds: gt })).statusCode, 204);
      const list = await get<List<{ imageId: number; name: string; datasetId: number; objects: number }>>(url);
      assert.deepEqual(list.items.map((i) => [i.imageId, i.name, i.datasetId, i.objects]), [[gt[0], 'g1.png', gtDataset, 4], [gt[1], 'g2.png', gtDataset, 1]]);
      assert.equal((await request('DELETE', url, t.adminKey, { imageIds: [gt[1]] })).statusCode, 204);
      assert.deepEqual((await get<List<{ imageId: number }>>(url)).items.map((i) => i.imageId), [gt[0]]);
      // Two honeypots per job need two ground-truth images.
      assertProblem(await request('POST', `/v2/datasets/${workDataset}/jobs`, t.adminKey, { imagesPerJob: 2, assigneeIds: [ids.ann1], honeypots: 2 }), 400, 'VALIDATION');
      assert.equal((await request('PUT', url, t.adminKey, { imageIds: [gt[1]] })).statusCode, 204);
    });

    test('a split mixes K honeypots into each job, and the frozen truth ignores later edits', async () => {
      // An edit of a ground-truth image after marking changes no reference.
      const edit = await request('PUT', `/v2/images/${gt[1]}/annotation`, t.adminKey, { objects: [rect('car', 0, 0, 99, 99)] });
      assert.equal(edit.statusCode, 200, edit.body);
      const res = await request('POST', `/v2/datasets/${workDataset}/jobs`, t.adminKey, { imagesPerJob: 2, assigneeIds: [ids.ann1, ids.ann2], honeypots: 2 });
      assert.equal(res.statusCode, 201, res.body);
      const jobs = json<{ items: { id: number; progress: { images: number } }[] }>(res).items;
      jobIds = jobs.map((j) => j.id);
      assert.deepEqual(jobs.map((j) => j.progress.images), [4, 4]);
      for (const jobId of jobIds) {
        const rows = await t.ctx.db.kysely.selectFrom('honeypots').select(['image_id', 'source_image_id', 'truth_json']).where('job_id', '=', jobId).execute();
        assert.deepEqual(rows.map((r) => r.source_image_id).sort((a, b) => a - b), gt);
        assert.equal(JSON.parse(rows.find((r) => r.source_image_id === gt[1])!.truth_json).length, 1);
        honeypots.push(new Map(rows.map((r) => [r.source_image_id, r.image_id])));
        const images = (await get<List<{ imageId: number }>>(`/v2/jobs/${jobId}/images`)).items.map((i) => i.imageId);
        assert.equal(images.length, 4);
        assert.deepEqual(images.filter((id) => !work.includes(id)).sort((a, b) => a - b), [...rows.map((r) => r.image_id)].sort((a, b) => a - b));
      }
    });

    test('the annotator sees a honeypot as an ordinary image with an empty annotation', async () => {
      const jobId = jobIds[0]!;
      const honeypot = honeypots[0]!.get(gt[0]!)!;
      const list = (await get<List<Record<string, unknown>>>(`/v2/jobs/${jobId}/images`, ann1)).items;
      const normal = list.find((i) => work.includes(i.imageId as number))!;
      const hidden = list.find((i) => i.imageId === honeypot)!;
      assert.deepEqual(Object.keys(hidden).sort(), Object.keys(normal).sort());
      assert.equal(hidden.state, 'new');
      // The queue walks it like any other image.
      const walked: number[] = [];
      let after: number | undefined;
      for (let i = 0; i < 4; i++) {
        const next = await get<{ image: { imageId: number } | null; remaining: number }>(`/v2/jobs/${jobId}/next${after === undefined ? '' : `?after=${after}`}`, ann1);
        assert.equal(next.remaining, 4);
        walked.push(next.image!.imageId);
        after = next.image!.imageId;
      }
      assert.deepEqual(walked, list.map((i) => i.imageId));
      const image = await get<Record<string, unknown>>(`/v2/images/${honeypot}`, ann1);
      const ordinary = await get<Record<string, unknown>>(`/v2/images/${normal.imageId as number}`, ann1);
      assert.deepEqual(Object.keys(image).sort(), Object.keys(ordinary).sort());
      const source = await get<Record<string, unknown>>(`/v2/images/${gt[0]}`);
      assert.deepEqual([image.name, image.projectId, image.objectCount, image.width, image.height, image.size, image.hash], ['g1.png', projectId, 0, 100, 100, source.size, source.hash]);
      assert.deepEqual(image.tags, []);
      const annotation = await get<{ objects: unknown[] }>(`/v2/images/${honeypot}/annotation`, ann1);
      assert.deepEqual(annotation.objects, []);

      // No field tells a honeypot apart: what every ordinary image of the job has in common (its
      // dataset above all: a honeypot's own is hidden), each honeypot has too, and it shows the times
      // of the ordinary image next to it (the one before it, or after it when it comes first), not
      // the making of the job.
      const copies = new Set(honeypots[0]!.values());
      const metadata = new Map<number, Record<string, unknown>>();
      for (const item of list) metadata.set(item.imageId as number, await get<Record<string, unknown>>(`/v2/images/${item.imageId as number}`, ann1));
      const ordinaryIds = list.map((i) => i.imageId as number).filter((id) => !copies.has(id));
      // (An image's own bytes and name, which a copy takes from its source, differ between any two.)
      const own = new Set(['id', 'name', 'hash', 'size', 'createdAt', 'updatedAt']);
      const shared = Object.keys(ordinary).filter((key) => !own.has(key) && ordinaryIds.every((id) => JSON.stringify(metadata.get(id)![key]) === JSON.stringify(metadata.get(ordinaryIds[0]!)![key])));
      assert.ok(shared.includes('datasetId') && shared.includes('projectId'), shared.join());
      const order = list.map((i) => i.imageId as number);
      for (const copy of copies) {
        const seen = metadata.get(copy)!;
        for (const key of shared) assert.deepEqual(seen[key], metadata.get(ordinaryIds[0]!)![key], `${key} of honeypot ${copy}`);
        assert.equal(seen.datasetId, workDataset);
        const at = order.indexOf(copy);
        const neighbour = order.slice(0, at).findLast((id) => !copies.has(id)) ?? order.slice(at + 1).find((id) => !copies.has(id))!;
        assert.deepEqual([seen.createdAt, seen.updatedAt], [metadata.get(neighbour)!.createdAt, metadata.get(neighbour)!.updatedAt], `times of honeypot ${copy}`);
        // Its revisions are the neighbour's upload, but for their ids.
        const revisions = async (id: number) =>
          (await get<List<{ id: number }>>(`/v2/images/${id}/annotation/revisions`, ann1)).items.map(({ id: _, ...rest }) => rest);
        const upload = await revisions(neighbour);
        assert.equal(upload.length, 1);
        assert.deepEqual(await revisions(copy), upload);
      }
      // The quality routes are the managers'.
      assertProblem(await request('GET', `/v2/projects/${projectId}/quality`, ann1), 403, 'PROJECT_ROLE_REQUIRED');
      assertProblem(await request('GET', `/v2/projects/${projectId}/ground-truth`, ann1), 403, 'PROJECT_ROLE_REQUIRED');
    });

    test('galleries, dataset lists, counts, statistics, versions and exports leave honeypots out (and versions and exports the ground truth)', async () => {
      const all = [...honeypots[0]!.values(), ...honeypots[1]!.values()];
      const visible = [...gt, ...work];
      const gallery = await get<List<{ id: number }>>(`/v2/images?projectId=${projectId}&limit=100`);
      assert.deepEqual(gallery.items.map((i) => i.id).sort((a, b) => a - b), visible);
      const named = await get<List<{ id: number }>>(`/v2/images?projectId=${projectId}&namePrefix=g`);
      assert.deepEqual(named.items.map((i) => i.id), gt);
      // A job made from a filter never takes a honeypot; the filter's ground-truth images, in a
      // managers-only dataset, refuse the job (its assignee could not see them).
      const filtered = assertProblem(await request('POST', `/v2/projects/${projectId}/jobs`, t.adminKey, { title: 'g', assigneeId: ids.ann2, filter: { namePrefix: 'g' } }), 400, 'VALIDATION');
      assert.deepEqual((filtered as unknown as { imageIds: number[] }).imageIds, gt);
      const datasets = await get<List<{ id: number }>>(`/v2/datasets?projectId=${projectId}`);
      assert.deepEqual(datasets.items.map((d) => d.id), [gtDataset, workDataset]);
      // A honeypot's dataset is reached only through its job.
      const hiddenDataset = (await t.ctx.db.kysely.selectFrom('images').select('dataset_id').where('id', '=', all[0]!).executeTakeFirstOrThrow()).dataset_id;
      assertProblem(await request('GET', `/v2/datasets/${hiddenDataset}`, t.adminKey), 404, 'NOT_FOUND');
      const stats = await get<{ images: number; datasets: { datasetId: number }[] }>(`/v2/projects/${projectId}/stats`);
      assert.equal(stats.images, visible.length);
      assert.deepEqual(stats.datasets.map((d) => d.datasetId), [gtDataset, workDataset]);
      const catalog = await get<List<{ id: number; counts: { datasets: number; images: number; objects: number } }>>(`/v2/projects?counts=true`);
      const listed = catalog.items.find((p) => p.id === projectId)!;
      assert.deepEqual([listed.counts.datasets, listed.counts.images, listed.counts.objects], [2, visible.length, 5]);
      const project = await get<{ size: number }>(`/v2/projects/${projectId}`);
      const bytes = await t.ctx.db.kysely.selectFrom('images').select('size').where('id', 'in', visible).execute();
      assert.equal(Number(project.size), bytes.reduce((n, r) => n + Number(r.size), 0));

      const v1 = await request('GET', `/v1/annotations?projectId=${projectId}&perPage=100`, t.adminKey);
      assert.equal(v1.statusCode, 200, v1.body);
      assert.equal(json<unknown[]>(v1).length, visible.length);
      const oneDataset = await request('GET', `/v1/annotations?projectId=${projectId}&datasetIds=${gtDataset}`, t.adminKey);
      assert.equal(json<unknown[]>(oneDataset).length, gt.length);
      const nearDuplicates = await get<{ pending: number; groups: unknown[] }>(`/v2/projects/${projectId}/near-duplicates`);
      assert.equal(nearDuplicates.pending, visible.length);

      // Versions and exports, read by every role, leave the managers-only dataset out too.
      const version = await request('POST', `/v2/projects/${projectId}/versions`, t.adminKey, { name: 'v1' });
      assert.equal(version.statusCode, 201, version.body);
      const made = json<{ id: number; imageCount: number }>(version);
      assert.equal(made.imageCount, work.length);
      const versionImages = await get<List<{ imageId: number }>>(`/v2/versions/${made.id}/images?limit=100`);
      assert.deepEqual(versionImages.items.map((i) => i.imageId).sort((a, b) => a - b), work);
      assertProblem(await request('POST', `/v2/projects/${projectId}/versions`, t.adminKey, { name: 'v-gt', datasetIds: [gtDataset] }), 400, 'VALIDATION');
      const split = { method: 'random', ratios: { train: 1, val: 1 }, seed: 3, stratify: true };
      const stratified = await request('POST', `/v2/projects/${projectId}/versions`, t.adminKey, { name: 'v1-stratified', split });
      assert.equal(stratified.statusCode, 201, stratified.body);
      const stratifiedId = json<{ id: number }>(stratified).id;
      const stratifiedImages = await get<List<{ imageId: number }>>(`/v2/versions/${stratifiedId}/images?limit=100`);
      assert.deepEqual(stratifiedImages.items.map((i) => i.imageId).sort((a, b) => a - b), work, 'a stratified split takes no honeypot either');
      assertProblem(await request('POST', '/v2/exports', t.adminKey, { datasetIds: [gtDataset], format: 'supervisely', options: {} }), 400, 'VALIDATION');

      const started = await request('POST', '/v2/exports', t.adminKey, { projectId, format: 'supervisely', options: {} });
      assert.equal(started.statusCode, 201, started.body);
      const exportId = json<{ task: { id: number } }>(started).task.id;
      const deadline = Date.now() + 30_000;
      for (;;) {
        const { task } = await get<{ task: { status: string } }>(`/v2/exports/${exportId}`);
        if (task.status === 'finished') break;
        assert.ok(!['error', 'stopped'].includes(task.status) && Date.now() < deadline, `export ${task.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const archive = await request('GET', `/v2/exports/${exportId}/archive`, t.adminKey);
      assert.equal(archive.statusCode, 200);
      const dir = scratchDir('quality-export');
      const file = `${dir}.zip`;
      fs.writeFileSync(file, archive.rawPayload);
      execFileSync('unzip', ['-q', file, '-d', dir]);
      fs.rmSync(file);
      const annotations = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.split(path.sep).at(-2) === 'ann').sort();
      assert.equal(annotations.length, work.length, annotations.join(', '));
      assert.deepEqual(
        annotations.map((f) => f.split(path.sep).at(-3)),
        ['work', 'work', 'work', 'work'],
      );
    });

    test('submitted honeypots are compared with their truth; the report per annotator and class', async () => {
      const [job1, job2] = jobIds as [number, number];
      const h1 = honeypots[0]!.get(gt[0]!)!;
      const h2 = honeypots[0]!.get(gt[1]!)!;
      // Unmarked now, the second ground-truth image stays the truth of the honeypots made of it.
      assert.equal((await request('DELETE', `/v2/projects/${projectId}/ground-truth`, t.adminKey, { imageIds: [gt[1]] })).statusCode, 204);
      const put = (imageId: number, key: string, objects: AnnotationObject[]) => request('PUT', `/v2/images/${imageId}/annotation`, key, { objects });
      // On the first honeypot: a car 10 × 8 inside the 10 × 10 one (box IoU 80/100) drawn after an
      // extra car far from any, the second car missed, the road 20 × 15 of its 20 × 20 (mask IoU
      // 300/400) and the spot shifted by 5 columns (150 pixels shared, 250 in either: 0.6).
      let res = await put(h1, ann1, [rect('car', 80, 80, 90, 90), rect('car', 0, 0, 10, 8), square('road', 20, 0, 40, 15), block('spot', 65, 0, 84, 9)]);
      assert.equal(res.statusCode, 200, res.body);
      // On the second: the car exactly (IoU 1) and a road where there is none.
      res = await put(h2, ann1, [rect('car', 10, 10, 30, 30), square('road', 0, 60, 10, 70)]);
      assert.equal(res.statusCode, 200, res.body);
      for (const h of [h1, h2]) assert.equal((await request('POST', `/v2/jobs/${job1}/images/${h}/submit`, ann1)).statusCode, 200);

      // The cars drawn on the honeypots are the annotator's answers on copies of the ground-truth
      // images, which are counted once, as they are: the class's usage and the project's statistics
      // count the cars of the images the gallery shows (two in g1, one in g2 since its edit).
      const carClass = (await get<List<{ id: number; title: string }>>(`/v2/projects/${projectId}/classes`)).items.find((c) => c.title === 'car')!;
      assert.deepEqual(await get<{ objects: number; images: number }>(`/v2/classes/${carClass.id}/usage`), { classId: carClass.id, objects: 3, images: 2 });
      const stats = await get<{ classes: { classId: number; images: number; objects: number }[] }>(`/v2/projects/${projectId}/stats`);
      assert.deepEqual(
        stats.classes.filter((c) => c.classId === carClass.id).map((c) => [c.images, c.objects]),
        [[2, 3]],
      );
      // An image tag put on a honeypot is not counted in the tag's usage either.
      const tagged = await request('POST', `/v2/projects/${projectId}/tags`, t.adminKey, { title: 'blurry', scope: 'images' });
      assert.equal(tagged.statusCode, 201, tagged.body);
      const tagId = json<{ id: number }>(tagged).id;
      const onCopy = await request('PUT', `/v2/images/${h1}/annotation`, t.adminKey, { ...(await get<Record<string, unknown>>(`/v2/images/${h1}/annotation`)), tags: ['blurry'] });
      assert.equal(onCopy.statusCode, 200, onCopy.body);
      const onSource = await request('PUT', `/v2/images/${gt[0]}/annotation`, t.adminKey, { ...(await get<Record<string, unknown>>(`/v2/images/${gt[0]}/annotation`)), tags: ['blurry'] });
      assert.equal(onSource.statusCode, 200, onSource.body);
      assert.deepEqual(await get<{ images: number }>(`/v2/tags/${tagId}/usage`), { images: 1 });
      // The second annotator submits the whole job with nothing drawn: every truth is missed.
      assert.equal((await request('POST', `/v2/jobs/${job2}/submit`, ann2)).statusCode, 200);

      const report = await get<Report>(`/v2/projects/${projectId}/quality`);
      assert.equal(report.matchIou, 0.5);
      assert.deepEqual(report.annotators.map((a) => [a.login, a.honeypots]), [['ann1', 2], ['ann2', 2]]);
      const [a1, a2] = report.annotators as [Report['annotators'][0], Report['annotators'][0]];
      // ann1: 5 truths, 6 answers, 4 matched with IoU 0.8, 1, 0.75 and 0.6.
      assertFigures(a1, { truths: 5, answers: 6, matched: 4, precision: 4 / 6, recall: 4 / 5, meanIou: (0.8 + 1 + 0.75 + 0.6) / 4 }, 'ann1');
      assert.deepEqual(a1.classes.map((c) => [c.classTitle, c.honeypots]), [['car', 2], ['road', 2], ['spot', 1]]);
      assertFigures(a1.classes[0]!, { truths: 3, answers: 3, matched: 2, precision: 2 / 3, recall: 2 / 3, meanIou: 0.9 }, 'ann1 car');
      assertFigures(a1.classes[1]!, { truths: 1, answers: 2, matched: 1, precision: 0.5, recall: 1, meanIou: 0.75 }, 'ann1 road');
      assertFigures(a1.classes[2]!, { truths: 1, answers: 1, matched: 1, precision: 1, recall: 1, meanIou: 0.6 }, 'ann1 spot');
      const first = a1.items.find((i) => i.imageId === h1)!;
      assert.deepEqual([first.jobId, first.sourceImageId, first.name], [job1, gt[0], 'g1.png']);
      assertFigures(first, { truths: 4, answers: 4, matched: 3, precision: 0.75, recall: 0.75, meanIou: (0.8 + 0.75 + 0.6) / 3 }, 'first honeypot');
      const car = first.classes.find((c) => c.classTitle === 'car')!;
      assert.equal(car.iouType, 'bbox');
      assert.deepEqual([car.matches.map((m) => [m.truth, m.answer]), car.misses, car.extras], [[[0, 1]], [1], [0]]);
      close(car.matches[0]!.iou, 0.8, 'car pair');
      assert.deepEqual(first.classes.map((c) => [c.classTitle, c.iouType]), [['car', 'bbox'], ['road', 'segm'], ['spot', 'segm']]);
      // ann2: nothing drawn, nothing matched.
      assertFigures(a2, { truths: 5, answers: 0, matched: 0, precision: null, recall: 0, meanIou: null }, 'ann2');

      // A resubmission after a rejection replaces the result.
      res = await request('POST', `/v2/jobs/${job1}/images/${h2}/reject`, t.adminKey, { issues: [{ x: 1, y: 1, comment: 'a road too many' }] });
      assert.equal(res.statusCode, 200, res.body);
      const issue = (await get<{ items: { id: number }[] }>(`/v2/jobs/${job1}/images/${h2}/issues`, ann1)).items[0]!;
      assert.equal((await request('POST', `/v2/issues/${issue.id}/resolve`, ann1, {})).statusCode, 200);
      assert.equal((await put(h2, ann1, [rect('car', 10, 10, 30, 30)])).statusCode, 200);
      assert.equal((await request('POST', `/v2/jobs/${job1}/images/${h2}/submit`, ann1)).statusCode, 200);
      const again = (await get<Report>(`/v2/projects/${projectId}/quality`)).annotators[0]!;
      assertFigures(again, { truths: 5, answers: 5, matched: 4, precision: 4 / 5, recall: 4 / 5, meanIou: (0.8 + 1 + 0.75 + 0.6) / 4 }, 'ann1 after resubmitting');

      // A deleted job's honeypots stay hidden and their results stay in the report.
      assert.equal((await request('DELETE', `/v2/jobs/${job2}`, t.adminKey)).statusCode, 204);
      const kept = (await get<Report>(`/v2/projects/${projectId}/quality`)).annotators[1]!;
      assert.deepEqual([kept.login, kept.honeypots, kept.items.map((i) => i.jobId)], ['ann2', 2, [null, null]]);
      const gallery = await get<List<{ id: number }>>(`/v2/images?projectId=${projectId}&limit=100`);
      assert.deepEqual(gallery.items.map((i) => i.id).sort((a, b) => a - b), [...gt, ...work]);
    });

    test('the typed client: client.v2.quality', async () => {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      const manager = new AnnostoreClient({ url, key: t.adminKey, retries: 0 }).v2;
      await manager.quality.markGroundTruth(projectId, [gt[1]!]);
      assert.deepEqual((await manager.quality.groundTruth(projectId)).items.map((i) => i.imageId), gt);
      await manager.quality.unmarkGroundTruth(projectId, [gt[0]!]);
      assert.deepEqual((await manager.quality.groundTruth(projectId)).items.map((i) => i.imageId), [gt[1]]);
      assert.deepEqual(await manager.quality.report(projectId), await get<Report>(`/v2/projects/${projectId}/quality`));
      await assert.rejects(new AnnostoreClient({ url, key: ann1, retries: 0 }).v2.quality.report(projectId), (error: { status?: number }) => error.status === 403);
    });
  });
}
