// POST /v2/projects/:projectId/predictions on both databases: model output in COCO, YOLO and
// Supervisely files becomes predictions of the images it names, and nothing else.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';

const DATASET = new URL('../fixtures/peer/faster_coco_eval/coco/dataset/', import.meta.url);
const gt = JSON.parse(readFileSync(new URL('gt_dataset.json', DATASET), 'utf8')) as {
  images: { id: number; width: number; height: number; file_name: string }[];
  categories: { id: number; name: string }[];
  annotations: { image_id: number; category_id: number; segmentation: number[][] }[];
};
const dtText = readFileSync(new URL('dt_dataset.json', DATASET), 'utf8');
const ring = (flat: number[]): [number, number][] => Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!]);

interface ImportResult {
  model: string;
  images: number;
  objects: number;
  warnings: { at: string; message: string }[];
}
interface Predictions {
  models: { model: string; objects: { classTitle: string; geometryType: string; score: number; points: { exterior: number[][] }; bitmap: unknown }[] }[];
}

for (const dialect of dialects) {
  describe(`v2 prediction import on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let projectId: number;
    const ids = new Map<string, number>();
    before(async () => {
      t = await startTestApp(dialect);
      projectId = await newProject(t.ctx, {
        classes: [...gt.categories.map((c) => ({ title: c.name, shape: 'polygon' })), { title: 'box', shape: 'rectangle' }, { title: 'blob', shape: 'bitmap' }],
      });
      const dataset = await newDataset(t.ctx, projectId);
      const title = new Map(gt.categories.map((c) => [c.id, c.name]));
      for (const image of [...gt.images].sort((a, b) => a.id - b.id)) {
        const objects = gt.annotations.filter((a) => a.image_id === image.id).map((a) => polygon(title.get(a.category_id)!, ring(a.segmentation[0]!)));
        ids.set(image.file_name, (await newImage(t.ctx, dataset, { name: image.file_name, width: image.width, height: image.height, objects })).id);
      }
    });
    after(async () => t?.close());

    const post = (body: object, key?: string) => t.request({ method: 'POST', url: `/v2/projects/${projectId}/predictions`, payload: body, ...(key ? { key } : {}) });
    const predictionsOf = async (name: string, model: string) =>
      json<Predictions>(await t.request({ method: 'GET', url: `/v2/images/${ids.get(name)}/predictions?model=${encodeURIComponent(model)}` })).models[0];

    test('a COCO results list with the ground truth’s images and categories: matched by file name, then evaluated', async () => {
      const res = await post({ model: 'coco-model', format: 'coco', results: JSON.parse(dtText), images: gt.images, categories: gt.categories });
      assert.equal(res.statusCode, 200, res.body);
      const answer = json<ImportResult>(res);
      assert.deepEqual([answer.images, answer.objects, answer.warnings], [3, 9, []]);
      const first = await predictionsOf('img_1.jpg', 'coco-model');
      assert.deepEqual(first!.objects.map((o) => [o.classTitle, o.score]), [['heart', 0.7999999999999999], ['star', 0.7666666666666666], ['cloud', 0.7333333333333333]]);
      const annotation = json<{ objects: unknown[] }>(await t.request({ method: 'GET', url: `/v2/images/${ids.get('img_1.jpg')}/annotation` }));
      assert.equal(annotation.objects.length, 3, 'the annotation keeps its own objects');
      const evaluation = json<{ ap: number }>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/evaluation?model=coco-model&iouType=segm` }));
      assert.ok(Math.abs(evaluation.ap - 0.6947194719471946) < 1e-12, String(evaluation.ap));
    });

    test('COCO results by Annostore ids: boxes, run-length masks; what names no class or image is reported', async () => {
      const classes = await t.ctx.db.kysely.selectFrom('classes').select(['id', 'title']).where('project_id', '=', projectId).execute();
      const id = (title: string) => classes.find((c) => c.title === title)!.id;
      const image = ids.get('img_2.jpg')!;
      const res = await post({
        model: 'ids',
        format: 'coco',
        results: [
          { image_id: image, category_id: id('box'), bbox: [10, 20, 30, 40], score: 0.5 },
          // A 4 × 4 mask of a 256 × 256 image: rows 2–5 of columns 1–4 (column-major runs).
          { image_id: image, category_id: id('blob'), segmentation: { size: [256, 256], counts: [258, 4, 252, 4, 252, 4, 252, 4, 256 * 256 - 258 - 4 * 256 + 252] }, score: 0.25 },
          { image_id: image, category_id: 999_999, bbox: [1, 1, 2, 2], score: 0.5 },
          { image_id: 999_999, category_id: id('box'), bbox: [1, 1, 2, 2], score: 0.5 },
          { image_id: image, category_id: id('box'), bbox: [1, 1, 2, 2] },
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      const answer = json<ImportResult>(res);
      assert.deepEqual([answer.images, answer.objects], [1, 2]);
      assert.equal(answer.warnings.length, 3, JSON.stringify(answer.warnings));
      const stored = await predictionsOf('img_2.jpg', 'ids');
      assert.deepEqual(stored!.objects[0]!.points.exterior, [[10, 20], [40, 60]]);
      assert.equal(stored!.objects[1]!.geometryType, 'bitmap');
      assert.deepEqual((stored!.objects[1]!.bitmap as { origin: number[] }).origin, [1, 2]);
    });

    test('YOLO label files with a confidence column, matched by stem', async () => {
      const res = await post({
        model: 'yolo',
        format: 'yolo',
        names: ['cloud', 'box'],
        labels: { 'labels/val/img_3.txt': '1 0.5 0.5 0.25 0.5 0.875\n0 0.1 0.1 0.3 0.1 0.3 0.3 0.4\n1 0.5 0.5 0.1\n', 'labels/val/nothing.txt': '1 0.5 0.5 0.1 0.1 0.5\n' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const answer = json<ImportResult>(res);
      assert.deepEqual([answer.images, answer.objects], [1, 2]);
      assert.deepEqual(answer.warnings.map((w) => w.at), ['/labels/labels~1val~1img_3.txt:3', '/labels/labels~1val~1nothing.txt']);
      const stored = await predictionsOf('img_3.jpg', 'yolo');
      assert.deepEqual(stored!.objects.map((o) => [o.classTitle, o.score, o.points.exterior]), [
        ['box', 0.875, [[96, 64], [160, 192]]],
        ['cloud', 0.4, [[25.6, 25.6], [76.8, 25.6], [76.8, 76.8]]],
      ]);
    });

    test('Supervisely objects with a score member or a confidence tag; an object without is not a prediction', async () => {
      const res = await post({
        model: 'sly',
        format: 'supervisely',
        annotations: {
          'ds/ann/img_1.jpg.json': {
            size: { width: 256, height: 256 },
            objects: [
              { classTitle: 'box', geometryType: 'rectangle', points: { exterior: [[1, 2], [30, 40]], interior: [] }, score: 0.6 },
              { classTitle: 'box', geometryType: 'rectangle', points: { exterior: [[5, 5], [9, 9]], interior: [] }, tags: [{ name: 'confidence', value: 0.9 }] },
              { classTitle: 'box', geometryType: 'rectangle', points: { exterior: [[5, 5], [9, 9]], interior: [] }, tags: [] },
            ],
          },
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json<ImportResult>(res).objects, 2);
      const stored = await predictionsOf('img_1.jpg', 'sly');
      assert.deepEqual(stored!.objects.map((o) => o.score), [0.9, 0.6]);
    });

    test('another team’s project is a 404, a read-only key a 403, a missing part a 400', async () => {
      assertProblem(await post({ model: 'm', format: 'coco', results: [] }, t.otherKey), 404, 'NOT_FOUND');
      assertProblem(await post({ model: 'm', format: 'coco', results: [] }, t.readOnlyKey), 403, 'FORBIDDEN');
      assertProblem(await post({ model: 'm', format: 'coco' }), 400, 'VALIDATION', { pointer: '/results' });
      assertProblem(await post({ model: 'm', format: 'yolo', names: [] }), 400, 'VALIDATION', { pointer: '/labels' });
      assertProblem(await post({ model: 'm', format: 'voc', results: [] }), 400, 'VALIDATION');
    });
  });
}
