// One image's annotation under v2: stable object ids, ETag and If-Match, PUT and PATCH checked as an
// import checks an annotation, and v1's records in step with every edit. On both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type AnnotationObject, serializeObjects } from '../../src/formats/canonical.ts';
import { createContext } from '../../src/context.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon, tagImage } from '../helpers/factories.ts';
import { type ProjectFile, uploadProject, waitForTask, withImportRunner } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { waitForLockWaitOn } from '../helpers/pg-lock-wait.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';

interface IdentifiedObject extends AnnotationObject {
  id: number;
}

interface Annotation {
  description: string;
  tags: string[];
  name: string;
  size: { width: number; height: number };
  objects: IdentifiedObject[];
}

interface V1Record {
  imageId: number;
  data: { description: string; tags: string[]; name: string; size: { width: number; height: number }; objects: AnnotationObject[] };
}

const CLASSES = [
  { title: 'car', shape: 'polygon' },
  { title: 'box', shape: 'rectangle' },
  { title: 'pin', shape: 'point' },
];
const TRIANGLE: [number, number][] = [[1, 1], [9, 1], [5, 8]];
const SQUARE: [number, number][] = [[2, 2], [6, 2], [6, 6], [2, 6]];
const box = (l: number, t: number, r: number, b: number): AnnotationObject => ({
  classTitle: 'box',
  description: '',
  tags: [],
  bitmap: null,
  points: { exterior: [[l, t], [r, b]], interior: [] },
});

/** The object as v1 shows it: the v2 one without its id. */
const withoutId = ({ id: _id, ...rest }: IdentifiedObject): AnnotationObject => rest;

