// Every writer of an image's annotation besides PUT/PATCH of the annotation records a revision naming
// its author, in its transaction: image PATCH (v2), v1 image tags and description, tag renames and
// deletes (v1 and v2, both scopes), image copy and upload. Each test compares the state a revision
// replaced (its stored snapshot) and the state it left (GET …/revisions/:id) by value. On both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { snapshotBody } from '../../src/repositories/annotation-revisions.repository.ts';
import { decodeSnapshot } from '../../src/services/annotation-snapshots.ts';
import { keyPrefix } from '../../src/services/keys.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon, referenceFigureTag, tagImage } from '../helpers/factories.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface Revision {
  id: number;
  author: { keyId: number | null; userId: number | null; taskId: number | null };
  objects: { added: number; removed: number; changed: number };
}
interface Annotation {
  description: string;
  tags: string[];
  objects: { id: number; classTitle: string; tags: string[] }[];
}
/** What the history says of one revision: who, the state it replaced (null for a new image) and the state it left. */
interface Seen {
  author: Revision['author'];
  objects: Revision['objects'];
  before: { description: string; tags: string[]; objectTags: string[][] } | null;
  after: { description: string; tags: string[]; objectTags: string[][] };
}

const CLASSES = [{ title: 'car', shape: 'polygon' }];
const TRIANGLE: [number, number][] = [[1, 1], [9, 1], [5, 8]];

