// Predictions under /v2 on both databases: a layer per model beside the annotation, replaced whole,
// never mixed into the annotation, checked like an annotation, behind the team's wall.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';

interface Prediction {
  index: number;
  classId: number;
  classTitle: string;
  geometryType: string;
  points: { exterior: number[][]; interior: number[][][] };
  bitmap: unknown;
  score: number;
}
interface ModelPredictions {
  model: string;
  updatedAt: string;
  objects: Prediction[];
}

const box = (x: number, y: number, w: number, h: number) => ({ exterior: [[x, y], [x + w, y + h]] });

for (const dialect of dialects) {
  describe(`v2 predictions on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let imageId: number;
    let carId: number;
    let datasetId: number;
    before(async () => {
      t = await startTestApp(dialect);
      const projectId = await newProject(t.ctx, {
        classes: [
          { title: 'car', shape: 'rectangle' },
          { title: 'road', shape: 'polygon' },
        ],
      });
      const dataset = await newDataset(t.ctx, projectId);
      datasetId = dataset;
      imageId = (await newImage(t.ctx, dataset, { objects: [polygon('road', [[0, 40], [64, 40], [64, 48]])] })).id;
      const car = await t.ctx.db.kysely.selectFrom('classes').select('id').where('project_id', '=', projectId).where('title', '=', 'car').executeTakeFirstOrThrow();
      carId = car.id;
    });
    after(async () => t?.close());

    const put = (body: unknown, id = imageId, key?: string) => t.request({ method: 'PUT', url: `/v2/images/${id}/predictions`, payload: body as object, ...(key ? { key } : {}) });
    const get = (query = '', id = imageId, key?: string) => t.request({ method: 'GET', url: `/v2/images/${id}/predictions${query}`, ...(key ? { key } : {}) });

    test('a model’s predictions are stored beside the annotation, highest score first, classes by title or id', async () => {
      const res = await put({
        model: 'yolo-v8',
        objects: [
          { classTitle: 'car', points: box(1, 1, 10, 10), score: 0.4 },
          { classId: carId, geometryType: 'rectangle', points: box(20, 5, 8, 6), score: 0.9 },
          { classTitle: 'road', points: { exterior: [[0, 30], [64, 30], [64, 48]] }, score: 0.75 },
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      const answer = json<ModelPredictions>(res);
      assert.equal(answer.model, 'yolo-v8');
      assert.deepEqual(answer.objects.map((o) => [o.index, o.classTitle, o.score]), [[0, 'car', 0.9], [1, 'road', 0.75], [2, 'car', 0.4]]);
      assert.deepEqual(answer.objects[0]!.points, { exterior: [[20, 5], [28, 11]], interior: [] });
      assert.equal(answer.objects[0]!.classId, carId);
      assert.equal(answer.objects[0]!.geometryType, 'rectangle');

      const annotation = json<{ objects: { classTitle: string }[] }>(await t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation` }));
      assert.deepEqual(annotation.objects.map((o) => o.classTitle), ['road'], 'the annotation is untouched');

      assert.equal((await put({ model: 'detr', objects: [{ classTitle: 'car', points: box(2, 2, 5, 5), score: 0.5 }] })).statusCode, 200);
      const all = json<{ imageId: number; models: ModelPredictions[] }>(await get());
      assert.equal(all.imageId, imageId);
      assert.deepEqual(all.models.map((m) => [m.model, m.objects.length]), [['detr', 1], ['yolo-v8', 3]]);
      assert.deepEqual(json<{ models: ModelPredictions[] }>(await get('?model=detr')).models.map((m) => m.model), ['detr']);
    });

    test('a PUT replaces that model’s predictions only; DELETE removes one model’s or all', async () => {
      assert.equal((await put({ model: 'a', objects: [{ classTitle: 'car', points: box(1, 1, 3, 3), score: 0.1 }] })).statusCode, 200);
      assert.equal((await put({ model: 'b', objects: [{ classTitle: 'car', points: box(1, 1, 3, 3), score: 0.2 }] })).statusCode, 200);
      assert.equal((await put({ model: 'a', objects: [] })).statusCode, 200);
      const models = json<{ models: ModelPredictions[] }>(await get()).models;
      assert.deepEqual(models.filter((m) => m.model === 'a' || m.model === 'b').map((m) => [m.model, m.objects.length]), [['a', 0], ['b', 1]]);

      assert.equal((await t.request({ method: 'DELETE', url: `/v2/images/${imageId}/predictions?model=b` })).statusCode, 204);
      assertProblem(await t.request({ method: 'DELETE', url: `/v2/images/${imageId}/predictions?model=b` }), 404, 'NOT_FOUND');
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/images/${imageId}/predictions` })).statusCode, 204);
      assert.deepEqual(json<{ models: unknown[] }>(await get()).models, []);
    });

    test('bad predictions are 400s naming the value', async () => {
      assertProblem(await put({ model: 'm', objects: [{ classTitle: 'boat', points: box(1, 1, 2, 2), score: 0.5 }] }), 400, 'VALIDATION', { pointer: '/objects/0/classTitle' });
      assertProblem(await put({ model: 'm', objects: [{ classId: 2_000_000, points: box(1, 1, 2, 2), score: 0.5 }] }), 400, 'VALIDATION', { pointer: '/objects/0/classId' });
      assertProblem(await put({ model: 'm', objects: [{ classTitle: 'car', points: box(1, 1, 2, 2), score: 1.5 }] }), 400, 'VALIDATION', { pointer: '/objects/0/score' });
      assertProblem(await put({ model: 'm', objects: [{ classTitle: 'car', points: box(1, 1, 2, 2) }] }), 400, 'VALIDATION');
      assertProblem(await put({ model: 'm', objects: [{ classTitle: 'car', geometryType: 'polygon', points: box(1, 1, 2, 2), score: 0.5 }] }), 400, 'VALIDATION', {
        pointer: '/objects/0/geometryType',
      });
      assertProblem(await put({ model: 'm', objects: [{ classTitle: 'road', points: { exterior: [[1, 1]] }, score: 0.5 }] }), 400, 'VALIDATION');
      assertProblem(await put({ model: '', objects: [] }), 400, 'VALIDATION', { pointer: '/model' });
      assertProblem(await put({ model: 'x'.repeat(201), objects: [] }), 400, 'VALIDATION', { pointer: '/model' });
      const many = Array.from({ length: 10_001 }, () => ({ classTitle: 'car', points: box(1, 1, 2, 2), score: 0.5 }));
      assertProblem(await put({ model: 'm', objects: many }), 400, 'VALIDATION');
      assert.deepEqual(json<{ models: unknown[] }>(await get('?model=m')).models, [], 'nothing was stored');
    });

    test('an image keeps at most 50 models’ predictions', async () => {
      const other = (await newImage(t.ctx, datasetId)).id;
      for (let i = 0; i < 50; i++) assert.equal((await put({ model: `m${i}`, objects: [] }, other)).statusCode, 200);
      assertProblem(await put({ model: 'one more', objects: [] }, other), 400, 'VALIDATION', { pointer: '/model' });
      assert.equal((await put({ model: 'm3', objects: [] }, other)).statusCode, 200, 'a model it has may still be replaced');
    });

    test('another team’s image is not found; a read-only key reads but does not write', async () => {
      assertProblem(await get('', imageId, t.otherKey), 404, 'NOT_FOUND');
      assertProblem(await put({ model: 'm', objects: [] }, imageId, t.otherKey), 404, 'NOT_FOUND');
      assertProblem(await t.request({ method: 'DELETE', url: `/v2/images/${imageId}/predictions`, key: t.otherKey }), 404, 'NOT_FOUND');
      assert.equal((await get('', imageId, t.readOnlyKey)).statusCode, 200);
      assertProblem(await put({ model: 'm', objects: [] }, imageId, t.readOnlyKey), 403, 'FORBIDDEN');
      assertProblem(await get('', 2_147_483_648), 400, 'VALIDATION');
    });

    test('GET /v2/images?predictionScore= lists the images with a prediction scored at least that, of a model when given', async () => {
      const projectId = (await t.ctx.db.kysely.selectFrom('images').select('project_id').where('id', '=', imageId).executeTakeFirstOrThrow()).project_id;
      const dataset = await newDataset(t.ctx, projectId, 'filtered');
      const [high, low, none] = [(await newImage(t.ctx, dataset)).id, (await newImage(t.ctx, dataset)).id, (await newImage(t.ctx, dataset)).id];
      assert.equal((await put({ model: 'f', objects: [{ classTitle: 'car', points: box(1, 1, 3, 3), score: 0.2 }, { classTitle: 'car', points: box(5, 5, 3, 3), score: 0.85 }] }, high)).statusCode, 200);
      assert.equal((await put({ model: 'f', objects: [{ classTitle: 'car', points: box(1, 1, 3, 3), score: 0.4 }] }, low)).statusCode, 200);
      assert.equal((await put({ model: 'g', objects: [{ classTitle: 'car', points: box(1, 1, 3, 3), score: 0.95 }] }, low)).statusCode, 200);
      const ids = async (query: string) =>
        json<{ items: { id: number }[]; total: number }>(await t.request({ method: 'GET', url: `/v2/images?datasetId=${dataset}&count=true&${query}` })).items.map((i) => i.id);
      assert.deepEqual(await ids('predictionScore=0.8'), [high, low]);
      assert.deepEqual(await ids('predictionScore=0.8&predictionModel=f'), [high]);
      assert.deepEqual(await ids('predictionScore=0.3&predictionModel=f'), [high, low]);
      assert.deepEqual(await ids('predictionScore=0'), [high, low]);
      assert.ok(!(await ids('predictionScore=0')).includes(none));
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?datasetId=${dataset}&predictionScore=2` }), 400, 'VALIDATION');
      assertProblem(await t.request({ method: 'GET', url: `/v2/images?datasetId=${dataset}&predictionModel=f` }), 400, 'VALIDATION');
    });

    test('GET /v2/projects/:id/predictions/models lists the project’s models with the images and objects of each', async () => {
      const projectId = await newProject(t.ctx, { classes: [{ title: 'car', shape: 'rectangle' }] });
      const dataset = await newDataset(t.ctx, projectId);
      const [first, second] = [(await newImage(t.ctx, dataset)).id, (await newImage(t.ctx, dataset)).id];
      const models = async (key?: string) => t.request({ method: 'GET', url: `/v2/projects/${projectId}/predictions/models`, ...(key ? { key } : {}) });
      assert.deepEqual(json<{ items: unknown[] }>(await models()).items, []);
      const car = (x: number, score: number) => ({ classTitle: 'car', points: box(x, 1, 3, 3), score });
      assert.equal((await put({ model: 'yolo', objects: [car(1, 0.9), car(8, 0.3)] }, first)).statusCode, 200);
      assert.equal((await put({ model: 'yolo', objects: [car(1, 0.5)] }, second)).statusCode, 200);
      assert.equal((await put({ model: 'detr', objects: [car(1, 0.7)] }, second)).statusCode, 200);
      assert.deepEqual(json<{ items: unknown[] }>(await models()).items, [
        { model: 'detr', images: 1, objects: 1 },
        { model: 'yolo', images: 2, objects: 3 },
      ]);
      assertProblem(await models(t.otherKey), 404, 'NOT_FOUND');
    });

    test('deleting the image deletes its predictions', async () => {
      const other = (await newImage(t.ctx, datasetId)).id;
      assert.equal((await put({ model: 'gone', objects: [{ classTitle: 'car', points: box(1, 1, 3, 3), score: 0.3 }] }, other)).statusCode, 200);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/images/${other}` })).statusCode, 204);
      const rows = await t.ctx.db.kysely.selectFrom('image_predictions').select('model').where('image_id', '=', other).execute();
      assert.deepEqual(rows, []);
    });
  });
}