for (const dialect of dialects) {
  describe(`v2 image annotations on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(async () => t?.close());

    const url = (imageId: number) => `/v2/images/${imageId}/annotation`;
    const get = (imageId: number, headers: Record<string, string> = {}, key?: string) => t.request({ method: 'GET', url: url(imageId), headers, ...(key ? { key } : {}) });
    const put = (imageId: number, body: unknown, ifMatch?: string, key?: string) =>
      t.request({ method: 'PUT', url: url(imageId), payload: body as object, headers: ifMatch ? { 'if-match': ifMatch } : {}, ...(key ? { key } : {}) });
    const patch = (imageId: number, body: unknown, ifMatch?: string, key?: string) =>
      t.request({ method: 'PATCH', url: url(imageId), payload: body as object, headers: ifMatch ? { 'if-match': ifMatch } : {}, ...(key ? { key } : {}) });
    const read = async (imageId: number) => {
      const res = await get(imageId);
      assert.equal(res.statusCode, 200, res.body);
      return { annotation: json<Annotation>(res), etag: String(res.headers.etag) };
    };
    /** The stored text of the objects is what serializeObjects writes, whatever pieces it was made of. */
    const assertStoredAsV1Writes = async (imageId: number) => {
      const row = await t.ctx.db.kysely.selectFrom('images').select('objects_json').where('id', '=', imageId).executeTakeFirstOrThrow();
      assert.equal(row.objects_json, serializeObjects(JSON.parse(row.objects_json) as AnnotationObject[]));
    };
    const v1Page = async (projectId: number) => {
      const res = await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.body;
    };

    /** A project of CLASSES with one dataset and an image of three objects. */
    async function seed(objects: AnnotationObject[] = [polygon('car', TRIANGLE), box(1, 2, 5, 6), polygon('car', SQUARE)]) {
      const projectId = await newProject(t.ctx, { classes: CLASSES });
      const datasetId = await newDataset(t.ctx, projectId);
      const image = await newImage(t.ctx, datasetId, { name: 'a.png', width: 64, height: 48, description: 'first', objects });
      return { projectId, datasetId, imageId: image.id };
    }

    test('GET answers v1’s record data with ids 1..n, an ETag, and 304 to If-None-Match', async () => {
      const { projectId, imageId } = await seed();
      const tagId = await newTag(t.ctx, projectId, { scope: 'images', title: 'sunny' });
      await tagImage(t.ctx, imageId, tagId);
      const res = await get(imageId);
      assert.equal(res.statusCode, 200, res.body);
      const annotation = json<Annotation>(res);
      const [record] = json<V1Record[]>(await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` }));
      assert.deepEqual(annotation.objects.map((o) => o.id), [1, 2, 3]);
      assert.deepEqual({ ...annotation, objects: annotation.objects.map(withoutId) }, record!.data);
      assert.deepEqual(annotation.tags, ['sunny']);
      const etag = res.headers.etag;
      assert.match(String(etag), /^"[^"]+"$/);

      const again = await get(imageId, { 'if-none-match': String(etag) });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
    });

    test('PUT keeps the ids sent, gives new objects fresh ids, and a removed id is never given again', async () => {
      const { imageId } = await seed();
      const { annotation, etag } = await read(imageId);
      const [first, , third] = annotation.objects;
      const sent = {
        ...annotation,
        description: 'edited',
        objects: [{ ...third!, description: 'moved first' }, first!, { ...withoutId(first!), points: { exterior: SQUARE, interior: [] } }],
      };
      const res = await put(imageId, sent, etag);
      assert.equal(res.statusCode, 200, res.body);
      const answered = json<Annotation>(res);
      assert.deepEqual(answered.objects.map((o) => o.id), [3, 1, 4]);
      assert.equal(answered.objects[0]!.description, 'moved first');
      assert.equal(answered.description, 'edited');
      assert.notEqual(res.headers.etag, etag);

      const reread = await read(imageId);
      assert.deepEqual(reread.annotation, answered);
      assert.equal(reread.etag, res.headers.etag);

      // Object 4 removed, then a new object: it gets 5, not 4.
      const [kept1, kept2] = reread.annotation.objects;
      const next = await put(imageId, { objects: [kept1, kept2, { classTitle: 'pin', points: { exterior: [[3, 3]] } }] }, reread.etag);
      assert.equal(next.statusCode, 200, next.body);
      assert.deepEqual(json<Annotation>(next).objects.map((o) => o.id), [3, 1, 5]);
      assert.deepEqual(json<Annotation>(next).objects.slice(0, 2), [kept1, kept2]);
      await assertStoredAsV1Writes(imageId);
      // One object changed among unchanged ones: the unchanged keep their stored text, the changed
      // one is written anew.
      const latest = json<Annotation>(next);
      const moved = await put(imageId, { objects: [latest.objects[0], { ...latest.objects[1]!, points: { exterior: SQUARE, interior: [] } }, latest.objects[2]] }, String(next.headers.etag));
      assert.equal(moved.statusCode, 200, moved.body);
      assert.deepEqual(json<Annotation>(moved).objects[1]!.points.exterior, SQUARE);
      assert.deepEqual((await read(imageId)).annotation, json<Annotation>(moved));
      await assertStoredAsV1Writes(imageId);
      // The description was left out: a PUT replaces it with none, as an annotation file without one.
      assert.equal(json<Annotation>(next).description, '');
    });

    test('PATCH adds, changes and removes objects by id; the others keep theirs', async () => {
      const { imageId } = await seed();
      const { etag } = await read(imageId);
      const res = await patch(
        imageId,
        { remove: [2], change: [{ id: 3, description: 'a square', points: { exterior: SQUARE.map(([x, y]) => [x + 1, y + 1]) } }], add: [box(10, 10, 4, 4)] },
        etag,
      );
      assert.equal(res.statusCode, 200, res.body);
      const answered = json<Annotation>(res);
      assert.deepEqual(answered.objects.map((o) => o.id), [1, 3, 4]);
      assert.equal(answered.objects[1]!.description, 'a square');
      assert.deepEqual(answered.objects[1]!.points.exterior[0], [3, 3]);
      // The import's rules apply: a rectangle's corners come back as [[left, top], [right, bottom]].
      assert.deepEqual(answered.objects[2]!.points.exterior, [[4, 4], [10, 10]]);
      assert.deepEqual((await read(imageId)).annotation, answered);

      await assertStoredAsV1Writes(imageId);

      const again = await patch(imageId, { remove: [4], add: [box(0, 0, 1, 1)] }, String(res.headers.etag));
      assert.deepEqual(json<Annotation>(again).objects.map((o) => o.id), [1, 3, 5]);
      await assertStoredAsV1Writes(imageId);
    });

    test('v1 shows the edit, without ids, and nothing else changes', async () => {
      const { projectId, datasetId, imageId } = await seed();
      const other = await newImage(t.ctx, datasetId, { name: 'b.png', objects: [polygon('car', TRIANGLE, [])] });
      const figure = await newTag(t.ctx, projectId, { scope: 'figures', title: 'occluded' });
      await newTag(t.ctx, projectId, { scope: 'images', title: 'sunny' });
      const before = await v1Page(projectId);

      // Sent back as read: v1's page is the same, byte for byte.
      const { annotation, etag } = await read(imageId);
      const same = await put(imageId, annotation, etag);
      assert.equal(same.statusCode, 200, same.body);
      assert.equal(same.headers.etag, etag);
      assert.equal(await v1Page(projectId), before);

      const edited = {
        description: 'after',
        tags: ['sunny'],
        objects: [{ ...annotation.objects[1]!, tags: ['occluded'] }, { classTitle: 'pin', points: { exterior: [[4, 5]] } }],
      };
      const res = await put(imageId, edited, etag);
      assert.equal(res.statusCode, 200, res.body);
      const records = json<V1Record[]>({ body: await v1Page(projectId) } as LightMyRequestResponse);
      const beforeRecords = json<V1Record[]>({ body: before } as LightMyRequestResponse);
      assert.deepEqual(records.find((r) => r.imageId === other.id), beforeRecords.find((r) => r.imageId === other.id));
      assert.deepEqual(records.find((r) => r.imageId === imageId)!.data, {
        description: 'after',
        tags: ['sunny'],
        name: 'a.png',
        size: { width: 64, height: 48 },
        objects: [
          { ...withoutId(annotation.objects[1]!), tags: ['occluded'] },
          { classTitle: 'pin', description: '', tags: [], bitmap: null, points: { exterior: [[4, 5]], interior: [] } },
        ],
      });
      assert.equal((await v1Page(projectId)).includes('"id"'), false);

      // What v1 derives from the annotation came along: the image tag, and the figure tag's reference,
      // so renaming the tag reaches the edited object.
      const rename = await t.request({ method: 'PUT', url: `/v1/projects/${projectId}/tags/${figure}`, payload: { type: 'figures', title: 'hidden' } });
      assert.equal(rename.statusCode, 200, rename.body);
      const renamed = json<V1Record[]>({ body: await v1Page(projectId) } as LightMyRequestResponse).find((r) => r.imageId === imageId)!;
      assert.deepEqual(renamed.data.objects[0]!.tags, ['hidden']);
      // The ids stay with their objects through the rename.
      assert.deepEqual((await read(imageId)).annotation.objects.map((o) => o.id), [2, 4]);
    });

    test('a class deleted with its objects, or renamed, leaves the other objects their ids', async () => {
      const { projectId, imageId } = await seed([polygon('car', TRIANGLE), box(1, 2, 5, 6), polygon('car', SQUARE), box(2, 2, 3, 3)]);
      // Ids of their own first: 1 removed, a new object 5.
      const { etag } = await read(imageId);
      const edited = await patch(imageId, { remove: [1], add: [polygon('car', TRIANGLE)] }, etag);
      assert.deepEqual(json<Annotation>(edited).objects.map((o) => o.id), [2, 3, 4, 5]);

      const classId = async (title: string) =>
        (await t.ctx.db.kysely.selectFrom('classes').select('id').where('project_id', '=', projectId).where('title', '=', title).executeTakeFirstOrThrow()).id;
      const rename = await t.request({ method: 'PATCH', url: `/v2/classes/${await classId('car')}`, payload: { title: 'vehicle' } });
      assert.equal(rename.statusCode, 200, rename.body);
      const removed = await t.request({ method: 'DELETE', url: `/v2/classes/${await classId('box')}?cascade=true` });
      assert.equal(removed.statusCode, 204, removed.body);

      const after = (await read(imageId)).annotation;
      assert.deepEqual(after.objects.map((o) => [o.id, o.classTitle]), [[3, 'vehicle'], [5, 'vehicle']]);
      const [record] = json<V1Record[]>({ body: await v1Page(projectId) } as LightMyRequestResponse);
      assert.deepEqual(record!.data.objects, after.objects.map(withoutId));
      // The next new object still gets an id never used in the image.
      const added = await patch(imageId, { add: [polygon('vehicle', SQUARE)] });
      assert.deepEqual(json<Annotation>(added).objects.map((o) => o.id), [3, 5, 6]);
    });

    test('a stale If-Match is a 412 naming the current ETag, and nothing is written', async () => {
      const { imageId } = await seed();
      const { annotation, etag } = await read(imageId);
      const first = await patch(imageId, { remove: [1] }, etag);
      assert.equal(first.statusCode, 200, first.body);
      const current = String(first.headers.etag);

      const stalePut = assertProblem(await put(imageId, annotation, etag), 412, 'PRECONDITION_FAILED');
      assert.equal(stalePut.etag, current);
      assertProblem(await patch(imageId, { remove: [2] }, etag), 412, 'PRECONDITION_FAILED');
      assert.deepEqual((await read(imageId)).annotation.objects.map((o) => o.id), [2, 3]);
      // `*` and a list holding the current tag both match.
      assert.equal((await patch(imageId, { remove: [2] }, `${etag}, ${current}`)).statusCode, 200);
      assert.equal((await patch(imageId, { remove: [3] }, '*')).statusCode, 200);
    });

    // A rename holds its class row for update and then rewrites the images naming the class; here
    // another connection holds the row and renames the class while a PUT naming it is answered. On
    // SQLite the second connection would run in this thread and could not wait for the first.
    test('a PUT naming a class that a rename holds waits for it and is then refused, not written with the old title', { skip: dialect.name !== 'postgres' }, async () => {
      const { projectId, imageId } = await seed();
      const { annotation } = await read(imageId);
      const other = await createContext(t.config, { migrate: false });
      try {
        let answer: ReturnType<typeof put> | undefined;
        await other.db.kysely.transaction().execute(async (trx) => {
          await trx.selectFrom('classes').select('id').where('project_id', '=', projectId).where('title', '=', 'car').forUpdate().execute();
          answer = put(imageId, { ...annotation, description: 'during a rename' });
          await waitForLockWaitOn(trx);
          await trx.updateTable('classes').set({ title: 'auto' }).where('project_id', '=', projectId).where('title', '=', 'car').execute();
        });
        assertProblem(await answer!, 409, 'CONFLICT');
        assert.equal((await read(imageId)).annotation.description, 'first', 'nothing was written');
      } finally {
        await other.close();
      }
    });

    test('of two PUTs with the same If-Match, exactly one wins and the other is a 412', async () => {
      const { imageId } = await seed();
      const { annotation, etag } = await read(imageId);
      const one = { ...annotation, description: 'one' };
      const two = { ...annotation, description: 'two', objects: annotation.objects.slice(1) };
      const answers = await Promise.all([put(imageId, one, etag), put(imageId, two, etag)]);
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 412], answers.map((a) => a.body).join('\n'));
      const winner = json<Annotation>(answers.find((a) => a.statusCode === 200)!);
      assert.deepEqual((await read(imageId)).annotation, winner);
    });

    test('an annotation the import would refuse is a 400 pointing at the value', async () => {
      const { projectId, imageId } = await seed();
      await newTag(t.ctx, projectId, { scope: 'images', title: 'sunny' });
      await newTag(t.ctx, projectId, { scope: 'figures', title: 'occluded' });
      const { annotation, etag } = await read(imageId);
      const objects = annotation.objects;
      const cases: [unknown, string][] = [
        [{ objects: [...objects, { classTitle: 'plane', points: { exterior: TRIANGLE } }] }, '/objects/3/classTitle'],
        [{ objects: [objects[0], { ...objects[1], points: { exterior: TRIANGLE, interior: [] } }] }, '/objects/1/points/exterior'],
        [{ objects: [{ ...objects[0], geometryType: 'rectangle' }] }, '/objects/0/geometryType'],
        [{ objects: [{ ...objects[0], points: { exterior: [[1, 1], [2, 2]], interior: [] } }] }, '/objects/0/points/exterior'],
        [{ objects: [{ ...objects[0], points: { exterior: TRIANGLE, interior: [[[1, 1]]] } }] }, '/objects/0/points/interior/0'],
        [{ objects: [{ ...objects[0], points: 'none' }] }, '/objects/0/points'],
        [{ objects: [{ ...objects[0], id: 99 }] }, '/objects/0/id'],
        [{ objects: [objects[0], { ...objects[1], id: objects[0]!.id }] }, '/objects/1/id'],
        [{ tags: ['rainy'], objects }, '/tags/0'],
        [{ tags: ['occluded'], objects }, '/tags/0'],
        [{ tags: ['sunny', 'sunny'], objects }, '/tags/1'],
        [{ objects: [objects[0], { ...objects[1], tags: ['sunny'] }] }, '/objects/1/tags/0'],
        [{ size: { width: 10, height: 10 }, objects }, '/size'],
        [{ name: 'other.png', objects }, '/name'],
        [{ objects, extra: true }, '/extra'],
        [{ description: 'x'.repeat(t.config.limits.descriptionLength + 1), objects }, '/description'],
        [{ objects: [objects[0], { ...objects[1], description: 'a\0b' }] }, '/objects/1/description'],
      ];
      for (const [body, pointer] of cases) assertProblem(await put(imageId, body, etag), 400, 'VALIDATION', { pointer });

      const patches: [unknown, string][] = [
        [{ remove: [9] }, '/remove/0'],
        [{ remove: [1, 1] }, '/remove/1'],
        [{ change: [{ id: 7, description: 'x' }] }, '/change/0/id'],
        [{ remove: [2], change: [{ id: 2, description: 'x' }] }, '/change/0/id'],
        [{ change: [{ id: 1, classTitle: 'box' }] }, '/change/0/points/exterior'],
        [{ change: [{ id: 1, tags: ['nope'] }] }, '/change/0/tags/0'],
        [{ add: [{ classTitle: 'pin', points: { exterior: TRIANGLE } }] }, '/add/0/points/exterior'],
        [{ add: [{ classTitle: 'pin', points: { exterior: [[1, 1]] }, id: 3 }] }, '/add/0/id'],
        [{ add: [box(0, 0, 1, 1), { classTitle: 'ghost', points: { exterior: [[1, 1]] } }] }, '/add/1/classTitle'],
      ];
      for (const [body, pointer] of patches) assertProblem(await patch(imageId, body, etag), 400, 'VALIDATION', { pointer });
      // Nothing of it was written.
      assert.equal((await read(imageId)).etag, etag);
    });

    test('another team’s image is a 404 like a missing one; a read-only key may read but not write', async () => {
      const { imageId } = await seed();
      const { annotation, etag } = await read(imageId);
      const missing = assertProblem(await get(999_999), 404, 'NOT_FOUND');
      for (const res of [await get(imageId, {}, t.otherKey), await put(imageId, annotation, etag, t.otherKey), await patch(imageId, { remove: [1] }, etag, t.otherKey)]) {
        const problem = assertProblem(res, 404, 'NOT_FOUND');
        assert.equal(problem.detail, missing.detail);
      }
      assert.equal((await get(imageId, {}, t.readOnlyKey)).statusCode, 200);
      assertProblem(await put(imageId, annotation, etag, t.readOnlyKey), 403, 'FORBIDDEN');
      assertProblem(await patch(imageId, { remove: [1] }, etag, t.readOnlyKey), 403, 'FORBIDDEN');
      assert.equal((await read(imageId)).etag, etag);
    });
  });
}

