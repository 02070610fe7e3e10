// Projects, datasets, classes and project tags under /v2 on both databases: each resource created,
// read with its ETag, changed under If-Match and deleted; lists paged by cursor; counts only when
// asked; tenancy, read-only keys and problem bodies; what a class rename or delete does to objects.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type AnnotationObject, serializeObjects } from '../../src/formats/canonical.ts';
import { insertImages } from '../../src/repositories/images.repository.ts';
import { sweepBlobs } from '../../src/services/blob-sweep.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon, referenceFigureTag } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { type List, assertProblem } from '../helpers/v2.ts';

interface Project {
  id: number;
  title: string;
  description: string;
  size: number;
  createdAt: string;
  updatedAt: string;
  counts?: { datasets: number; images: number; objects: number };
  classes?: { id: number; title: string; shape: string; color: string }[];
}

interface Dataset {
  id: number;
  projectId: number;
  title: string;
  size: number;
  createdAt: string;
  updatedAt: string;
  counts?: { images: number; objects: number };
}

interface Class {
  id: number;
  projectId: number;
  title: string;
  shape: string;
  color: string;
  createdAt: string;
}

interface Tag {
  id: number;
  projectId: number;
  scope: 'images' | 'figures';
  title: string;
  hotkey: string;
  valueType: string;
  createdBy: number | null;
  createdAt: string;
  updatedAt: string;
}

interface AnnotationRecord {
  imageId: number;
  data: { objects: AnnotationObject[] };
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TRIANGLE: [number, number][] = [[1, 1], [9, 1], [5, 8]];

for (const dialect of dialects) {
  describe(`catalogue API v2 on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(async () => t?.close());

    const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, options: { payload?: unknown; headers?: Record<string, string>; key?: string } = {}) =>
      t.request({
        method,
        url,
        ...(options.payload !== undefined ? { payload: options.payload as object } : {}),
        ...(options.headers ? { headers: options.headers } : {}),
        ...(options.key ? { key: options.key } : {}),
      });
    const created = async <T>(res: LightMyRequestResponse): Promise<T> => {
      assert.equal(res.statusCode, 201, res.body);
      return json<T>(res);
    };
    const etagOf = (res: LightMyRequestResponse): string => {
      const etag = res.headers.etag;
      assert.equal(typeof etag, 'string', `no ETag on ${res.body}`);
      return etag as string;
    };
    /** Every item of a list, page by page, with `limit` per page and `between` run after each page. */
    async function allPages<T>(url: string, limit: number, between: (page: number) => Promise<void> = async () => undefined): Promise<T[]> {
      const items: T[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 100; page += 1) {
        const separator = url.includes('?') ? '&' : '?';
        const res = await send('GET', `${url}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        assert.equal(res.statusCode, 200, res.body);
        const body = json<List<T>>(res);
        assert.ok(body.items.length <= limit);
        items.push(...body.items);
        if (body.nextCursor === null) return items;
        assert.match(String(res.headers.link), /rel="next"/);
        cursor = body.nextCursor;
        await between(page);
      }
      throw new Error('more than 100 pages');
    }
    const annotations = async (projectId: number) =>
      json<AnnotationRecord[]>(await send('GET', `/v1/annotations?projectId=${projectId}`)).map((r) => r.data.objects);

