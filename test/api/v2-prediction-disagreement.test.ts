// The gallery's "disagrees with the annotation" filter on both databases: a model's predictions above a
// score are matched to the annotation's objects of their class at an IoU, and an image is listed when a
// prediction or an object is left unmatched; what is stored is written again with the predictions and
// with the annotation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rewriteAllPredictionAgreement } from '../../src/repositories/prediction-agreement.repository.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';

const box = (x: number, y: number, w: number, h: number) => ({ exterior: [[x, y], [x + w, y + h]] });
const rect = (classTitle: string, x: number, y: number, w: number, h: number) => polygon(classTitle, [[x, y], [x + w, y + h]]);

for (const dialect of dialects) {
  describe(`v2 images disagreeing with a model on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let dataset: number;
    const img: Record<string, number> = {};
    before(async () => {
      t = await startTestApp(dialect);
      const projectId = await newProject(t.ctx, {
        classes: [
          { title: 'car', shape: 'rectangle' },
          { title: 'truck', shape: 'rectangle' },
          { title: 'road', shape: 'polygon' },
        ],
      });
      dataset = await newDataset(t.ctx, projectId);
      const car = [rect('car', 10, 10, 20, 20)];
      for (const name of ['same', 'extra', 'weak', 'shifted', 'otherClass', 'none']) img[name] = (await newImage(t.ctx, dataset, { objects: car })).id;
      img.triangle = (await newImage(t.ctx, dataset, { objects: [polygon('road', [[10, 10], [30, 10], [10, 30]])] })).id;
      img.crowd = (await newImage(t.ctx, dataset, { objects: [polygon('road', [[0, 0], [40, 0], [40, 40], [0, 40]], ['iscrowd'])] })).id;
      const put = async (id: number, objects: unknown[]) =>
        assert.equal((await t.request({ method: 'PUT', url: `/v2/images/${id}/predictions`, payload: { model: 'm', objects } })).statusCode, 200);
      const carAt = (x: number, score: number, classTitle = 'car') => ({ classTitle, points: box(x, 10, 20, 20), score });
      await put(img.same!, [carAt(10, 0.9)]);
      await put(img.extra!, [carAt(10, 0.9), carAt(40, 0.3)]);
      await put(img.weak!, [carAt(10, 0.4)]);
      // IoU 320 / 480 = 0.67.
      await put(img.shifted!, [carAt(14, 0.9)]);
      await put(img.otherClass!, [carAt(10, 0.9, 'truck')]);
      // The square around the triangle: its box is the triangle's, its mask twice the triangle's.
      await put(img.triangle!, [{ classTitle: 'road', points: { exterior: [[10, 10], [30, 10], [30, 30], [10, 30]] }, score: 0.9 }]);
      // A crowd needs no match, and a prediction over it is not unmatched.
      await put(img.crowd!, [{ classTitle: 'road', points: { exterior: [[2, 2], [20, 2], [20, 20], [2, 20]] }, score: 0.9 }]);
    });
    after(async () => t?.close());

    const ids = async (query: string) => {
      const answer = json<{ items: { id: number }[]; total: number }>(await t.request({ method: 'GET', url: `/v2/images?datasetId=${dataset}&count=true&${query}` }));
      assert.equal(answer.total, answer.items.length);
      return answer.items.map((i) => i.id);
    };

    test('an unmatched prediction above the score, an unmatched object or another class disagrees; images without predictions are not listed', async () => {
      assert.deepEqual(await ids('disagreeModel=m'), [img.weak, img.otherClass]);
      assert.deepEqual(await ids('disagreeModel=m&disagreeScore=0.5&disagreeIou=0.5&disagreeIouType=bbox'), [img.weak, img.otherClass]);
      assert.deepEqual(await ids('disagreeModel=m&disagreeScore=0.25'), [img.extra, img.otherClass]);
      assert.deepEqual(await ids('disagreeModel=m&disagreeScore=0.95'), [img.same, img.extra, img.weak, img.shifted, img.otherClass, img.triangle]);
      assert.deepEqual(await ids('disagreeModel=other'), []);
    });

    test('the IoU a match needs, of boxes or of masks', async () => {
      assert.deepEqual(await ids('disagreeModel=m&disagreeIou=0.65'), [img.weak, img.otherClass]);
      assert.deepEqual(await ids('disagreeModel=m&disagreeIou=0.7'), [img.weak, img.shifted, img.otherClass]);
      // The triangle's box and the square's (as their pixels give them) have an IoU of 0.90; their masks 0.475.
      assert.deepEqual(await ids('disagreeModel=m&disagreeIou=0.9&disagreeIouType=bbox'), [img.weak, img.shifted, img.otherClass]);
      assert.deepEqual(await ids('disagreeModel=m&disagreeIou=0.95&disagreeIouType=bbox'), [img.weak, img.shifted, img.otherClass, img.triangle]);
      assert.deepEqual(await ids('disagreeModel=m&disagreeIou=0.5&disagreeIouType=segm'), [img.weak, img.otherClass, img.triangle]);
      assert.deepEqual(await ids('disagreeModel=m&disagreeIou=0.65&disagreeIouType=segm'), [img.weak, img.otherClass, img.triangle]);
      assert.deepEqual(await ids('disagreeModel=m&disagreeIou=0.7&disagreeIouType=segm'), [img.weak, img.shifted, img.otherClass, img.triangle]);
    });

    test('it goes with the other filters and the predictions filter', async () => {
      assert.deepEqual(await ids('disagreeModel=m&predictionScore=0.5'), [img.otherClass]);
      assert.deepEqual(await ids(`disagreeModel=m&classAny=${await classId('truck')}`), []);
    });

    const classId = async (title: string) =>
      (await t.ctx.db.kysely.selectFrom('classes').innerJoin('images', 'images.project_id', 'classes.project_id').select('classes.id').where('images.id', '=', img.same!).where('classes.title', '=', title).executeTakeFirstOrThrow()).id;

    test('a write of the annotation or of the predictions is seen at once', async () => {
      const id = img.none!;
      assert.ok(!(await ids('disagreeModel=m')).includes(id));
      const put = (objects: unknown[]) => t.request({ method: 'PUT', url: `/v2/images/${id}/predictions`, payload: { model: 'm', objects } });
      assert.equal((await put([])).statusCode, 200);
      assert.ok((await ids('disagreeModel=m')).includes(id), 'the car is unmatched');
      assert.equal((await put([{ classTitle: 'car', points: box(10, 10, 20, 20), score: 0.8 }])).statusCode, 200);
      assert.ok(!(await ids('disagreeModel=m')).includes(id));
      const annotation = await t.request({ method: 'GET', url: `/v2/images/${id}/annotation` });
      const saved = await t.request({
        method: 'PUT',
        url: `/v2/images/${id}/annotation`,
        payload: { ...json<Record<string, unknown>>(annotation), objects: [] },
        headers: { 'if-match': String(annotation.headers.etag) },
      });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.ok((await ids('disagreeModel=m')).includes(id), 'the prediction is unmatched');
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/images/${id}/predictions?model=m` })).statusCode, 204);
      assert.ok(!(await ids('disagreeModel=m')).includes(id));
      const left = await t.ctx.db.kysely.selectFrom('prediction_agreement').select('iou').where('image_id', '=', id).execute();
      assert.deepEqual(left, []);
    });

    test('an import of predictions and a class deleted with its objects write it again', async () => {
      const projectId = await newProject(t.ctx, {
        classes: [
          { title: 'car', shape: 'rectangle' },
          { title: 'sign', shape: 'rectangle' },
          { title: 'pole', shape: 'point' },
        ],
      });
      const ds = await newDataset(t.ctx, projectId);
      const id = (await newImage(t.ctx, ds, { name: 'a.png', objects: [rect('car', 10, 10, 20, 20), rect('sign', 40, 5, 10, 10), polygon('pole', [[5, 5]])] })).id;
      const list = async () =>
        json<{ items: { id: number }[] }>(await t.request({ method: 'GET', url: `/v2/images?projectId=${projectId}&disagreeModel=coco` })).items.map((i) => i.id);
      const imported = await t.request({
        method: 'POST',
        url: `/v2/projects/${projectId}/predictions`,
        payload: { model: 'coco', format: 'coco', results: [{ image_id: id, category_id: await idOf(projectId, 'car'), bbox: [10, 10, 20, 20], score: 0.9 }] },
      });
      assert.equal(imported.statusCode, 200, imported.body);
      // The sign is unmatched; the pole (a point) is not compared.
      assert.deepEqual(await list(), [id]);
      const sign = await idOf(projectId, 'sign');
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/classes/${sign}?cascade=true` })).statusCode, 204);
      assert.deepEqual(await list(), []);
    });

    const idOf = async (projectId: number, title: string) =>
      (await t.ctx.db.kysely.selectFrom('classes').select('id').where('project_id', '=', projectId).where('title', '=', title).executeTakeFirstOrThrow()).id;

    test('the migration’s backfill writes the same rows', async () => {
      const read = () => t.ctx.db.kysely.selectFrom('prediction_agreement').selectAll().orderBy('image_id').orderBy('model').orderBy('iou_type').orderBy('iou').execute();
      const before = await read();
      assert.equal(before.length % 20, 0);
      await t.ctx.db.kysely.deleteFrom('prediction_agreement').execute();
      await rewriteAllPredictionAgreement(t.ctx.db.kysely);
      assert.deepEqual(await read(), before);
    });

    test('bad values are 400s; another team’s dataset is a 404', async () => {
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?datasetId=${dataset}&disagreeModel=m&disagreeIou=0.52` }), 400, 'VALIDATION');
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?datasetId=${dataset}&disagreeModel=m&disagreeIou=0.4` }), 400, 'VALIDATION');
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?datasetId=${dataset}&disagreeScore=0.5` }), 400, 'VALIDATION');
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?datasetId=${dataset}&disagreeModel=m&disagreeIouType=area` }), 400, 'VALIDATION');
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?datasetId=${dataset}&disagreeModel=m`, key: t.otherKey }), 404, 'NOT_FOUND');
    });
  });
}
