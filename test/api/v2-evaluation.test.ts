// GET /v2/projects/:projectId/evaluation on both databases: the figures of annotations and predictions
// stored through the API equal COCOeval's on the COCO files they came from.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type EvalObject, cocoEvaluate } from '../../src/evaluation/coco-eval.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';

const DATASET = new URL('../fixtures/peer/faster_coco_eval/coco/dataset/', import.meta.url);
interface CocoAnnotation {
  image_id: number;
  category_id: number;
  bbox: number[];
  segmentation: number[][];
  score?: number;
}
const gt = JSON.parse(readFileSync(new URL('gt_dataset.json', DATASET), 'utf8')) as {
  images: { id: number; width: number; height: number; file_name: string }[];
  categories: { id: number; name: string }[];
  annotations: CocoAnnotation[];
};
const dt = JSON.parse(readFileSync(new URL('dt_dataset.json', DATASET), 'utf8')) as CocoAnnotation[];
const ring = (flat: number[]): [number, number][] => Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!]);

interface Evaluation {
  imageCount: number;
  predictedImageCount: number;
  ap: number | null;
  ap50: number | null;
  ap75: number | null;
  ar100: number | null;
  classes: { title: string; truths: number; detections: number; ap: number | null }[];
  curve: { recall: number[]; precision50: (number | null)[] };
  worstImages: { imageId: number; name: string; falsePositives: number; falseNegatives: number }[];
}

const close = (actual: number | null, expected: number, label: string) => assert.ok(actual !== null && Math.abs(actual - expected) < 1e-12, `${label}: ${actual} ≠ ${expected}`);