    describe('projects', () => {
      test('created, read with its ETag, renamed under If-Match and deleted', async () => {
        const project = await created<Project>(await send('POST', '/v2/projects', { payload: { title: 'Roads', description: 'dashcam frames' } }));
        assert.equal(project.title, 'Roads');
        assert.equal(project.description, 'dashcam frames');
        assert.equal(project.size, 0);
        assert.match(project.createdAt, ISO);
        assert.match(project.updatedAt, ISO);

        const read = await send('GET', `/v2/projects/${project.id}`);
        assert.equal(read.statusCode, 200);
        assert.deepEqual(json(read), project);
        const etag = etagOf(read);
        assert.equal((await send('GET', `/v2/projects/${project.id}`, { headers: { 'if-none-match': etag } })).statusCode, 304);

        const renamed = await send('PATCH', `/v2/projects/${project.id}`, { payload: { title: 'Streets' }, headers: { 'if-match': etag } });
        assert.equal(renamed.statusCode, 200, renamed.body);
        assert.equal(json<Project>(renamed).title, 'Streets');
        assert.equal(json<Project>(renamed).description, 'dashcam frames', 'a rename keeps the description');
        assert.notEqual(etagOf(renamed), etag);

        assertProblem(await send('PATCH', `/v2/projects/${project.id}`, { payload: { title: 'Lanes' }, headers: { 'if-match': etag } }), 412, 'PRECONDITION_FAILED');
        assertProblem(await send('DELETE', `/v2/projects/${project.id}`, { headers: { 'if-match': etag } }), 412, 'PRECONDITION_FAILED');
        assert.equal(json<Project>(await send('GET', `/v2/projects/${project.id}`)).title, 'Streets', 'the stale change changed nothing');

        const v1 = json<{ id: number; title: string; size: string }[]>(await send('GET', `/v1/projects?projectId=${project.id}`));
        assert.deepEqual(Object.keys(v1[0]!), ['id', 'title', 'size', 'createdAt', 'updatedAt', 'classes', 'tags'], 'v1 shows what it always showed');
        assert.equal(v1[0]!.size, '0');

        const gone = await send('DELETE', `/v2/projects/${project.id}`, { headers: { 'if-match': etagOf(renamed) } });
        assert.equal(gone.statusCode, 204, gone.body);
        assertProblem(await send('GET', `/v2/projects/${project.id}`), 404, 'NOT_FOUND');
        assertProblem(await send('DELETE', `/v2/projects/${project.id}`), 404, 'NOT_FOUND');
      });

      test('a delete takes datasets, images, classes and tags with it and leaves its blobs to the sweep', async () => {
        const projectId = await newProject(t.ctx, { title: 'doomed', classes: [{ title: 'car', shape: 'polygon' }] });
        const datasetId = await newDataset(t.ctx, projectId);
        const image = await newImage(t.ctx, datasetId, { objects: [polygon('car', TRIANGLE)] });
        await newTag(t.ctx, projectId, { title: 'night' });
        const keep = await newProject(t.ctx, { title: 'kept' });
        const keptImage = await newImage(t.ctx, await newDataset(t.ctx, keep));

        assert.equal((await send('DELETE', `/v2/projects/${projectId}`)).statusCode, 204);
        const db = t.ctx.db.kysely;
        for (const table of ['datasets', 'images', 'classes', 'project_tags'] as const) {
          const rows = await db.selectFrom(table).select('id').where('project_id', '=', projectId).execute();
          assert.deepEqual(rows, [], table);
        }
        assertProblem(await send('GET', `/v2/datasets/${datasetId}`), 404, 'NOT_FOUND');
        assert.equal(await t.ctx.blobs.has(image.hash), true, 'bytes stay until the sweep');
        await sweepBlobs(t.ctx, new Date(Date.now() + 2 * 60 * 60 * 1000));
        assert.equal(await t.ctx.blobs.has(image.hash), false, 'the sweep reclaims them');
        assert.equal(await t.ctx.blobs.has(keptImage.hash), true, 'another project’s image keeps its bytes');
        assert.equal(json<Project>(await send('GET', `/v2/projects/${keep}`)).size, keptImage.size);
      });

      test('the list pages by cursor with no gap or duplicate while projects are added, filters by title prefix and totals on request', async () => {
        const before = json<List<Project>>(await send('GET', '/v2/projects?limit=1000')).items.map((p) => p.id);
        const made: number[] = [];
        for (let i = 0; i < 5; i += 1) made.push((await created<Project>(await send('POST', '/v2/projects', { payload: { title: `paged ${i}` } }))).id);
        const added: number[] = [];
        const seen = await allPages<Project>('/v2/projects', 2, async () => {
          added.push((await created<Project>(await send('POST', '/v2/projects', { payload: { title: `paged late ${added.length}` } }))).id);
        });
        const ids = seen.map((p) => p.id);
        assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'in id order');
        assert.equal(new Set(ids).size, ids.length, 'no duplicates');
        for (const id of [...before, ...made]) assert.ok(ids.includes(id), `project ${id} is on a page`);
        for (const id of added) assert.ok(ids.includes(id), `project ${id}, added while paging after every page, is on a later page`);

        const prefixed = await allPages<Project>('/v2/projects?title=paged%20late', 2);
        assert.deepEqual(prefixed.map((p) => p.id), added);
        const lower = json<List<Project>>(await send('GET', '/v2/projects?title=PAGED'));
        assert.deepEqual(lower.items, [], 'the prefix is case-sensitive on every database');

        const counted = json<List<Project>>(await send('GET', '/v2/projects?title=paged&limit=2&count=true'));
        assert.equal(counted.total, made.length + added.length);
        assert.equal(counted.items.length, 2);
        assert.equal(json<List<Project>>(await send('GET', '/v2/projects?limit=2')).total, undefined, 'no total unless asked');
        assertProblem(await send('GET', '/v2/projects?cursor=not-a-cursor'), 400, 'VALIDATION');
      });

      test('counts and classes only when asked', async () => {
        const projectId = await newProject(t.ctx, { title: 'counted', classes: [{ title: 'car', shape: 'polygon', color: '#00FF00' }, { title: 'sign', shape: 'rectangle' }] });
        const a = await newDataset(t.ctx, projectId, 'a');
        await newDataset(t.ctx, projectId, 'b');
        await newImage(t.ctx, a, { objects: [polygon('car', TRIANGLE), polygon('car', TRIANGLE), polygon('sign', TRIANGLE)] });
        await newImage(t.ctx, a, { objects: [polygon('car', TRIANGLE)] });
        await newImage(t.ctx, a);
        const empty = await newProject(t.ctx, { title: 'counted empty' });

        const plain = json<List<Project>>(await send('GET', '/v2/projects?title=counted'));
        assert.deepEqual(plain.items.map((p) => p.id), [projectId, empty]);
        for (const p of plain.items) assert.deepEqual(Object.keys(p).sort(), ['createdAt', 'description', 'id', 'size', 'title', 'updatedAt']);

        const withCounts = json<List<Project>>(await send('GET', '/v2/projects?title=counted&counts=true'));
        const [full, none] = withCounts.items;
        assert.deepEqual(full!.counts, { datasets: 2, images: 3, objects: 4 });
        assert.deepEqual(full!.classes!.map((c) => [c.title, c.shape, c.color]), [['car', 'polygon', '#00FF00'], ['sign', 'rectangle', '#FF0000']]);
        assert.deepEqual(none!.counts, { datasets: 0, images: 0, objects: 0 });
        assert.deepEqual(none!.classes, []);
      });

      test('bad input is a problem naming what is wrong', async () => {
        const noTitle = assertProblem(await send('POST', '/v2/projects', { payload: { description: 'x' } }), 400, 'VALIDATION');
        assert.ok(noTitle.errors && noTitle.errors.length > 0, 'it points at the field');
        assertProblem(await send('POST', '/v2/projects', { payload: { title: '   ' } }), 400, 'VALIDATION', { label: 'blank' });
        assertProblem(await send('POST', '/v2/projects', { payload: { title: 'x'.repeat(256) } }), 400, 'VALIDATION', { label: 'too long' });
        assertProblem(await send('POST', '/v2/projects', { payload: { title: 'ok', owner: 3 } }), 400, 'VALIDATION', { label: 'unknown member' });
        assertProblem(await send('POST', '/v2/projects', { payload: { title: 'ok', description: 'd'.repeat(t.config.limits.descriptionLength + 1) } }), 400, 'VALIDATION', { label: 'description too long' });
        const project = await created<Project>(await send('POST', '/v2/projects', { payload: { title: 'valid' } }));
        assertProblem(await send('PATCH', `/v2/projects/${project.id}`, { payload: {} }), 400, 'VALIDATION', { label: 'empty change' });
        assertProblem(await send('GET', '/v2/projects/0'), 400, 'VALIDATION', { label: 'id 0' });
        assertProblem(await send('GET', '/v2/projects?limit=1001'), 400, 'VALIDATION', { label: 'limit' });
      });
    });

    describe('datasets', () => {
      test('created, read, renamed under If-Match, unique per project, and deleted with their bytes', async () => {
        const projectId = await newProject(t.ctx, { title: 'with datasets' });
        const dataset = await created<Dataset>(await send('POST', `/v2/projects/${projectId}/datasets`, { payload: { title: 'train' } }));
        assert.deepEqual({ projectId: dataset.projectId, title: dataset.title, size: dataset.size }, { projectId, title: 'train', size: 0 });
        assertProblem(await send('POST', `/v2/projects/${projectId}/datasets`, { payload: { title: 'train' } }), 409, 'CONFLICT');
        const other = await created<Dataset>(await send('POST', `/v2/projects/${projectId}/datasets`, { payload: { title: 'val' } }));
        const image = await newImage(t.ctx, dataset.id);

        const read = await send('GET', `/v2/datasets/${dataset.id}`);
        assert.equal(json<Dataset>(read).size, image.size, 'sizes are integers');
        const etag = etagOf(read);
        assertProblem(await send('PATCH', `/v2/datasets/${dataset.id}`, { payload: { title: 'val' }, headers: { 'if-match': etag } }), 409, 'CONFLICT');
        const renamed = await send('PATCH', `/v2/datasets/${dataset.id}`, { payload: { title: 'training' }, headers: { 'if-match': etag } });
        assert.equal(renamed.statusCode, 200, renamed.body);
        assert.equal(json<Dataset>(renamed).title, 'training');
        assertProblem(await send('PATCH', `/v2/datasets/${dataset.id}`, { payload: { title: 'again' }, headers: { 'if-match': etag } }), 412, 'PRECONDITION_FAILED');
        assertProblem(await send('DELETE', `/v2/datasets/${dataset.id}`, { headers: { 'if-match': etag } }), 412, 'PRECONDITION_FAILED');

        assert.equal(json<Project>(await send('GET', `/v2/projects/${projectId}`)).size, image.size);
        assert.equal((await send('DELETE', `/v2/datasets/${dataset.id}`, { headers: { 'if-match': etagOf(renamed) } })).statusCode, 204);
        assertProblem(await send('GET', `/v2/datasets/${dataset.id}`), 404, 'NOT_FOUND');
        assert.equal(json<Project>(await send('GET', `/v2/projects/${projectId}`)).size, 0, 'the project lost the dataset’s bytes');
        assert.equal((await send('GET', `/v2/datasets/${other.id}`)).statusCode, 200);
        assertProblem(await send('POST', '/v2/projects/999999/datasets', { payload: { title: 'x' } }), 404, 'NOT_FOUND');
      });

      test('the list of a project pages by cursor and counts only when asked', async () => {
        const projectId = await newProject(t.ctx, { title: 'many datasets' });
        const ids: number[] = [];
        for (let i = 0; i < 5; i += 1) ids.push(await newDataset(t.ctx, projectId, `d${i}`));
        await newImage(t.ctx, ids[0]!, { objects: [polygon('car', TRIANGLE), polygon('car', TRIANGLE)] });
        await newImage(t.ctx, ids[0]!);
        await newDataset(t.ctx, await newProject(t.ctx, { title: 'elsewhere' }), 'd0');

        const added: number[] = [];
        const pages = await allPages<Dataset>(`/v2/datasets?projectId=${projectId}`, 2, async () => {
          added.push(await newDataset(t.ctx, projectId, `late ${added.length}`));
        });
        assert.deepEqual(pages.map((d) => d.id), [...ids, ...added]);
        assert.equal(pages[0]!.counts, undefined);

        const counted = json<List<Dataset>>(await send('GET', `/v2/datasets?projectId=${projectId}&counts=true&count=true&limit=2`));
        assert.deepEqual(counted.items.map((d) => d.counts), [{ images: 2, objects: 2 }, { images: 0, objects: 0 }]);
        assert.equal(counted.total, ids.length + added.length);
        assertProblem(await send('GET', '/v2/datasets?projectId=999999'), 404, 'NOT_FOUND');
      });
    });

    describe('classes', () => {
      test('created, listed, recoloured and renamed under If-Match; a rename reaches every object of the class', async () => {
        const projectId = await newProject(t.ctx, { title: 'classy' });
        const car = await created<Class>(await send('POST', `/v2/projects/${projectId}/classes`, { payload: { title: 'car', shape: 'polygon', color: '#112233' } }));
        assert.deepEqual({ title: car.title, shape: car.shape, color: car.color, projectId: car.projectId }, { title: 'car', shape: 'polygon', color: '#112233', projectId });
        assert.match(car.createdAt, ISO);
        await created<Class>(await send('POST', `/v2/projects/${projectId}/classes`, { payload: { title: 'cart', shape: 'rectangle', color: '#000000' } }));
        assertProblem(await send('POST', `/v2/projects/${projectId}/classes`, { payload: { title: 'car', shape: 'point', color: '#000000' } }), 409, 'CONFLICT');
        assertProblem(await send('POST', `/v2/projects/${projectId}/classes`, { payload: { title: 'bus', shape: 'blob', color: '#000000' } }), 400, 'VALIDATION');
        assertProblem(await send('POST', `/v2/projects/${projectId}/classes`, { payload: { title: 'bus', shape: 'point', color: 'red' } }), 400, 'VALIDATION');

        const datasetId = await newDataset(t.ctx, projectId);
        await newImage(t.ctx, datasetId, { objects: [polygon('car', TRIANGLE, ['parked']), polygon('cart', TRIANGLE), polygon('car', TRIANGLE)] });
        await newImage(t.ctx, datasetId, { objects: [polygon('cart', TRIANGLE)] });
        // A description that quotes the class's serialised form is text, not an object of the class.
        await newImage(t.ctx, datasetId, { objects: [{ ...polygon('cart', TRIANGLE), description: '{"classTitle":"car",' }] });

        const listed = json<List<Class>>(await send('GET', `/v2/projects/${projectId}/classes`));
        assert.deepEqual(listed.items.map((c) => c.title), ['car', 'cart']);

        const read = await send('GET', `/v2/classes/${car.id}`);
        const etag = etagOf(read);
        const recoloured = await send('PATCH', `/v2/classes/${car.id}`, { payload: { color: '#ABCDEF' }, headers: { 'if-match': etag } });
        assert.equal(recoloured.statusCode, 200, recoloured.body);
        assert.equal(json<Class>(recoloured).color, '#ABCDEF');
        assertProblem(await send('PATCH', `/v2/classes/${car.id}`, { payload: { title: 'auto' }, headers: { 'if-match': etag } }), 412, 'PRECONDITION_FAILED');
        assertProblem(await send('PATCH', `/v2/classes/${car.id}`, { payload: { title: 'cart' } }), 409, 'CONFLICT');

        const renamed = await send('PATCH', `/v2/classes/${car.id}`, { payload: { title: 'automobile' }, headers: { 'if-match': etagOf(recoloured) } });
        assert.equal(renamed.statusCode, 200, renamed.body);
        assert.deepEqual({ title: json<Class>(renamed).title, color: json<Class>(renamed).color }, { title: 'automobile', color: '#ABCDEF' });
        const objects = await annotations(projectId);
        assert.deepEqual(objects.map((image) => image.map((o) => o.classTitle)), [['automobile', 'cart', 'automobile'], ['cart'], ['cart']]);
        assert.deepEqual(objects[0]![0]!.tags, ['parked'], 'the rest of the object is untouched');
        assert.equal(objects[2]![0]!.description, '{"classTitle":"car",');
        const project = json<List<Project>>(await send('GET', '/v2/projects?title=classy&counts=true')).items[0]!;
        assert.deepEqual(project.classes!.map((c) => c.title), ['automobile', 'cart']);
      });

      test('a rename and a cascading delete reach objects in more images than one batch reads', async () => {
        const projectId = await newProject(t.ctx, { title: 'many images', classes: [{ title: 'cone', shape: 'polygon' }, { title: 'pole', shape: 'polygon' }] });
        const datasetId = await newDataset(t.ctx, projectId);
        const { hash, size } = await newImage(t.ctx, datasetId, { name: 'first.png', objects: [polygon('cone', TRIANGLE)] });
        const count = 450;
        await t.ctx.db.kysely.transaction().execute((trx) =>
          insertImages(
            trx,
            Array.from({ length: count }, (_, i) => ({
              datasetId,
              projectId,
              name: `many-${i}.png`,
              hash,
              size,
              width: 64,
              height: 48,
              objectsJson: serializeObjects(i % 3 === 0 ? [polygon('pole', TRIANGLE)] : [polygon('cone', TRIANGLE), polygon('pole', TRIANGLE)]),
            })),
          ),
        );
        const [cone, pole] = json<List<Class>>(await send('GET', `/v2/projects/${projectId}/classes`)).items;
        assert.equal((await send('PATCH', `/v2/classes/${cone!.id}`, { payload: { title: 'marker' } })).statusCode, 200);
        const titles = (await annotations(projectId)).flatMap((objects) => objects.map((o) => o.classTitle));
        assert.equal(titles.filter((title) => title === 'cone').length, 0);
        assert.equal(titles.filter((title) => title === 'marker').length, 1 + count - Math.ceil(count / 3));

        const refused = assertProblem(await send('DELETE', `/v2/classes/${pole!.id}`), 409, 'CONFLICT');
        assert.match(refused.detail, new RegExp(`\\b${count} objects in ${count} images\\b`));
        assert.equal((await send('DELETE', `/v2/classes/${pole!.id}?cascade=true`)).statusCode, 204);
        const left = (await annotations(projectId)).flatMap((objects) => objects.map((o) => o.classTitle));
        assert.deepEqual([...new Set(left)], ['marker']);
        assert.equal(json<List<Project>>(await send('GET', '/v2/projects?title=many%20images&counts=true')).items[0]!.counts!.objects, left.length);
      });

      test('of two changes based on the same ETag exactly one is made; the other is a 412', async () => {
        const projectId = await newProject(t.ctx, { title: 'raced', classes: [{ title: 'raced', shape: 'polygon' }] });
        const classId = json<List<Class>>(await send('GET', `/v2/projects/${projectId}/classes`)).items[0]!.id;
        for (const url of [`/v2/classes/${classId}`, `/v2/projects/${projectId}`]) {
          const etag = etagOf(await send('GET', url));
          const answers = await Promise.all(
            ['first', 'second'].map((title) => send('PATCH', url, { payload: { title: `${title} ${url.length}` }, headers: { 'if-match': etag } })),
          );
          assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 412], url);
          const winner = json<{ title: string }>(answers.find((a) => a.statusCode === 200)!);
          assert.equal(json<{ title: string }>(await send('GET', url)).title, winner.title, url);
        }
      });

      test('a class still used is not deleted unless its objects go too; an unused one simply goes', async () => {
        const projectId = await newProject(t.ctx, { title: 'deleting classes', classes: [{ title: 'car', shape: 'polygon' }, { title: 'bus', shape: 'polygon' }, { title: 'tram', shape: 'polygon' }] });
        const [car, bus, tram] = json<List<Class>>(await send('GET', `/v2/projects/${projectId}/classes`)).items;
        const datasetId = await newDataset(t.ctx, projectId);
        await newImage(t.ctx, datasetId, { objects: [polygon('car', TRIANGLE), polygon('bus', TRIANGLE), polygon('car', TRIANGLE)] });
        await newImage(t.ctx, datasetId, { objects: [polygon('car', TRIANGLE)] });

        const refused = assertProblem(await send('DELETE', `/v2/classes/${car!.id}`), 409, 'CONFLICT');
        assert.match(refused.detail, /\b3 objects\b/);
        assert.equal((await send('GET', `/v2/classes/${car!.id}`)).statusCode, 200, 'still there');

        assert.equal((await send('DELETE', `/v2/classes/${tram!.id}`)).statusCode, 204, 'no object uses it');
        const cascaded = await send('DELETE', `/v2/classes/${car!.id}?cascade=true`);
        assert.equal(cascaded.statusCode, 204, cascaded.body);
        assertProblem(await send('GET', `/v2/classes/${car!.id}`), 404, 'NOT_FOUND');
        assert.deepEqual((await annotations(projectId)).map((image) => image.map((o) => o.classTitle)), [['bus'], []]);
        assert.deepEqual(json<List<Class>>(await send('GET', `/v2/projects/${projectId}/classes`)).items.map((c) => c.id), [bus!.id]);
        const etag = etagOf(await send('GET', `/v2/classes/${bus!.id}`));
        assertProblem(await send('DELETE', `/v2/classes/${bus!.id}?cascade=true`, { headers: { 'if-match': '"stale"' } }), 412, 'PRECONDITION_FAILED');
        assert.equal((await send('DELETE', `/v2/classes/${bus!.id}?cascade=true`, { headers: { 'if-match': etag } })).statusCode, 204);
      });
    });

    describe('project tags', () => {
      test('both scopes in one list, created, renamed under If-Match, a figure rename reaching the objects, deleted', async () => {
        const projectId = await newProject(t.ctx, { title: 'tagged' });
        const night = await created<Tag>(await send('POST', `/v2/projects/${projectId}/tags`, { payload: { title: 'night', scope: 'images', hotkey: 'n', valueType: 'any_string' } }));
        assert.deepEqual(
          { scope: night.scope, title: night.title, hotkey: night.hotkey, valueType: night.valueType, projectId: night.projectId },
          { scope: 'images', title: 'night', hotkey: 'n', valueType: 'any_string', projectId },
        );
        assert.equal(typeof night.createdBy, 'number');
        const parked = await created<Tag>(await send('POST', `/v2/projects/${projectId}/tags`, { payload: { title: 'parked', scope: 'figures' } }));
        assert.equal(parked.valueType, 'none');
        await created<Tag>(await send('POST', `/v2/projects/${projectId}/tags`, { payload: { title: 'night', scope: 'figures' } }));
        assertProblem(await send('POST', `/v2/projects/${projectId}/tags`, { payload: { title: 'night', scope: 'images' } }), 409, 'CONFLICT');
        assertProblem(await send('POST', `/v2/projects/${projectId}/tags`, { payload: { title: 'x', scope: 'objects' } }), 400, 'VALIDATION');

        const all = json<List<Tag>>(await send('GET', `/v2/projects/${projectId}/tags`));
        assert.deepEqual(all.items.map((tag) => [tag.scope, tag.title]), [['images', 'night'], ['figures', 'parked'], ['figures', 'night']]);
        const figures = json<List<Tag>>(await send('GET', `/v2/projects/${projectId}/tags?scope=figures&count=true`));
        assert.deepEqual(figures.items.map((tag) => tag.title), ['parked', 'night']);
        assert.equal(figures.total, 2);

        const datasetId = await newDataset(t.ctx, projectId);
        const image = await newImage(t.ctx, datasetId, { objects: [polygon('car', TRIANGLE, ['parked'])] });
        await referenceFigureTag(t.ctx, image.id, parked.id);

        const etag = etagOf(await send('GET', `/v2/tags/${parked.id}`));
        const renamed = await send('PATCH', `/v2/tags/${parked.id}`, { payload: { title: 'stopped' }, headers: { 'if-match': etag } });
        assert.equal(renamed.statusCode, 200, renamed.body);
        assert.deepEqual([json<Tag>(renamed).title, json<Tag>(renamed).hotkey], ['stopped', '']);
        assert.deepEqual((await annotations(projectId))[0]![0]!.tags, ['stopped']);
        assertProblem(await send('PATCH', `/v2/tags/${parked.id}`, { payload: { hotkey: 's' }, headers: { 'if-match': etag } }), 412, 'PRECONDITION_FAILED');
        assertProblem(await send('PATCH', `/v2/tags/${parked.id}`, { payload: { title: 'night' } }), 409, 'CONFLICT');
        const hotkeyed = await send('PATCH', `/v2/tags/${parked.id}`, { payload: { hotkey: 's' }, headers: { 'if-match': etagOf(renamed) } });
        assert.deepEqual([json<Tag>(hotkeyed).title, json<Tag>(hotkeyed).hotkey], ['stopped', 's']);

        assertProblem(await send('DELETE', `/v2/tags/${parked.id}`, { headers: { 'if-match': etag } }), 412, 'PRECONDITION_FAILED');
        assert.equal((await send('DELETE', `/v2/tags/${parked.id}`)).statusCode, 204);
        assert.deepEqual((await annotations(projectId))[0]![0]!.tags, [], 'a deleted figure tag leaves the objects');
        assertProblem(await send('GET', `/v2/tags/${parked.id}`), 404, 'NOT_FOUND');
        const v1 = json<{ title: string }[]>(await send('GET', `/v1/projects/${projectId}/tags?type=images`));
        assert.deepEqual(v1.map((tag) => Object.keys(tag)), [['id', 'projectId', 'title', 'createdBy', 'hotkey', 'createdAt', 'updatedAt']], 'v1 tags as before');
      });
    });

    test('the OpenAPI document describes every catalogue route, with the conflicts and preconditions it may answer', async () => {
      type Operation = { responses: Record<string, unknown>; parameters?: { name: string; in: string }[] };
      const doc = json<{ paths: Record<string, Record<string, Operation>> }>(await t.request({ method: 'GET', url: '/v2/openapi.json', key: null }));
      const operations: [path: string, methods: string[]][] = [
        ['/v2/projects', ['get', 'post']],
        ['/v2/projects/{id}', ['get', 'patch', 'delete']],
        ['/v2/projects/{projectId}/datasets', ['post']],
        ['/v2/datasets', ['get']],
        ['/v2/datasets/{id}', ['get', 'patch', 'delete']],
        ['/v2/projects/{projectId}/classes', ['get', 'post']],
        ['/v2/classes/{id}', ['get', 'patch', 'delete']],
        ['/v2/projects/{projectId}/tags', ['get', 'post']],
        ['/v2/tags/{id}', ['get', 'patch', 'delete']],
      ];
      for (const [path, methods] of operations) {
        assert.deepEqual(Object.keys(doc.paths[path] ?? {}).sort(), [...methods].sort(), path);
      }
      assert.ok(doc.paths['/v2/classes/{id}']!.delete!.responses['409'], 'a used class is a documented 409');
      assert.ok(doc.paths['/v2/projects/{id}']!.patch!.responses['412']);
      assert.ok(doc.paths['/v2/projects/{id}']!.patch!.parameters!.some((p) => p.in === 'header' && p.name === 'if-match'));
    });

    test('a create retried with the same Idempotency-Key gives the first answer and creates once', async () => {
      const headers = { 'idempotency-key': `catalog-${dialect.name}-${Math.random()}` };
      const first = await send('POST', '/v2/projects', { payload: { title: 'once only' }, headers });
      const again = await send('POST', '/v2/projects', { payload: { title: 'once only' }, headers });
      assert.equal(first.statusCode, 201);
      assert.equal(again.statusCode, 201);
      assert.deepEqual(json(again), json(first));
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.headers.etag, first.headers.etag);
      const listed = json<List<Project>>(await send('GET', '/v2/projects?title=once%20only'));
      assert.equal(listed.items.length, 1);
    });

    test('another team’s ids answer 404 on every route, as a missing one does', async () => {
      const projectId = await newProject(t.ctx, { team: 'beta', title: 'theirs', classes: [{ title: 'car', shape: 'polygon' }] });
      const datasetId = await newDataset(t.ctx, projectId);
      const tagId = await newTag(t.ctx, projectId, { title: 'theirs' });
      const classId = (await t.ctx.db.kysely.selectFrom('classes').select('id').where('project_id', '=', projectId).executeTakeFirstOrThrow()).id;
      const routes: [method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown][] = [
        ['GET', `/v2/projects/${projectId}`],
        ['PATCH', `/v2/projects/${projectId}`, { title: 'mine' }],
        ['DELETE', `/v2/projects/${projectId}`],
        ['POST', `/v2/projects/${projectId}/datasets`, { title: 'mine' }],
        ['GET', `/v2/datasets?projectId=${projectId}`],
        ['GET', `/v2/datasets/${datasetId}`],
        ['PATCH', `/v2/datasets/${datasetId}`, { title: 'mine' }],
        ['DELETE', `/v2/datasets/${datasetId}`],
        ['GET', `/v2/projects/${projectId}/classes`],
        ['POST', `/v2/projects/${projectId}/classes`, { title: 'mine', shape: 'point', color: '#000000' }],
        ['GET', `/v2/classes/${classId}`],
        ['PATCH', `/v2/classes/${classId}`, { title: 'mine' }],
        ['DELETE', `/v2/classes/${classId}?cascade=true`],
        ['GET', `/v2/projects/${projectId}/tags`],
        ['POST', `/v2/projects/${projectId}/tags`, { title: 'mine', scope: 'images' }],
        ['GET', `/v2/tags/${tagId}`],
        ['PATCH', `/v2/tags/${tagId}`, { title: 'mine' }],
        ['DELETE', `/v2/tags/${tagId}`],
      ];
      for (const [method, url, payload] of routes) {
        const foreign = assertProblem(await send(method, url, { payload }), 404, 'NOT_FOUND', { label: `${method} ${url}` });
        const missingUrl = url.replace(/\/\d+(?=\/|\?|$)/, '/999999').replace(/projectId=\d+/, 'projectId=999999');
        const missing = assertProblem(await send(method, missingUrl, { payload }), 404, 'NOT_FOUND', { label: `${method} ${missingUrl}` });
        assert.deepEqual([foreign.title, foreign.detail], [missing.title, missing.detail], `${method} ${url}`);
      }
      assert.deepEqual(
        json<List<Project>>(await send('GET', '/v2/projects?limit=1000')).items.filter((p) => p.id === projectId),
        [],
        'their project is not in our list',
      );
      assert.equal(json<List<Dataset>>(await send('GET', '/v2/datasets?limit=1000')).items.some((d) => d.id === datasetId), false);
      assert.equal(json<Project>(await send('GET', `/v2/projects/${projectId}`, { key: t.otherKey })).title, 'theirs', 'untouched for its team');
      assert.equal((await send('GET', `/v2/classes/${classId}`, { key: t.otherKey })).statusCode, 200);
      assert.equal((await send('GET', `/v2/tags/${tagId}`, { key: t.otherKey })).statusCode, 200);
      assert.equal((await send('GET', `/v2/datasets/${datasetId}`, { key: t.otherKey })).statusCode, 200);
    });

    test('a read-only key reads but every write is 403', async () => {
      const projectId = await newProject(t.ctx, { title: 'read only', classes: [{ title: 'car', shape: 'polygon' }] });
      const datasetId = await newDataset(t.ctx, projectId);
      const tagId = await newTag(t.ctx, projectId, { title: 'ro' });
      const classId = json<List<Class>>(await send('GET', `/v2/projects/${projectId}/classes`)).items[0]!.id;
      const writes: [method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown][] = [
        ['POST', '/v2/projects', { title: 'x' }],
        ['PATCH', `/v2/projects/${projectId}`, { title: 'x' }],
        ['DELETE', `/v2/projects/${projectId}`],
        ['POST', `/v2/projects/${projectId}/datasets`, { title: 'x' }],
        ['PATCH', `/v2/datasets/${datasetId}`, { title: 'x' }],
        ['DELETE', `/v2/datasets/${datasetId}`],
        ['POST', `/v2/projects/${projectId}/classes`, { title: 'x', shape: 'point', color: '#000000' }],
        ['PATCH', `/v2/classes/${classId}`, { title: 'x' }],
        ['DELETE', `/v2/classes/${classId}`],
        ['POST', `/v2/projects/${projectId}/tags`, { title: 'x', scope: 'images' }],
        ['PATCH', `/v2/tags/${tagId}`, { title: 'x' }],
        ['DELETE', `/v2/tags/${tagId}`],
      ];
      for (const [method, url, payload] of writes) {
        assertProblem(await send(method, url, { payload, key: t.readOnlyKey }), 403, 'FORBIDDEN', { label: `${method} ${url}` });
      }
      for (const url of [`/v2/projects/${projectId}`, '/v2/projects', `/v2/datasets/${datasetId}`, `/v2/datasets?projectId=${projectId}`, `/v2/projects/${projectId}/classes`, `/v2/classes/${classId}`, `/v2/projects/${projectId}/tags`, `/v2/tags/${tagId}`]) {
        assert.equal((await send('GET', url, { key: t.readOnlyKey })).statusCode, 200, url);
      }
      assert.equal(json<Project>(await send('GET', `/v2/projects/${projectId}`)).title, 'read only', 'nothing changed');
    });
  });
}
