// Revisions of an image's annotation: every write path records one with its author, the list and a
// revision's state read back, restore as a new revision, retention, and teams kept apart. On both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import { loadConfig } from '../../src/config.ts';
import { keyPrefix } from '../../src/services/keys.service.ts';
import { expireRevisions } from '../../src/services/annotation-revisions.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { type ProjectFile, uploadProject, waitForTask } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { assertProblem } from '../helpers/v2.ts';

interface Revision {
  id: number;
  author: { keyId: number | null; userId: number | null; taskId: number | null };
  createdAt: string;
  objects: { added: number; removed: number; changed: number };
}
interface Annotation {
  description: string;
  tags: string[];
  tagValues?: Record<string, string | number>;
  objects: (AnnotationObject & { id: number })[];
}

const CLASSES = [
  { title: 'car', shape: 'polygon' },
  { title: 'box', shape: 'rectangle' },
];
const TRIANGLE: [number, number][] = [[1, 1], [9, 1], [5, 8]];
const SQUARE: [number, number][] = [[2, 2], [6, 2], [6, 6], [2, 6]];
const KEEP = 4;

for (const dialect of dialects) {
  describe(`annotation revisions on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect, { operations: { ...loadConfig({}).operations, revisionsPerImage: KEEP } });
    });
    after(async () => t?.close());

    const url = (imageId: number) => `/v2/images/${imageId}/annotation`;
    /** The key's id and the id of the user it belongs to. */
    const authorOf = async (key: string) => {
      const row = await t.ctx.db.kysely.selectFrom('api_keys').select(['id', 'user_id']).where('prefix', '=', keyPrefix(key)).executeTakeFirstOrThrow();
      return { keyId: row.id, userId: row.user_id, taskId: null };
    };
    const read = async (imageId: number) => {
      const res = await t.request({ method: 'GET', url: url(imageId) });
      assert.equal(res.statusCode, 200, res.body);
      return { annotation: json<Annotation>(res), etag: String(res.headers.etag) };
    };
    const put = async (imageId: number, body: object, key?: string) => {
      const res = await t.request({ method: 'PUT', url: url(imageId), payload: body, ...(key ? { key } : {}) });
      assert.equal(res.statusCode, 200, res.body);
      return res;
    };
    const list = async (imageId: number, query = '') => {
      const res = await t.request({ method: 'GET', url: `${url(imageId)}/revisions${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return json<{ items: Revision[]; nextCursor: string | null; total?: number }>(res);
    };
    const revision = async (imageId: number, revisionId: number) => {
      const res = await t.request({ method: 'GET', url: `${url(imageId)}/revisions/${revisionId}` });
      assert.equal(res.statusCode, 200, res.body);
      return json<{ revision: Revision; annotation: Annotation }>(res);
    };

    async function seed() {
      const projectId = await newProject(t.ctx, { classes: CLASSES });
      const datasetId = await newDataset(t.ctx, projectId);
      const image = await newImage(t.ctx, datasetId, { description: 'first', objects: [polygon('car', TRIANGLE), polygon('car', SQUARE)] });
      return { projectId, imageId: image.id };
    }

    test('PUT and PATCH each make a revision naming the key, newest first, with objects added, removed and changed', async () => {
      const { imageId } = await seed();
      const { annotation } = await read(imageId);
      await put(imageId, { ...annotation, description: 'second', objects: [annotation.objects[0], { ...annotation.objects[1], points: { exterior: TRIANGLE, interior: [] } }] });
      const patched = await t.request({ method: 'PATCH', url: url(imageId), payload: { remove: [1], add: [{ classTitle: 'box', points: { exterior: [[1, 1], [4, 4]] } }] } });
      assert.equal(patched.statusCode, 200, patched.body);
      // Sent back as read: nothing changed, no revision.
      const now = await read(imageId);
      await put(imageId, now.annotation);

      const { items } = await list(imageId);
      assert.equal(items.length, 2);
      const author = await authorOf(t.key);
      assert.equal(typeof author.userId, 'number', 'the key belongs to a user');
      assert.deepEqual(items.map((r) => r.author), [author, author]);
      assert.ok(items[0]!.id > items[1]!.id);
      assert.deepEqual(items[1]!.objects, { added: 0, removed: 0, changed: 1 });
      assert.deepEqual(items[0]!.objects, { added: 1, removed: 1, changed: 0 });
      assert.ok(Date.parse(items[0]!.createdAt) >= Date.parse(items[1]!.createdAt));

      // Each revision reads as the annotation it left.
      const older = await revision(imageId, items[1]!.id);
      assert.equal(older.annotation.description, 'second');
      assert.deepEqual(older.annotation.objects.map((o) => o.id), [1, 2]);
      assert.deepEqual(older.revision, items[1]);
      const newer = await revision(imageId, items[0]!.id);
      assert.deepEqual(newer.annotation, now.annotation);
    });

    test('restore writes the revision’s annotation back as a new revision, ids and tag values kept, under If-Match', async () => {
      const { projectId, imageId } = await seed();
      const tagId = await newTag(t.ctx, projectId, { scope: 'images', title: 'weather' });
      await t.ctx.db.kysely.updateTable('project_tags').set({ value_type: 'any_string' }).where('id', '=', tagId).execute();
      const first = await read(imageId);
      await put(imageId, { ...first.annotation, tags: [{ name: 'weather', value: 'sunny' }] });
      const tagged = await read(imageId);
      await put(imageId, { ...tagged.annotation, description: 'wrong', tags: [], tagValues: undefined, objects: [] });
      const [, taggedRevision] = (await list(imageId)).items;

      const current = await read(imageId);
      const stale = await t.request({ method: 'POST', url: `${url(imageId)}/revisions/${taggedRevision!.id}/restore`, headers: { 'if-match': first.etag } });
      assertProblem(stale, 412, 'PRECONDITION_FAILED');
      const res = await t.request({ method: 'POST', url: `${url(imageId)}/revisions/${taggedRevision!.id}/restore`, headers: { 'if-match': current.etag } });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json<Annotation>(res), tagged.annotation);
      assert.equal(res.headers.etag, tagged.etag);
      assert.deepEqual((await read(imageId)).annotation, tagged.annotation);

      const { items } = await list(imageId);
      assert.equal(items.length, 3);
      assert.deepEqual(items[0]!.objects, { added: 2, removed: 0, changed: 0 });
      // A new object after the restore gets an id neither state used.
      const added = await t.request({ method: 'PATCH', url: url(imageId), payload: { add: [{ classTitle: 'box', points: { exterior: [[1, 1], [4, 4]] } }] } });
      assert.deepEqual(json<Annotation>(added).objects.map((o) => o.id), [1, 2, 3]);
    });

    test('a class renamed, or deleted with its objects, makes one revision per image it rewrote, naming the key', async () => {
      const { projectId, imageId } = await seed();
      const datasetId = (await t.ctx.db.kysely.selectFrom('images').select('dataset_id').where('id', '=', imageId).executeTakeFirstOrThrow()).dataset_id;
      const untouched = await newImage(t.ctx, datasetId, { objects: [{ ...polygon('car', TRIANGLE), classTitle: 'box', points: { exterior: [[1, 1], [5, 5]], interior: [] } }] });
      const classes = json<{ items: { id: number; title: string }[] }>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/classes` })).items;
      const car = classes.find((c) => c.title === 'car')!;
      const renamed = await t.request({ method: 'PATCH', url: `/v2/classes/${car.id}`, payload: { title: 'auto' } });
      assert.equal(renamed.statusCode, 200, renamed.body);
      const box = classes.find((c) => c.title === 'box')!;
      const deleted = await t.request({ method: 'DELETE', url: `/v2/classes/${box.id}?cascade=true` });
      assert.equal(deleted.statusCode, 204, deleted.body);

      const author = await authorOf(t.key);
      const { items } = await list(imageId);
      assert.equal(items.length, 1);
      assert.deepEqual(items[0]!.author, author);
      assert.deepEqual(items[0]!.objects, { added: 0, removed: 0, changed: 2 });
      // The state before the rename reads back from the snapshot.
      assert.deepEqual((await revision(imageId, items[0]!.id)).annotation.objects.map((o) => o.classTitle), ['auto', 'auto']);
      const [removed] = (await list(untouched.id)).items;
      assert.deepEqual(removed!.objects, { added: 0, removed: 1, changed: 0 });
      assert.deepEqual((await revision(untouched.id, removed!.id)).annotation.objects, []);
    });

    test('a revision of a missing one is a 404; another team’s image is a 404 on every route', async () => {
      const { imageId } = await seed();
      const { annotation } = await read(imageId);
      await put(imageId, { ...annotation, description: 'changed' });
      const [rev] = (await list(imageId)).items;
      assertProblem(await t.request({ method: 'GET', url: `${url(imageId)}/revisions/${rev!.id + 1000}` }), 404, 'NOT_FOUND');
      for (const res of [
        await t.request({ method: 'GET', url: `${url(imageId)}/revisions`, key: t.otherKey }),
        await t.request({ method: 'GET', url: `${url(imageId)}/revisions/${rev!.id}`, key: t.otherKey }),
        await t.request({ method: 'POST', url: `${url(imageId)}/revisions/${rev!.id}/restore`, key: t.otherKey }),
      ]) {
        assertProblem(res, 404, 'NOT_FOUND');
      }
      assertProblem(await t.request({ method: 'POST', url: `${url(imageId)}/revisions/${rev!.id}/restore`, key: t.readOnlyKey }), 403, 'FORBIDDEN');
    });

    test('an image keeps its newest REVISIONS_PER_IMAGE revisions, pages through them, and old ones expire with their snapshots', async () => {
      const { imageId } = await seed();
      for (let i = 0; i < KEEP + 3; i += 1) {
        const { annotation } = await read(imageId);
        await put(imageId, { ...annotation, description: `edit ${i}` });
      }
      const all = await list(imageId, '?count=true');
      assert.equal(all.total, KEEP);
      const firstPage = await list(imageId, '?limit=3');
      assert.equal(firstPage.items.length, 3);
      const rest = await list(imageId, `?limit=3&cursor=${firstPage.nextCursor}`);
      assert.deepEqual([...firstPage.items, ...rest.items], all.items);
      assert.equal(rest.nextCursor, null);
      // The oldest kept still reads as it was: it left "edit 3".
      assert.equal((await revision(imageId, all.items.at(-1)!.id)).annotation.description, `edit ${KEEP + 3 - KEEP}`);
      // Equal states are one snapshot; snapshots of revisions removed are removed with them.
      const named = await t.ctx.db.kysely.selectFrom('annotation_revisions').select('before_hash').where('image_id', '=', imageId).execute();
      const stored = await t.ctx.db.kysely.selectFrom('annotation_snapshots').select('hash').where('hash', 'in', named.map((r) => r.before_hash!)).execute();
      assert.equal(stored.length, KEEP);

      const removed = await expireRevisions(t.ctx, new Date(Date.now() + t.config.operations.revisionRetentionMs + 60_000));
      assert.ok(removed >= KEEP);
      assert.deepEqual((await list(imageId)).items, []);
      const left = await t.ctx.db.kysely.selectFrom('annotation_snapshots').select('hash').where('hash', 'in', named.map((r) => r.before_hash!)).execute();
      assert.deepEqual(left, []);
    });
  });
}

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

/** A Supervisely project of two annotated images, of two and one objects. */
async function supervisely(): Promise<ProjectFile[]> {
  const file = (value: unknown) => Buffer.from(JSON.stringify(value));
  const meta = { classes: [{ title: 'car', shape: 'polygon', color: '#FF0000' }], tags_images: [], tags_objects: [] };
  const annotation = (n: number) => ({
    description: '',
    tags: [],
    size: { width: 64, height: 48 },
    objects: Array.from({ length: n }, () => ({ classTitle: 'car', description: '', tags: [], bitmap: null, points: { exterior: TRIANGLE, interior: [] } })),
  });
  return [
    { path: 'meta.json', type: 'class', content: file(meta) },
    { path: 'city/img/a.png', type: 'image', content: await pngImage(64, 48, 7) },
    { path: 'city/ann/a.png.json', type: 'annotation', content: file(annotation(2)) },
    { path: 'city/img/b.png', type: 'image', content: await pngImage(64, 48, 8) },
    { path: 'city/ann/b.png.json', type: 'annotation', content: file(annotation(1)) },
  ];
}

for (const dialect of dialects) {
  describe(`revisions of imports and DTL outputs on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner;
    before(async () => {
      t = await startTestApp(dialect);
      runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    const revisionsOf = async (projectId: number) => {
      const images = await t.ctx.db.kysely.selectFrom('images').select(['id', 'name']).where('project_id', '=', projectId).orderBy('name').execute();
      return Promise.all(
        images.map(async (image) => {
          const res = await t.request({ method: 'GET', url: `/v2/images/${image.id}/annotation/revisions` });
          assert.equal(res.statusCode, 200, res.body);
          return { name: image.name, items: json<{ items: Revision[] }>(res).items };
        }),
      );
    };

    test('an import makes one revision per image with the task as author, and a DTL output project one per image with its task', async () => {
      const files = await uploadProject(t, await supervisely());
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'imported' }, preset: 1, files } });
      assert.equal(res.statusCode, 200, res.body);
      const importId = json<{ taskId: number }>(res).taskId;
      const task = await waitForTask(t, importId);
      assert.equal(task.status, 'finished', JSON.stringify(task.meta));
      const projectId = task.meta.project.id as number;
      const imported = await revisionsOf(projectId);
      assert.deepEqual(
        imported.map((i) => ({ name: i.name, items: i.items.map((r) => ({ author: r.author, objects: r.objects })) })),
        [
          { name: 'a.png', items: [{ author: { keyId: null, userId: null, taskId: importId }, objects: { added: 2, removed: 0, changed: 0 } }] },
          { name: 'b.png', items: [{ author: { keyId: null, userId: null, taskId: importId }, objects: { added: 1, removed: 0, changed: 0 } }] },
        ],
      );
      // The revision of an import left the annotation as imported.
      const first = imported[0]!;
      const state = json<{ annotation: { objects: unknown[] } }>(await t.request({ method: 'GET', url: `/v2/images/${(await t.ctx.db.kysely.selectFrom('images').select('id').where('project_id', '=', projectId).where('name', '=', 'a.png').executeTakeFirstOrThrow()).id}/annotation/revisions/${first.items[0]!.id}` }));
      assert.equal(state.annotation.objects.length, 2);

      const dtl = await t.request({
        method: 'POST',
        url: '/v2/exports',
        payload: {
          config: [
            { action: 'data', src: ['imported/*'], dst: '$data', settings: { classes_mapping: 'default' } },
            { action: 'supervisely', src: ['$data'], dst: 'copied', settings: {} },
          ],
        },
      });
      assert.equal(dtl.statusCode, 201, dtl.body);
      const dtlId = json<{ task: { id: number } }>(dtl).task.id;
      const done = await waitForTask(t, dtlId);
      assert.equal(done.status, 'finished', JSON.stringify(done.meta));
      const copied = await revisionsOf(done.meta.project.id as number);
      assert.deepEqual(
        copied.map((i) => i.items.map((r) => ({ author: r.author, objects: r.objects }))),
        [
          [{ author: { keyId: null, userId: null, taskId: dtlId }, objects: { added: 2, removed: 0, changed: 0 } }],
          [{ author: { keyId: null, userId: null, taskId: dtlId }, objects: { added: 1, removed: 0, changed: 0 } }],
        ],
      );
    });
  });
}