for (const dialect of dialects) {
  describe(`revisions of every annotation writer on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(async () => t?.close());

    const authorOf = async (key: string) => {
      const row = await t.ctx.db.kysely.selectFrom('api_keys').select(['id', 'user_id']).where('prefix', '=', keyPrefix(key)).executeTakeFirstOrThrow();
      return { keyId: row.id, userId: row.user_id, taskId: null };
    };
    const ok = async (res: Promise<LightMyRequestResponse>, status = 200) => {
      const answer = await res;
      assert.equal(answer.statusCode, status, answer.body);
      return answer;
    };
    /** The image's revisions newest first, each with the states before and after it, by value. */
    async function history(imageId: number): Promise<Seen[]> {
      const list = json<{ items: Revision[] }>(await ok(t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation/revisions` })));
      const seen: Seen[] = [];
      for (const r of list.items) {
        const left = json<{ annotation: Annotation }>(await ok(t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation/revisions/${r.id}` }))).annotation;
        const row = await t.ctx.db.kysely.selectFrom('annotation_revisions').select('before_hash').where('id', '=', r.id).executeTakeFirstOrThrow();
        let was: Seen['before'] = null;
        if (row.before_hash !== null) {
          const s = decodeSnapshot((await snapshotBody(t.ctx.db.kysely, row.before_hash))!);
          was = { description: s.description, tags: s.tags.map((x) => x.title), objectTags: (JSON.parse(s.objectsJson) as { tags?: string[] }[]).map((o) => o.tags ?? []) };
        }
        seen.push({
          author: r.author,
          objects: r.objects,
          before: was,
          after: { description: left.description, tags: left.tags, objectTags: left.objects.map((o) => o.tags) },
        });
      }
      return seen;
    }
    const none = { added: 0, removed: 0, changed: 0 };

    async function seed(options: { objects?: ReturnType<typeof polygon>[] } = {}) {
      const projectId = await newProject(t.ctx, { classes: CLASSES });
      const datasetId = await newDataset(t.ctx, projectId);
      const image = await newImage(t.ctx, datasetId, { description: 'first', objects: options.objects ?? [polygon('car', TRIANGLE)] });
      return { projectId, datasetId, imageId: image.id };
    }

    test('PATCH /v2/images/:id of the description makes a revision naming the key; a rename alone makes none', async () => {
      const { imageId } = await seed();
      await ok(t.request({ method: 'PATCH', url: `/v2/images/${imageId}`, payload: { description: 'second' }, key: t.adminKey }));
      await ok(t.request({ method: 'PATCH', url: `/v2/images/${imageId}`, payload: { name: 'renamed.png' } }));
      assert.deepEqual(await history(imageId), [
        {
          author: await authorOf(t.adminKey),
          objects: none,
          before: { description: 'first', tags: [], objectTags: [[]] },
          after: { description: 'second', tags: [], objectTags: [[]] },
        },
      ]);
    });

    test('v1 description, tag attach and tag detach each make a revision naming the key', async () => {
      const { imageId } = await seed();
      await ok(t.request({ method: 'PUT', url: `/v1/images/description?imageId=${imageId}`, payload: { value: 'described' } }));
      await ok(t.request({ method: 'POST', url: `/v1/images/tags?imageId=${imageId}`, payload: { title: 'sunny', create: true }, key: t.adminKey }));
      // Attached again: nothing changes, no revision.
      await ok(t.request({ method: 'POST', url: `/v1/images/tags?imageId=${imageId}`, payload: { title: 'sunny' } }));
      await ok(t.request({ method: 'DELETE', url: `/v1/images/tags?imageId=${imageId}`, payload: [{ title: 'sunny' }] }));
      const alice = await authorOf(t.key);
      assert.deepEqual(await history(imageId), [
        { author: alice, objects: none, before: { description: 'described', tags: ['sunny'], objectTags: [[]] }, after: { description: 'described', tags: [], objectTags: [[]] } },
        {
          author: await authorOf(t.adminKey),
          objects: none,
          before: { description: 'described', tags: [], objectTags: [[]] },
          after: { description: 'described', tags: ['sunny'], objectTags: [[]] },
        },
        { author: alice, objects: none, before: { description: 'first', tags: [], objectTags: [[]] }, after: { description: 'described', tags: [], objectTags: [[]] } },
      ]);
    });

    test('an image tag renamed (v2, then v1) or deleted makes a revision of every image carrying it, and none of the others', async () => {
      const { projectId, datasetId, imageId } = await seed();
      const other = await newImage(t.ctx, datasetId, { description: 'other' });
      const bare = await newImage(t.ctx, datasetId);
      const tagId = await newTag(t.ctx, projectId, { scope: 'images', title: 'wet' });
      await tagImage(t.ctx, imageId, tagId);
      await tagImage(t.ctx, other.id, tagId);
      await ok(t.request({ method: 'PATCH', url: `/v2/tags/${tagId}`, payload: { title: 'damp' }, key: t.adminKey }));
      await ok(t.request({ method: 'PUT', url: `/v1/projects/${projectId}/tags/${tagId}`, payload: { type: 'images', title: 'soaked' } }));
      await ok(t.request({ method: 'DELETE', url: `/v2/tags/${tagId}` }), 204);
      const [alice, owner] = [await authorOf(t.key), await authorOf(t.adminKey)];
      for (const [id, description, objectTags] of [
        [imageId, 'first', [[]]],
        [other.id, 'other', []],
      ] as const) {
        const s = (tags: string[]) => ({ description, tags, objectTags: objectTags as unknown as string[][] });
        assert.deepEqual(await history(id), [
          { author: alice, objects: none, before: s(['soaked']), after: s([]) },
          { author: alice, objects: none, before: s(['damp']), after: s(['soaked']) },
          { author: owner, objects: none, before: s(['wet']), after: s(['damp']) },
        ]);
      }
      assert.deepEqual(await history(bare.id), []);
    });

    test('a figure tag renamed or deleted makes one revision of each image whose objects carry it, objects changed', async () => {
      const projectId = await newProject(t.ctx, { classes: CLASSES });
      const datasetId = await newDataset(t.ctx, projectId);
      const tagId = await newTag(t.ctx, projectId, { scope: 'figures', title: 'occluded' });
      const image = await newImage(t.ctx, datasetId, { description: 'd', objects: [polygon('car', TRIANGLE, ['occluded']), polygon('car', TRIANGLE)] });
      await referenceFigureTag(t.ctx, image.id, tagId);
      await ok(t.request({ method: 'PATCH', url: `/v2/tags/${tagId}`, payload: { title: 'hidden' }, key: t.adminKey }));
      await ok(t.request({ method: 'DELETE', url: `/v1/projects/${projectId}/tags/${tagId}?type=figures` }));
      const s = (objectTags: string[][]) => ({ description: 'd', tags: [], objectTags });
      assert.deepEqual(await history(image.id), [
        { author: await authorOf(t.key), objects: { added: 0, removed: 0, changed: 1 }, before: s([['hidden'], []]), after: s([[], []]) },
        { author: await authorOf(t.adminKey), objects: { added: 0, removed: 0, changed: 1 }, before: s([['occluded'], []]), after: s([['hidden'], []]) },
      ]);
    });

    test('a copy starts its own history with the key as author and the source’s annotation; the source gets none', async () => {
      const { projectId, datasetId, imageId } = await seed({ objects: [polygon('car', TRIANGLE), polygon('car', TRIANGLE)] });
      const tagId = await newTag(t.ctx, projectId, { scope: 'images', title: 'kept' });
      await tagImage(t.ctx, imageId, tagId);
      const copy = json<{ id: number }>(await ok(t.request({ method: 'POST', url: `/v2/images/${imageId}/copy`, payload: { datasetId, name: 'copy.png' }, key: t.adminKey }), 201));
      assert.deepEqual(await history(copy.id), [
        { author: await authorOf(t.adminKey), objects: { added: 2, removed: 0, changed: 0 }, before: null, after: { description: 'first', tags: ['kept'], objectTags: [[], []] } },
      ]);
      assert.deepEqual(await history(imageId), []);
    });

    test('an upload makes each image’s first revision, naming the key', async () => {
      const projectId = await newProject(t.ctx, { classes: CLASSES });
      const datasetId = await newDataset(t.ctx, projectId);
      const boundary = '----annostoreRevisionsUpload';
      const payload = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="up.png"\r\nContent-Type: application/octet-stream\r\n\r\n`),
        await pngImage(8, 6, 33),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const res = await ok(
        t.request({ method: 'POST', url: `/v2/datasets/${datasetId}/images`, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }),
        201,
      );
      const [uploaded] = json<{ items: { id: number }[] }>(res).items;
      assert.deepEqual(await history(uploaded!.id), [{ author: await authorOf(t.key), objects: none, before: null, after: { description: '', tags: [], objectTags: [] } }]);
    });
  });
}