/** A Supervisely project of one annotated image, `a.png`, whose image tag has a value. */
async function importedProject(description: string): Promise<ProjectFile[]> {
  const file = (value: unknown) => Buffer.from(JSON.stringify(value));
  const meta = {
    classes: [
      { title: 'car', shape: 'polygon', color: '#FF0000' },
      { title: 'sign', shape: 'rectangle', color: '#00FF00' },
    ],
    tags_images: ['weather'],
    tags_objects: ['occluded'],
  };
  const annotation = {
    description,
    tags: [{ name: 'weather', value: 'rain' }],
    size: { width: 64, height: 48 },
    objects: [
      { classTitle: 'car', description: '', tags: ['occluded'], bitmap: null, points: { exterior: TRIANGLE, interior: [] } },
      { classTitle: 'sign', description: '', tags: [], bitmap: null, points: { exterior: [[40, 30], [2, 3]], interior: [] } },
    ],
  };
  return [
    { path: 'meta.json', type: 'class', content: file(meta) },
    { path: 'city/img/a.png', type: 'image', content: await pngImage(64, 48, 7) },
    { path: 'city/ann/a.png.json', type: 'annotation', content: file(annotation) },
  ];
}

for (const dialect of dialects) {
  describe(`v2 annotations of imported images on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    withImportRunner(dialect, (app) => {
      t = app;
    });

    const importInto = async (project: { id: number | null; title?: string }, description: string, onConflict = 'ignore') => {
      const files = await uploadProject(t, await importedProject(description));
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project, preset: 1, onConflict, files } });
      assert.equal(res.statusCode, 200, res.body);
      const task = await waitForTask(t, json<{ taskId: number }>(res).taskId);
      assert.equal(task.status, 'finished', JSON.stringify(task.meta));
      return task.meta.project.id as number;
    };
    const records = async (projectId: number) => json<V1Record[]>(await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` }));
    const tagValue = async (imageId: number) =>
      (await t.ctx.db.kysely.selectFrom('image_tags').select('value').where('image_id', '=', imageId).executeTakeFirstOrThrow()).value;

    test('an imported annotation has ids 1..n; edits keep tag values; a replacing re-import starts a new image at 1..n', async () => {
      const projectId = await importInto({ id: null, title: 'imported' }, 'first');
      const [record] = await records(projectId);
      const imageId = record!.imageId;
      const read = await t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation` });
      assert.equal(read.statusCode, 200, read.body);
      const annotation = json<Annotation>(read);
      assert.deepEqual(annotation.objects.map((o) => o.id), [1, 2]);
      // v2 shows the image tag's value beside the titles v1 shows.
      const { tagValues, ...asV1 } = annotation as Annotation & { tagValues?: Record<string, unknown> };
      assert.deepEqual(tagValues, { weather: 'rain' });
      assert.deepEqual({ ...asV1, objects: annotation.objects.map(withoutId) }, record!.data);
      assert.equal(await tagValue(imageId), '"rain"');

      // Sent back as read, v1's page stays the same bytes: the import's text of the objects is the one
      // the edit writes, and the image tag, named by its title only, keeps the value the import stored.
      const v1Before = (await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` })).body;
      const same = await t.request({ method: 'PUT', url: `/v2/images/${imageId}/annotation`, payload: annotation, headers: { 'if-match': String(read.headers.etag) } });
      assert.equal(same.statusCode, 200, same.body);
      assert.equal(same.headers.etag, read.headers.etag);
      assert.equal((await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` })).body, v1Before);
      assert.equal(await tagValue(imageId), '"rain"');

      const removed = await t.request({
        method: 'PUT',
        url: `/v2/images/${imageId}/annotation`,
        payload: { ...annotation, objects: annotation.objects.slice(1) },
        headers: { 'if-match': String(read.headers.etag) },
      });
      assert.equal(removed.statusCode, 200, removed.body);
      assert.deepEqual(json<Annotation>(removed).objects.map((o) => o.id), [2]);
      assert.equal(await tagValue(imageId), '"rain"');
      const added = await t.request({ method: 'PATCH', url: `/v2/images/${imageId}/annotation`, payload: { add: [polygon('car', SQUARE)] } });
      assert.deepEqual(json<Annotation>(added).objects.map((o) => o.id), [2, 3]);

      // onConflict ignore leaves the edited image as it is; replace puts a new image in its place.
      await importInto({ id: projectId }, 'second', 'ignore');
      assert.deepEqual((await records(projectId)).map((r) => [r.imageId, r.data.objects.length]), [[imageId, 2]]);
      await importInto({ id: projectId }, 'third', 'replace');
      const [replacing] = await records(projectId);
      assert.notEqual(replacing!.imageId, imageId);
      assert.equal(replacing!.data.description, 'third');
      const fresh = json<Annotation>(await t.request({ method: 'GET', url: `/v2/images/${replacing!.imageId}/annotation` }));
      assert.deepEqual(fresh.objects.map((o) => o.id), [1, 2]);
      assertProblem(await t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation` }), 404, 'NOT_FOUND');
    });
  });
}
