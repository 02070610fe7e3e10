// Project tags (both scopes) and how renaming or deleting a figure tag reaches the annotations, on both
// databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { type AnnotationObject, serializeObjects } from '../../src/formats/canonical.ts';
import { TEST_DATABASE_URL, dialects } from '../helpers/dialects.ts';
import { waitForLockWaitOnClient } from '../helpers/pg-lock-wait.ts';
import {
  newDataset,
  newImage,
  newProject,
  newTag,
  polygon,
  referenceFigureTag,
  tagImage,
  userId,
} from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface TagBody {
  id: number;
  projectId: number;
  title: string;
  createdBy: number | null;
  hotkey: string;
  createdAt: string;
  updatedAt: string;
}

interface AnnotationBody {
  imageId: number;
  data: { description: string; tags: string[]; name: string; objects: AnnotationObject[] };
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TRIANGLE: [number, number][] = [[1, 1], [9, 1], [5, 8]];

const errorOf = (res: LightMyRequestResponse): string => json<{ error: string }>(res).error;

function assertError(res: LightMyRequestResponse, status: number, code: string, label = ''): void {
  assert.equal(res.statusCode, status, `${label} ${res.body}`);
  const body = json<{ error: string; details: { message: string } }>(res);
  assert.equal(body.error, code, label);
  assert.equal(typeof body.details.message, 'string', label);
}

for (const dialect of dialects) {
  describe(`project tags on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(async () => t?.close());

    const listTags = async (projectId: number, type: string, key?: string) =>
      t.request({ method: 'GET', url: `/v1/projects/${projectId}/tags?type=${type}`, ...(key ? { key } : {}) });
    const titlesOf = async (projectId: number, type: string) =>
      json<TagBody[]>(await listTags(projectId, type)).map((tag) => tag.title);
    const createTag = async (projectId: number, payload: unknown, key?: string) =>
      t.request({ method: 'POST', url: `/v1/projects/${projectId}/tags`, payload: payload as object, ...(key ? { key } : {}) });
    const updateTag = async (projectId: number, tagId: number, payload: unknown, key?: string) =>
      t.request({ method: 'PUT', url: `/v1/projects/${projectId}/tags/${tagId}`, payload: payload as object, ...(key ? { key } : {}) });
    const deleteTag = async (projectId: number, tagId: number, type: string, key?: string) =>
      t.request({ method: 'DELETE', url: `/v1/projects/${projectId}/tags/${tagId}?type=${type}`, ...(key ? { key } : {}) });
    const annotations = async (projectId: number) =>
      json<AnnotationBody[]>(await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` }));

    describe('GET /projects/:id/tags', () => {
      test('lists the tags of the asked scope in id order with every field', async () => {
        const project = await newProject(t.ctx);
        const alice = await userId(t.ctx, 'alpha', 'alice');
        const b = await newTag(t.ctx, project, { title: 'b', hotkey: 'ctrl+b', createdBy: alice });
        const a = await newTag(t.ctx, project, { title: 'a' });
        const figure = await newTag(t.ctx, project, { scope: 'figures', title: 'occluded', hotkey: 'o' });
        await newTag(t.ctx, await newProject(t.ctx), { title: 'elsewhere' });

        const res = await listTags(project, 'images');
        assert.equal(res.statusCode, 200);
        const body = json<TagBody[]>(res);
        assert.deepEqual(
          body.map(({ id, projectId, title, createdBy, hotkey }) => ({ id, projectId, title, createdBy, hotkey })),
          [
            { id: b, projectId: project, title: 'b', createdBy: alice, hotkey: 'ctrl+b' },
            { id: a, projectId: project, title: 'a', createdBy: null, hotkey: '' },
          ],
        );
        for (const tag of body) {
          assert.match(tag.createdAt, ISO);
          assert.match(tag.updatedAt, ISO);
        }
        const figures = json<TagBody[]>(await listTags(project, 'figures'));
        assert.deepEqual(figures.map((tag) => [tag.id, tag.title, tag.hotkey]), [[figure, 'occluded', 'o']]);
      });

      test('a project without tags gives []', async () => {
        const project = await newProject(t.ctx);
        const res = await listTags(project, 'figures');
        assert.equal(res.statusCode, 200);
        assert.deepEqual(json(res), []);
      });

      test('type is required and must be images or figures', async () => {
        const project = await newProject(t.ctx);
        assertError(await t.request({ method: 'GET', url: `/v1/projects/${project}/tags` }), 400, 'VALIDATION', 'no type');
        assertError(await listTags(project, 'objects'), 400, 'VALIDATION', 'unknown type');
        assertError(await listTags(project, ''), 400, 'VALIDATION', 'empty type');
      });

      test('a missing project and another team’s project are the same 404', async () => {
        const theirs = await newProject(t.ctx, { team: 'beta' });
        await newTag(t.ctx, theirs, { title: 'secret' });
        const foreign = await listTags(theirs, 'images');
        const missing = await listTags(999_999, 'images');
        assertError(foreign, 404, 'NOT_FOUND');
        assertError(missing, 404, 'NOT_FOUND');
        assert.equal(errorOf(foreign), errorOf(missing));
        assert.deepEqual(json<TagBody[]>(await listTags(theirs, 'images', t.otherKey)).map((tag) => tag.title), ['secret']);
        const mine = await newProject(t.ctx);
        assertError(await listTags(mine, 'images', t.otherKey), 404, 'NOT_FOUND', 'beta on alpha');
      });

      test('a read-only key may list', async () => {
        const project = await newProject(t.ctx);
        await newTag(t.ctx, project, { title: 'visible' });
        const res = await listTags(project, 'images', t.readOnlyKey);
        assert.equal(res.statusCode, 200);
        assert.deepEqual(json<TagBody[]>(res).map((tag) => tag.title), ['visible']);
      });
    });

    describe('POST /projects/:id/tags', () => {
      test('creates a tag of the scope, created by the key’s user, and answers its id', async () => {
        const project = await newProject(t.ctx);
        const res = await createTag(project, { type: 'images', title: 'night', hotkey: 'n' });
        assert.equal(res.statusCode, 200);
        const { id } = json<{ id: number }>(res);
        assert.ok(Number.isInteger(id) && id > 0);
        assert.deepEqual(Object.keys(json(res)), ['id']);
        const [tag] = json<TagBody[]>(await listTags(project, 'images'));
        assert.equal(tag?.id, id);
        assert.equal(tag?.title, 'night');
        assert.equal(tag?.hotkey, 'n');
        assert.equal(tag?.projectId, project);
        assert.equal(tag?.createdBy, await userId(t.ctx, 'alpha', 'alice'));
        assert.deepEqual(await titlesOf(project, 'figures'), []);
      });

      test('hotkey is optional and may be empty', async () => {
        const project = await newProject(t.ctx);
        assert.equal((await createTag(project, { type: 'figures', title: 'blurred' })).statusCode, 200);
        assert.equal((await createTag(project, { type: 'figures', title: 'cut', hotkey: '' })).statusCode, 200);
        const tags = json<TagBody[]>(await listTags(project, 'figures'));
        assert.deepEqual(tags.map((tag) => [tag.title, tag.hotkey]), [['blurred', ''], ['cut', '']]);
      });

      test('the project lists the new tag', async () => {
        const project = await newProject(t.ctx);
        const { id } = json<{ id: number }>(await createTag(project, { type: 'images', title: 'listed' }));
        const [listed] = json<{ tags: { id: number; title: string }[] }[]>(
          await t.request({ method: 'GET', url: `/v1/projects?projectId=${project}` }),
        );
        assert.deepEqual(listed?.tags, [{ id, title: 'listed' }]);
      });

      test('a title already used in the project and scope is 409 and adds nothing', async () => {
        const project = await newProject(t.ctx);
        assert.equal((await createTag(project, { type: 'images', title: 'dup' })).statusCode, 200);
        assertError(await createTag(project, { type: 'images', title: 'dup', hotkey: 'x' }), 409, 'CONFLICT');
        assert.deepEqual(await titlesOf(project, 'images'), ['dup']);
      });

      test('the same title is free in the other scope and in another project', async () => {
        const project = await newProject(t.ctx);
        const other = await newProject(t.ctx);
        assert.equal((await createTag(project, { type: 'images', title: 'shared' })).statusCode, 200);
        assert.equal((await createTag(project, { type: 'figures', title: 'shared' })).statusCode, 200);
        assert.equal((await createTag(other, { type: 'images', title: 'shared' })).statusCode, 200);
        assert.deepEqual(await titlesOf(project, 'images'), ['shared']);
        assert.deepEqual(await titlesOf(project, 'figures'), ['shared']);
        assert.deepEqual(await titlesOf(other, 'images'), ['shared']);
      });

      test('malformed bodies are 400 and create nothing', async () => {
        const project = await newProject(t.ctx);
        const cases: [string, unknown][] = [
          ['no type', { title: 'x' }],
          ['unknown type', { type: 'objects', title: 'x' }],
          ['no title', { type: 'images' }],
          ['empty title', { type: 'images', title: '' }],
          ['blank title', { type: 'images', title: '   ' }],
          ['title too long', { type: 'images', title: 'x'.repeat(256) }],
          ['title not a string', { type: 'images', title: 12 }],
          ['hotkey not a string', { type: 'images', title: 'x', hotkey: 1 }],
          ['hotkey null', { type: 'images', title: 'x', hotkey: null }],
          ['unknown member', { type: 'images', title: 'x', color: '#FF0000' }],
          ['array body', [{ type: 'images', title: 'x' }]],
        ];
        for (const [label, payload] of cases) assertError(await createTag(project, payload), 400, 'VALIDATION', label);
        assert.deepEqual(await titlesOf(project, 'images'), []);
      });

      test('the unknown member is named in details', async () => {
        const project = await newProject(t.ctx);
        const res = await createTag(project, { type: 'images', title: 'x', createdBy: 1 });
        assertError(res, 400, 'VALIDATION');
        assert.equal(json<{ details: { field: string } }>(res).details.field, 'createdBy');
      });

      test('a body of another media type is 415, malformed JSON 400', async () => {
        const project = await newProject(t.ctx);
        assertError(
          await t.request({
            method: 'POST',
            url: `/v1/projects/${project}/tags`,
            headers: { 'content-type': 'application/xml' },
            payload: '<tag/>',
          }),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
        assertError(
          await t.request({
            method: 'POST',
            url: `/v1/projects/${project}/tags`,
            headers: { 'content-type': 'application/json' },
            payload: '{"type": "images",',
          }),
          400,
          'VALIDATION',
        );
      });

      test('a missing project and another team’s project are 404 and nothing is created', async () => {
        const theirs = await newProject(t.ctx, { team: 'beta' });
        assertError(await createTag(999_999, { type: 'images', title: 'x' }), 404, 'NOT_FOUND');
        assertError(await createTag(theirs, { type: 'images', title: 'x' }), 404, 'NOT_FOUND');
        assert.deepEqual(json(await listTags(theirs, 'images', t.otherKey)), []);
        const mine = await newProject(t.ctx);
        assertError(await createTag(mine, { type: 'images', title: 'x' }, t.otherKey), 404, 'NOT_FOUND', 'beta on alpha');
        assert.deepEqual(await titlesOf(mine, 'images'), []);
      });

      test('a read-only key gets 403 and creates nothing', async () => {
        const project = await newProject(t.ctx);
        assertError(await createTag(project, { type: 'images', title: 'x' }, t.readOnlyKey), 403, 'FORBIDDEN');
        assert.deepEqual(await titlesOf(project, 'images'), []);
      });
    });

    describe('PUT /projects/:projectId/tags/:id', () => {
      test('renames the tag and sets its hotkey', async () => {
        const project = await newProject(t.ctx);
        const id = await newTag(t.ctx, project, { title: 'old', hotkey: 'o' });
        const [before] = json<TagBody[]>(await listTags(project, 'images'));
        const res = await updateTag(project, id, { type: 'images', title: 'new', hotkey: 'n' });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(json(res), { success: true });
        const [after] = json<TagBody[]>(await listTags(project, 'images'));
        assert.equal(after?.id, id);
        assert.equal(after?.title, 'new');
        assert.equal(after?.hotkey, 'n');
        assert.equal(after?.createdAt, before?.createdAt);
        assert.ok(after!.updatedAt >= before!.updatedAt);
      });

      test('without hotkey the hotkey stays; an empty one clears it', async () => {
        const project = await newProject(t.ctx);
        const id = await newTag(t.ctx, project, { title: 'keep', hotkey: 'k' });
        assert.equal((await updateTag(project, id, { type: 'images', title: 'kept' })).statusCode, 200);
        assert.deepEqual(json<TagBody[]>(await listTags(project, 'images')).map((tag) => [tag.title, tag.hotkey]), [['kept', 'k']]);
        assert.equal((await updateTag(project, id, { type: 'images', title: 'kept', hotkey: '' })).statusCode, 200);
        assert.deepEqual(json<TagBody[]>(await listTags(project, 'images')).map((tag) => [tag.title, tag.hotkey]), [['kept', '']]);
      });

      test('keeping the same title is a success', async () => {
        const project = await newProject(t.ctx);
        const id = await newTag(t.ctx, project, { title: 'same' });
        assert.equal((await updateTag(project, id, { type: 'images', title: 'same', hotkey: 's' })).statusCode, 200);
        assert.deepEqual(await titlesOf(project, 'images'), ['same']);
      });

      test('a title another tag of the scope has is 409 and changes nothing', async () => {
        const project = await newProject(t.ctx);
        await newTag(t.ctx, project, { title: 'taken' });
        const id = await newTag(t.ctx, project, { title: 'mine', hotkey: 'm' });
        assertError(await updateTag(project, id, { type: 'images', title: 'taken', hotkey: 'z' }), 409, 'CONFLICT');
        assert.deepEqual(json<TagBody[]>(await listTags(project, 'images')).map((tag) => [tag.title, tag.hotkey]), [
          ['taken', ''],
          ['mine', 'm'],
        ]);
      });

      test('a title of the other scope is free', async () => {
        const project = await newProject(t.ctx);
        await newTag(t.ctx, project, { scope: 'figures', title: 'both' });
        const id = await newTag(t.ctx, project, { title: 'single' });
        assert.equal((await updateTag(project, id, { type: 'images', title: 'both' })).statusCode, 200);
        assert.deepEqual(await titlesOf(project, 'images'), ['both']);
      });

      test('a tag of the other scope, of another project or of nowhere is 404', async () => {
        const project = await newProject(t.ctx);
        const figure = await newTag(t.ctx, project, { scope: 'figures', title: 'fig' });
        const elsewhere = await newTag(t.ctx, await newProject(t.ctx), { title: 'away' });
        assertError(await updateTag(project, figure, { type: 'images', title: 'x' }), 404, 'NOT_FOUND', 'other scope');
        assertError(await updateTag(project, elsewhere, { type: 'images', title: 'x' }), 404, 'NOT_FOUND', 'other project');
        assertError(await updateTag(project, 999_999, { type: 'images', title: 'x' }), 404, 'NOT_FOUND', 'no tag');
        assert.deepEqual(await titlesOf(project, 'figures'), ['fig']);
      });

      test('another team’s tag is 404 both ways', async () => {
        const theirs = await newProject(t.ctx, { team: 'beta' });
        const theirTag = await newTag(t.ctx, theirs, { title: 'beta-tag' });
        const mine = await newProject(t.ctx);
        const myTag = await newTag(t.ctx, mine, { title: 'alpha-tag' });
        assertError(await updateTag(theirs, theirTag, { type: 'images', title: 'x' }), 404, 'NOT_FOUND', 'alpha on beta');
        assertError(await updateTag(mine, theirTag, { type: 'images', title: 'x' }), 404, 'NOT_FOUND', 'beta tag in alpha project');
        assertError(await updateTag(mine, myTag, { type: 'images', title: 'x' }, t.otherKey), 404, 'NOT_FOUND', 'beta on alpha');
        assert.deepEqual(json<TagBody[]>(await listTags(theirs, 'images', t.otherKey)).map((tag) => tag.title), ['beta-tag']);
        assert.deepEqual(await titlesOf(mine, 'images'), ['alpha-tag']);
      });

      test('malformed bodies are 400 and change nothing', async () => {
        const project = await newProject(t.ctx);
        const id = await newTag(t.ctx, project, { title: 'stay' });
        const cases: [string, unknown][] = [
          ['no type', { title: 'x' }],
          ['unknown type', { type: 'image', title: 'x' }],
          ['no title', { type: 'images' }],
          ['blank title', { type: 'images', title: ' ' }],
          ['unknown member', { type: 'images', title: 'x', projectId: project }],
          ['array body', [{ type: 'images', title: 'x' }]],
        ];
        for (const [label, payload] of cases) assertError(await updateTag(project, id, payload), 400, 'VALIDATION', label);
        assertError(await updateTag(project, 0, { type: 'images', title: 'x' }), 400, 'VALIDATION', 'id 0');
        assert.deepEqual(await titlesOf(project, 'images'), ['stay']);
      });

      test('a read-only key gets 403', async () => {
        const project = await newProject(t.ctx);
        const id = await newTag(t.ctx, project, { title: 'stay' });
        assertError(await updateTag(project, id, { type: 'images', title: 'x' }, t.readOnlyKey), 403, 'FORBIDDEN');
        assert.deepEqual(await titlesOf(project, 'images'), ['stay']);
      });

      test('renaming an images tag renames it in the annotation records', async () => {
        const project = await newProject(t.ctx);
        const image = await newImage(t.ctx, await newDataset(t.ctx, project));
        const tag = await newTag(t.ctx, project, { title: 'day' });
        await tagImage(t.ctx, image.id, tag);
        assert.deepEqual((await annotations(project))[0]?.data.tags, ['day']);
        assert.equal((await updateTag(project, tag, { type: 'images', title: 'dusk' })).statusCode, 200);
        assert.deepEqual((await annotations(project))[0]?.data.tags, ['dusk']);
      });
    });

    describe('DELETE /projects/:projectId/tags/:id', () => {
      test('deletes the tag and detaches it from images; a second delete is 404', async () => {
        const project = await newProject(t.ctx);
        const image = await newImage(t.ctx, await newDataset(t.ctx, project));
        const doomed = await newTag(t.ctx, project, { title: 'doomed' });
        const kept = await newTag(t.ctx, project, { title: 'kept' });
        await tagImage(t.ctx, image.id, doomed);
        await tagImage(t.ctx, image.id, kept);
        const res = await deleteTag(project, doomed, 'images');
        assert.equal(res.statusCode, 200);
        assert.deepEqual(json(res), { success: true });
        assert.deepEqual(await titlesOf(project, 'images'), ['kept']);
        assert.deepEqual(json(await t.request({ method: 'GET', url: `/v1/images/tags?imageId=${image.id}` })), [{ id: kept, title: 'kept' }]);
        assert.deepEqual((await annotations(project))[0]?.data.tags, ['kept']);
        assertError(await deleteTag(project, doomed, 'images'), 404, 'NOT_FOUND', 'second delete');
      });

      test('type is required and names the tag’s scope: another scope is 404 and deletes nothing', async () => {
        const project = await newProject(t.ctx);
        const id = await newTag(t.ctx, project, { title: 'img' });
        assertError(await t.request({ method: 'DELETE', url: `/v1/projects/${project}/tags/${id}` }), 400, 'VALIDATION', 'no type');
        assertError(await deleteTag(project, id, 'tags'), 400, 'VALIDATION', 'unknown type');
        assertError(await deleteTag(project, id, 'figures'), 404, 'NOT_FOUND', 'other scope');
        assert.deepEqual(await titlesOf(project, 'images'), ['img']);
      });

      test('a tag of another project or of nowhere is 404', async () => {
        const project = await newProject(t.ctx);
        const otherProject = await newProject(t.ctx);
        const elsewhere = await newTag(t.ctx, otherProject, { title: 'away' });
        assertError(await deleteTag(project, elsewhere, 'images'), 404, 'NOT_FOUND', 'other project');
        assertError(await deleteTag(project, 999_999, 'images'), 404, 'NOT_FOUND', 'no tag');
        assertError(await deleteTag(999_999, elsewhere, 'images'), 404, 'NOT_FOUND', 'no project');
        assert.deepEqual(await titlesOf(otherProject, 'images'), ['away']);
      });

      test('another team’s tag is 404 both ways and stays', async () => {
        const theirs = await newProject(t.ctx, { team: 'beta' });
        const theirTag = await newTag(t.ctx, theirs, { title: 'beta-tag' });
        const mine = await newProject(t.ctx);
        const myTag = await newTag(t.ctx, mine, { title: 'alpha-tag' });
        assertError(await deleteTag(theirs, theirTag, 'images'), 404, 'NOT_FOUND', 'alpha on beta');
        assertError(await deleteTag(mine, myTag, 'images', t.otherKey), 404, 'NOT_FOUND', 'beta on alpha');
        assert.deepEqual(json<TagBody[]>(await listTags(theirs, 'images', t.otherKey)).map((tag) => tag.title), ['beta-tag']);
        assert.deepEqual(await titlesOf(mine, 'images'), ['alpha-tag']);
      });

      test('a read-only key gets 403', async () => {
        const project = await newProject(t.ctx);
        const id = await newTag(t.ctx, project, { title: 'stay' });
        assertError(await deleteTag(project, id, 'images', t.readOnlyKey), 403, 'FORBIDDEN');
        assert.deepEqual(await titlesOf(project, 'images'), ['stay']);
      });
    });

    describe('figure tags inside annotation objects', () => {
      /** A project with two images whose objects carry figure tags, and a bystander project. */
      async function seed() {
        const project = await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }] });
        const ds = await newDataset(t.ctx, project);
        const occluded = await newTag(t.ctx, project, { scope: 'figures', title: 'occluded' });
        const truncated = await newTag(t.ctx, project, { scope: 'figures', title: 'truncated' });
        // An images tag of the same title must be left alone by anything done to the figure tag.
        const imageLevel = await newTag(t.ctx, project, { title: 'occluded' });
        const first = await newImage(t.ctx, ds, {
          objects: [
            polygon('car', TRIANGLE, ['occluded', 'truncated']),
            polygon('car', TRIANGLE, ['truncated']),
            polygon('car', TRIANGLE, ['occluded']),
          ],
        });
        await referenceFigureTag(t.ctx, first.id, occluded);
        await referenceFigureTag(t.ctx, first.id, truncated);
        await tagImage(t.ctx, first.id, imageLevel);
        const second = await newImage(t.ctx, ds, { objects: [polygon('car', TRIANGLE, ['occluded'])] });
        await referenceFigureTag(t.ctx, second.id, occluded);
        const plain = await newImage(t.ctx, ds, { objects: [polygon('car', TRIANGLE)] });

        const bystander = await newProject(t.ctx);
        const bystanderTag = await newTag(t.ctx, bystander, { scope: 'figures', title: 'occluded' });
        const other = await newImage(t.ctx, await newDataset(t.ctx, bystander), { objects: [polygon('car', TRIANGLE, ['occluded'])] });
        await referenceFigureTag(t.ctx, other.id, bystanderTag);
        return { project, occluded, truncated, imageLevel, first, second, plain, bystander };
      }

      const objectTags = (records: AnnotationBody[]) => records.map((r) => r.data.objects.map((o) => o.tags));

      test('a rename rewrites every object that carries the old title', async () => {
        const s = await seed();
        const res = await updateTag(s.project, s.occluded, { type: 'figures', title: 'hidden' });
        assert.equal(res.statusCode, 200);
        const records = await annotations(s.project);
        assert.deepEqual(records.map((r) => r.imageId), [s.first.id, s.second.id, s.plain.id]);
        assert.deepEqual(objectTags(records), [[['hidden', 'truncated'], ['truncated'], ['hidden']], [['hidden']], [[]]]);
        // The image-level tag of the same title is another tag.
        assert.deepEqual(records[0]?.data.tags, ['occluded']);
        // The rest of each object is as it was.
        assert.deepEqual(records[0]?.data.objects[0], polygon('car', TRIANGLE, ['hidden', 'truncated']));
        assert.deepEqual(objectTags(await annotations(s.bystander)), [[['occluded']]]);
        assert.deepEqual(await titlesOf(s.project, 'figures'), ['hidden', 'truncated']);
      });

      test('renaming the images tag of the same title leaves the objects alone', async () => {
        const s = await seed();
        assert.equal((await updateTag(s.project, s.imageLevel, { type: 'images', title: 'covered' })).statusCode, 200);
        const records = await annotations(s.project);
        assert.deepEqual(records[0]?.data.tags, ['covered']);
        assert.deepEqual(objectTags(records), [[['occluded', 'truncated'], ['truncated'], ['occluded']], [['occluded']], [[]]]);
      });

      test('a rename that conflicts is 409 and leaves the objects as they were', async () => {
        const s = await seed();
        assertError(await updateTag(s.project, s.occluded, { type: 'figures', title: 'truncated' }), 409, 'CONFLICT');
        assert.deepEqual(objectTags(await annotations(s.project)), [
          [['occluded', 'truncated'], ['truncated'], ['occluded']],
          [['occluded']],
          [[]],
        ]);
      });

      test('stored objects stay in the canonical serialisation after a rename', async () => {
        const s = await seed();
        assert.equal((await updateTag(s.project, s.truncated, { type: 'figures', title: 'cut' })).statusCode, 200);
        const row = await t.ctx.db.kysely.selectFrom('images').select('objects_json').where('id', '=', s.first.id).executeTakeFirstOrThrow();
        assert.equal(
          row.objects_json,
          serializeObjects([
            polygon('car', TRIANGLE, ['occluded', 'cut']),
            polygon('car', TRIANGLE, ['cut']),
            polygon('car', TRIANGLE, ['occluded']),
          ]),
        );
      });

      test('a delete takes the title out of every object and drops the references', async () => {
        const s = await seed();
        const res = await deleteTag(s.project, s.occluded, 'figures');
        assert.equal(res.statusCode, 200);
        const records = await annotations(s.project);
        assert.deepEqual(objectTags(records), [[['truncated'], ['truncated'], []], [[]], [[]]]);
        assert.deepEqual(records[0]?.data.tags, ['occluded']);
        assert.deepEqual(objectTags(await annotations(s.bystander)), [[['occluded']]]);
        const refs = await t.ctx.db.kysely.selectFrom('object_tag_refs').select('image_id').where('tag_id', '=', s.occluded).execute();
        assert.deepEqual(refs, []);
        assert.deepEqual(await titlesOf(s.project, 'figures'), ['truncated']);
      });

      test(
        'a rename waiting on another writer of the same image keeps that writer’s change',
        { skip: dialect.name === 'postgres' ? false : 'only PostgreSQL runs writers side by side' },
        async () => {
          const s = await seed();
          const writer = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${t.config.databaseSchema}` });
          await writer.connect();
          try {
            // Another writer (an import replacing the annotation) holds the image row when the rename
            // reaches it, and adds an object that also carries the old title.
            await writer.query('begin');
            const changed = serializeObjects([polygon('car', TRIANGLE, ['occluded']), polygon('car', TRIANGLE, ['occluded', 'truncated'])]);
            await writer.query('update images set objects_json = $1 where id = $2', [changed, s.second.id]);
            const rename = updateTag(s.project, s.occluded, { type: 'figures', title: 'hidden' });
            await waitForLockWaitOnClient(writer);
            await writer.query('commit');
            assert.equal((await rename).statusCode, 200);
          } finally {
            await writer.end();
          }
          assert.deepEqual(objectTags(await annotations(s.project))[1], [['hidden'], ['hidden', 'truncated']]);
        },
      );

      test('a forbidden or foreign rename leaves the objects alone', async () => {
        const s = await seed();
        assertError(await updateTag(s.project, s.occluded, { type: 'figures', title: 'x' }, t.readOnlyKey), 403, 'FORBIDDEN');
        assertError(await updateTag(s.project, s.occluded, { type: 'figures', title: 'x' }, t.otherKey), 404, 'NOT_FOUND');
        assertError(await deleteTag(s.project, s.occluded, 'figures', t.otherKey), 404, 'NOT_FOUND');
        assert.deepEqual(objectTags(await annotations(s.project))[1], [['occluded']]);
      });
    });
  });
}
