// Tag value types through API v2: a oneof_string tag's list of values stored, returned, changed only
// while every value in use stays allowed, exported in Supervisely's meta.json; and the values of
// object and image tags read and written with an annotation, each checked against its tag's value
// type, while v1 shows what it always showed. On both databases.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { dialects } from '../helpers/dialects.ts';
import { exportedFolder } from '../helpers/export-round-trip.ts';
import { newDataset, newImage, newProject, newTag, polygon } from '../helpers/factories.ts';
import { uploadProject, waitForTask } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';

interface Tag {
  id: number;
  title: string;
  scope: string;
  valueType: string;
  values?: string[];
}

interface Annotation {
  description: string;
  tags: string[];
  tagValues?: Record<string, string | number>;
  objects: { id: number; classTitle: string; tags: string[]; tagValues?: Record<string, string | number>; points: unknown }[];
}

const TRIANGLE: [number, number][] = [[1, 1], [9, 1], [5, 8]];
const SQUARE: [number, number][] = [[2, 2], [6, 2], [6, 6], [2, 6]];

for (const dialect of dialects) {
  describe(`tag values on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner;
    before(async () => {
      t = await startTestApp(dialect);
      runner = startTaskRunner(t.ctx, pino({ level: 'silent' }) as unknown as FastifyBaseLogger, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    const createTag = async (projectId: number, body: object) => {
      const res = await t.request({ method: 'POST', url: `/v2/projects/${projectId}/tags`, payload: body });
      assert.equal(res.statusCode, 201, res.body);
      return json<Tag>(res);
    };
    const annotationUrl = (imageId: number) => `/v2/images/${imageId}/annotation`;
    const read = async (imageId: number) => {
      const res = await t.request({ method: 'GET', url: annotationUrl(imageId) });
      assert.equal(res.statusCode, 200, res.body);
      return { annotation: json<Annotation>(res), etag: String(res.headers.etag) };
    };

    /** A project with a car class, tags of each value type, and an image of two cars. */
    async function seed() {
      const projectId = await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }] });
      const datasetId = await newDataset(t.ctx, projectId);
      const image = await newImage(t.ctx, datasetId, { objects: [polygon('car', TRIANGLE), polygon('car', SQUARE)] });
      const color = await createTag(projectId, { title: 'color', scope: 'figures', valueType: 'oneof_string', values: ['red', 'blue'] });
      const speed = await createTag(projectId, { title: 'speed', scope: 'figures', valueType: 'any_number' });
      const note = await createTag(projectId, { title: 'note', scope: 'figures', valueType: 'any_string' });
      const parked = await createTag(projectId, { title: 'parked', scope: 'figures' });
      const weather = await createTag(projectId, { title: 'weather', scope: 'images', valueType: 'oneof_string', values: ['sun', 'rain'] });
      return { projectId, datasetId, imageId: image.id, color, speed, note, parked, weather };
    }

    test('a oneof_string tag is created with its values and answers them; other types have none', async () => {
      const { projectId, color, speed, weather } = await seed();
      assert.deepEqual([color.valueType, color.values], ['oneof_string', ['red', 'blue']]);
      assert.equal(speed.values, undefined);
      assert.deepEqual(weather.values, ['sun', 'rain']);
      const got = json<Tag>(await t.request({ method: 'GET', url: `/v2/tags/${color.id}` }));
      assert.deepEqual(got.values, ['red', 'blue']);
      const list = json<{ items: Tag[] }>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/tags?scope=figures` }));
      assert.deepEqual(list.items.find((i) => i.id === color.id)!.values, ['red', 'blue']);

      const post = (body: object) => t.request({ method: 'POST', url: `/v2/projects/${projectId}/tags`, payload: body });
      assertProblem(await post({ title: 'a', scope: 'figures', valueType: 'oneof_string' }), 400, 'VALIDATION', { pointer: '/values' });
      assertProblem(await post({ title: 'a', scope: 'figures', valueType: 'oneof_string', values: [] }), 400, 'VALIDATION', { pointer: '/values' });
      assertProblem(await post({ title: 'a', scope: 'figures', valueType: 'oneof_string', values: ['x', 'y', 'x'] }), 400, 'VALIDATION', { pointer: '/values/2' });
      assertProblem(await post({ title: 'a', scope: 'figures', valueType: 'oneof_string', values: ['x', ' '] }), 400, 'VALIDATION', { pointer: '/values/1' });
      assertProblem(await post({ title: 'a', scope: 'figures', valueType: 'any_number', values: ['x'] }), 400, 'VALIDATION', { pointer: '/values' });
    });

    test('object tag values are written by PUT and PATCH, read back, and checked against the value type', async () => {
      const { projectId, imageId } = await seed();
      const v1Before = (await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` })).body;
      const { annotation, etag } = await read(imageId);
      assert.equal(annotation.objects[0]!.tagValues, undefined);
      const [a, b] = annotation.objects;
      const put = await t.request({
        method: 'PUT',
        url: annotationUrl(imageId),
        headers: { 'if-match': etag },
        payload: {
          ...annotation,
          tags: [{ name: 'weather', value: 'rain' }],
          objects: [
            { ...a, tags: [{ name: 'color', value: 'red' }, 'parked', { name: 'speed', value: 42.5 }] },
            { ...b, tags: ['note'], tagValues: { note: 'a dent on the left door' } },
          ],
        },
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.notEqual(put.headers.etag, etag);
      const written = json<Annotation>(put);
      assert.deepEqual(written.tagValues, { weather: 'rain' });
      assert.deepEqual(written.objects.map((o) => [o.id, o.tags, o.tagValues]), [
        [1, ['color', 'parked', 'speed'], { color: 'red', speed: 42.5 }],
        [2, ['note'], { note: 'a dent on the left door' }],
      ]);
      const again = await read(imageId);
      assert.deepEqual(again.annotation, written);
      assert.equal(again.etag, put.headers.etag);

      // Sent back as read (tagValues and all), nothing changes, not even the ETag.
      const same = await t.request({ method: 'PUT', url: annotationUrl(imageId), headers: { 'if-match': again.etag }, payload: again.annotation });
      assert.equal(same.statusCode, 200, same.body);
      assert.equal(same.headers.etag, again.etag);
      // Sent back as titles only (an older client), the values stay.
      const titlesOnly = { ...again.annotation, tagValues: undefined, objects: again.annotation.objects.map(({ tagValues: _, ...o }) => o) };
      const kept = await t.request({ method: 'PUT', url: annotationUrl(imageId), payload: titlesOnly });
      assert.equal(kept.statusCode, 200, kept.body);
      assert.deepEqual(json<Annotation>(kept), written);

      // v1 shows the titles it always showed, and no values.
      const records = json<{ data: Record<string, unknown> & { objects: Record<string, unknown>[] } }[]>(await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` }));
      assert.deepEqual(records[0]!.data.tags, ['weather']);
      assert.equal('tagValues' in records[0]!.data, false);
      assert.deepEqual(records[0]!.data.objects.map((o) => o.tags), [['color', 'parked', 'speed'], ['note']]);
      assert.equal(records[0]!.data.objects.some((o) => 'tagValues' in o), false);
      assert.notEqual(v1Before, '');

      // PATCH: a value changed by tagValues, one cleared by leaving it out; the other object is left alone.
      const patched = await t.request({ method: 'PATCH', url: annotationUrl(imageId), payload: { change: [{ id: 1, tagValues: { color: 'blue' } }] } });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.deepEqual(json<Annotation>(patched).objects.map((o) => o.tagValues), [{ color: 'blue' }, { note: 'a dent on the left door' }]);
      const addedRes = await t.request({ method: 'PATCH', url: annotationUrl(imageId), payload: { add: [{ classTitle: 'car', tags: [{ name: 'speed', value: 3 }], points: { exterior: TRIANGLE } }] } });
      assert.equal(addedRes.statusCode, 200, addedRes.body);
      assert.deepEqual(json<Annotation>(addedRes).objects.at(-1)!.tagValues, { speed: 3 });
    });

    test('a value its tag’s type refuses is a 400 pointing at it, and nothing is written', async () => {
      const { imageId } = await seed();
      const { annotation, etag } = await read(imageId);
      const [a] = annotation.objects;
      const put = (objects: unknown[], extra: object = {}) => t.request({ method: 'PUT', url: annotationUrl(imageId), payload: { ...annotation, ...extra, objects } });
      const cases: [unknown[], object, string, RegExp][] = [
        [[{ ...a, tags: [{ name: 'color', value: 'green' }] }], {}, '/objects/0/tags/0/value', /one of "red", "blue"/],
        [[{ ...a, tags: ['speed', { name: 'speed', value: 'fast' }] }], {}, '/objects/0/tags/1/value', /takes a number/],
        [[{ ...a, tags: ['speed'], tagValues: { speed: 'fast' } }], {}, '/objects/0/tagValues/speed', /takes a number/],
        [[{ ...a, tags: ['parked'], tagValues: { parked: 1 } }], {}, '/objects/0/tagValues/parked', /takes no value/],
        [[{ ...a, tags: ['note'], tagValues: { note: 3 } }], {}, '/objects/0/tagValues/note', /takes text/],
        [[{ ...a, tags: ['note'], tagValues: { speed: 3 } }], {}, '/objects/0/tagValues/speed', /not among the tags/],
        [[a], { tags: [{ name: 'weather', value: 'snow' }] }, '/tags/0/value', /one of "sun", "rain"/],
        [[a], { tags: ['weather'], tagValues: { weather: 7 } }, '/tagValues/weather', /one of its values/],
      ];
      for (const [objects, extra, pointer, message] of cases) {
        const body = assertProblem(await put(objects, extra), 400, 'VALIDATION', { label: pointer, pointer });
        assert.match(body.detail, message, pointer);
      }
      const patch = await t.request({ method: 'PATCH', url: annotationUrl(imageId), payload: { change: [{ id: 2, tags: ['color'], tagValues: { color: 'pink' } }] } });
      assertProblem(patch, 400, 'VALIDATION', { pointer: '/change/0/tagValues/color' });
      assert.equal((await read(imageId)).etag, etag);
    });

    test('the list of values changes only while every value in use stays in it; the value type likewise', async () => {
      const { imageId, color, speed } = await seed();
      const { annotation } = await read(imageId);
      const put = await t.request({
        method: 'PUT',
        url: annotationUrl(imageId),
        payload: { ...annotation, objects: annotation.objects.map((o) => ({ ...o, tags: [{ name: 'color', value: 'red' }, { name: 'speed', value: 7 }] })) },
      });
      assert.equal(put.statusCode, 200, put.body);
      const usage = json<{ images: number; objects: number }>(await t.request({ method: 'GET', url: `/v2/tags/${color.id}/usage` }));
      assert.deepEqual(usage, { images: 1, objects: 2 });

      const tagRes = await t.request({ method: 'GET', url: `/v2/tags/${color.id}` });
      const etag = String(tagRes.headers.etag);
      const change = (id: number, body: object, ifMatch?: string) => t.request({ method: 'PATCH', url: `/v2/tags/${id}`, payload: body, headers: ifMatch ? { 'if-match': ifMatch } : {} });
      const refused = assertProblem(await change(color.id, { values: ['blue'] }), 409, 'CONFLICT');
      assert.match(refused.detail, /2 objects carry the value "red"/);
      assertProblem(await change(color.id, { valueType: 'any_number' }), 409, 'CONFLICT');
      assertProblem(await change(color.id, { values: ['red', 'red'] }), 400, 'VALIDATION', { pointer: '/values/1' });
      const grown = await change(color.id, { values: ['red', 'blue', 'green'] }, etag);
      assert.equal(grown.statusCode, 200, grown.body);
      assert.deepEqual(json<Tag>(grown).values, ['red', 'blue', 'green']);
      assertProblem(await change(color.id, { values: ['red'] }, etag), 412, 'PRECONDITION_FAILED');
      // Any text takes the values in use; the list goes with the type.
      const widened = await change(color.id, { valueType: 'any_string' });
      assert.equal(widened.statusCode, 200, widened.body);
      assert.deepEqual([json<Tag>(widened).valueType, json<Tag>(widened).values], ['any_string', undefined]);
      assertProblem(await change(speed.id, { valueType: 'oneof_string' }), 400, 'VALIDATION', { pointer: '/values' });
      assertProblem(await change(speed.id, { valueType: 'none' }), 409, 'CONFLICT');
      assert.equal((await change(speed.id, { title: 'velocity' })).statusCode, 200);
      assert.deepEqual((await read(imageId)).annotation.objects[0]!.tagValues, { color: 'red', velocity: 7 });
    });

    test('deleting a tag takes its values away; its usage said how many carried it', async () => {
      const { imageId, projectId, speed, weather } = await seed();
      const { annotation } = await read(imageId);
      const put = await t.request({
        method: 'PUT',
        url: annotationUrl(imageId),
        payload: { ...annotation, tags: [{ name: 'weather', value: 'sun' }], objects: [{ ...annotation.objects[0]!, tags: [{ name: 'speed', value: 1 }, 'parked'] }, annotation.objects[1]] },
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.deepEqual(json(await t.request({ method: 'GET', url: `/v2/tags/${speed.id}/usage` })), { images: 1, objects: 1 });
      assert.deepEqual(json(await t.request({ method: 'GET', url: `/v2/tags/${weather.id}/usage` })), { images: 1 });
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/tags/${speed.id}` })).statusCode, 204);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/tags/${weather.id}` })).statusCode, 204);
      const after = (await read(imageId)).annotation;
      assert.deepEqual([after.tags, after.tagValues, after.objects[0]!.tags, after.objects[0]!.tagValues], [[], undefined, ['parked'], undefined]);
      const row = await t.ctx.db.kysely.selectFrom('images').select('object_tag_values').where('id', '=', imageId).executeTakeFirstOrThrow();
      assert.equal(row.object_tag_values, null);
      assertProblem(await t.request({ method: 'GET', url: `/v2/tags/${speed.id}/usage` }), 404, 'NOT_FOUND');
      // Another team's tag is not found either.
      const theirs = await newTag(t.ctx, await newProject(t.ctx, { team: 'beta' }), { scope: 'figures' });
      assertProblem(await t.request({ method: 'GET', url: `/v2/tags/${theirs}/usage` }), 404, 'NOT_FOUND');
      assert.ok(projectId > 0);
    });

    test('a Supervisely export lists a oneof_string tag’s values in meta.json, and the values on the objects', async () => {
      const { projectId, imageId } = await seed();
      const { annotation } = await read(imageId);
      const put = await t.request({ method: 'PUT', url: annotationUrl(imageId), payload: { ...annotation, objects: [{ ...annotation.objects[0]!, tags: [{ name: 'color', value: 'blue' }] }] } });
      assert.equal(put.statusCode, 200, put.body);
      const { dir } = await exportedFolder(t, { projectId, format: 'supervisely' }, 'tag-values-export');
      try {
        const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) as { tags: { name: string; value_type: string; values?: string[]; applicable_type: string }[] };
        const byName = Object.fromEntries(meta.tags.map((tag) => [tag.name, tag]));
        assert.deepEqual([byName.color!.value_type, byName.color!.values, byName.color!.applicable_type], ['oneof_string', ['red', 'blue'], 'objectsOnly']);
        assert.deepEqual([byName.weather!.value_type, byName.weather!.values], ['oneof_string', ['sun', 'rain']]);
        assert.equal(byName.speed!.values, undefined);
        const file = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).find((p) => p.endsWith('.png.json'))!;
        const objects = (JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { objects: { tags: unknown[] }[] }).objects;
        assert.deepEqual(objects[0]!.tags, [{ name: 'color', value: 'blue' }]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    test('a Supervisely import keeps a oneof_string tag’s values and its objects’ values', async () => {
      const file = (value: unknown) => Buffer.from(JSON.stringify(value));
      const meta = {
        classes: [{ title: 'car', shape: 'polygon', color: '#FF0000' }],
        tags: [{ name: 'color', value_type: 'oneof_string', values: ['red', 'blue'], color: '#0000FF', applicable_type: 'objectsOnly' }],
      };
      const annotation = { description: '', tags: [], size: { width: 64, height: 48 }, objects: [{ classTitle: 'car', tags: [{ name: 'color', value: 'blue' }], points: { exterior: TRIANGLE, interior: [] } }] };
      const files = await uploadProject(t, [
        { path: 'meta.json', type: 'class', content: file(meta) },
        { path: 'ds/img/a.png', type: 'image', content: await pngImage(64, 48, 3) },
        { path: 'ds/ann/a.png.json', type: 'annotation', content: file(annotation) },
      ]);
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'with values' }, preset: 1, files } });
      assert.equal(res.statusCode, 200, res.body);
      const task = await waitForTask(t, json<{ taskId: number }>(res).taskId);
      assert.equal(task.status, 'finished', JSON.stringify(task.meta));
      const projectId = task.meta.project.id as number;
      const [tag] = json<{ items: Tag[] }>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/tags` })).items;
      assert.deepEqual([tag!.title, tag!.valueType, tag!.values], ['color', 'oneof_string', ['red', 'blue']]);
      const image = await t.ctx.db.kysely.selectFrom('images').select('id').where('project_id', '=', projectId).executeTakeFirstOrThrow();
      assert.deepEqual((await read(image.id)).annotation.objects[0]!.tagValues, { color: 'blue' });
    });
  });
}