for (const dialect of dialects) {
  describe(`v2 evaluation on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let projectId: number;
    let datasetId: number;
    const ids = new Map<number, number>();
    before(async () => {
      t = await startTestApp(dialect);
      projectId = await newProject(t.ctx, { classes: gt.categories.map((c) => ({ title: c.name, shape: 'polygon' })) });
      datasetId = await newDataset(t.ctx, projectId);
      const title = new Map(gt.categories.map((c) => [c.id, c.name]));
      // In COCO id order, so both evaluations see the images in the same order.
      for (const image of [...gt.images].sort((a, b) => a.id - b.id)) {
        const objects = gt.annotations.filter((a) => a.image_id === image.id).map((a) => polygon(title.get(a.category_id)!, ring(a.segmentation[0]!)));
        ids.set(image.id, (await newImage(t.ctx, datasetId, { name: image.file_name, width: image.width, height: image.height, objects })).id);
      }
      for (const [cocoId, imageId] of ids) {
        const objects = dt
          .filter((d) => d.image_id === cocoId)
          .map((d) => ({ classTitle: title.get(d.category_id)!, points: { exterior: ring(d.segmentation[0]!) }, score: d.score! }));
        const res = await t.request({ method: 'PUT', url: `/v2/images/${imageId}/predictions`, payload: { model: 'shapes', objects } });
        assert.equal(res.statusCode, 200, res.body);
      }
    });
    after(async () => t?.close());

    const evaluate = (query: string, key?: string) => t.request({ method: 'GET', url: `/v2/projects/${projectId}/evaluation?${query}`, ...(key ? { key } : {}) });

    test('masks: the figures pycocotools gives for faster_coco_eval’s gt_dataset and dt_dataset', async () => {
      const res = await evaluate('model=shapes&iouType=segm');
      assert.equal(res.statusCode, 200, res.body);
      const e = json<Evaluation>(res);
      // faster_coco_eval tests/test_basic.py, test_coco_eval: AP_all, AP_50, AP_75, AR_third (100 detections).
      close(e.ap, 0.6947194719471946, 'AP');
      close(e.ap50, 0.6947194719471946, 'AP50');
      close(e.ap75, 0.6947194719471946, 'AP75');
      close(e.ar100, 0.75, 'AR@100');
      assert.equal(e.imageCount, 3);
      assert.equal(e.predictedImageCount, 3);
      assert.deepEqual(e.classes.map((c) => [c.title, c.truths, c.detections]), [['cloud', 3, 4], ['heart', 3, 2], ['arrow', 1, 1], ['star', 2, 2]]);
      assert.equal(e.curve.recall.length, 101);
      assert.ok(e.curve.precision50.every((p) => p !== null && p >= 0 && p <= 1));
      // img_3.jpg (COCO id 1): the model calls the cloud a heart and the heart a cloud.
      assert.deepEqual(
        e.worstImages.map((w) => [w.name, w.falsePositives, w.falseNegatives]),
        [['img_3.jpg', 2, 2], ['img_2.jpg', 1, 1]],
      );
      assert.ok(e.worstImages.every((w) => w.falsePositives + w.falseNegatives > 0));
    });

    test('boxes: the figures COCOeval gives for the files’ own boxes', async () => {
      const expected = cocoEvaluate({
        iouType: 'bbox',
        imageIds: gt.images.map((i) => i.id),
        categoryIds: gt.categories.map((c) => c.id),
        truths: gt.annotations.map((a): EvalObject => ({ imageId: a.image_id, categoryId: a.category_id, bbox: a.bbox })),
        detections: dt.map((d): EvalObject => ({ imageId: d.image_id, categoryId: d.category_id, bbox: d.bbox, score: d.score! })),
      });
      const e = json<Evaluation>(await evaluate('model=shapes&iouType=bbox'));
      close(e.ap, expected.ap, 'AP');
      close(e.ap50, expected.ap50, 'AP50');
      close(e.ap75, expected.ap75, 'AP75');
      close(e.ar100, expected.ar100, 'AR@100');
      const byDefault = json<Evaluation>(await evaluate('model=shapes'));
      assert.equal(byDefault.ap, e.ap, 'boxes unless asked for masks');
      close(json<Evaluation>(await evaluate(`model=shapes&datasetId=${datasetId}`)).ap, expected.ap, 'one dataset');
    });

    test('a crowd truth is ignored: a detection on it is neither right nor wrong', async () => {
      const p = await newProject(t.ctx, { classes: [{ title: 'person', shape: 'rectangle' }] });
      const d = await newDataset(t.ctx, p);
      const crowd = { classTitle: 'person', description: '', tags: ['iscrowd'], bitmap: null, points: { exterior: [[0, 0], [30, 30]] as [number, number][], interior: [] } };
      const one = { ...crowd, tags: [], points: { exterior: [[40, 0], [60, 20]] as [number, number][], interior: [] } };
      const image = (await newImage(t.ctx, d, { width: 64, height: 48, objects: [crowd, one] })).id;
      const put = await t.request({
        method: 'PUT',
        url: `/v2/images/${image}/predictions`,
        payload: {
          model: 'm',
          objects: [
            { classTitle: 'person', points: { exterior: [[5, 5], [15, 15]] }, score: 0.9 },
            { classTitle: 'person', points: { exterior: [[40, 0], [60, 20]] }, score: 0.8 },
          ],
        },
      });
      assert.equal(put.statusCode, 200, put.body);
      const e = json<Evaluation>(await t.request({ method: 'GET', url: `/v2/projects/${p}/evaluation?model=m` }));
      close(e.ap, 1, 'AP');
      assert.deepEqual(e.worstImages, []);
    });

    test('an unknown model, another team’s project or a dataset of another project is a 404; bad queries 400', async () => {
      assertProblem(await evaluate('model=nobody'), 404, 'NOT_FOUND');
      assertProblem(await evaluate('model=shapes', t.otherKey), 404, 'NOT_FOUND');
      const other = await newDataset(t.ctx, await newProject(t.ctx));
      assertProblem(await evaluate(`model=shapes&datasetId=${other}`), 404, 'NOT_FOUND');
      assertProblem(await evaluate('iouType=segm'), 400, 'VALIDATION');
      assertProblem(await evaluate('model=shapes&iouType=keypoints'), 400, 'VALIDATION');
      assertProblem(await evaluate('model=shapes&datasetId=2147483648'), 400, 'VALIDATION');
      assert.equal((await evaluate('model=shapes', t.readOnlyKey)).statusCode, 200);
    });
  });
}
