// Images under API v2: upload, metadata, rename, move, copy, delete and lists, on both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createContext } from '../../src/context.ts';
import type { Static } from 'typebox';
import type { ImageMetadata } from '../../src/http/schemas/v2-images.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon, referenceFigureTag } from '../helpers/factories.ts';
import { pngImage } from '../helpers/multipart.ts';
import { waitForLockWaitOn } from '../helpers/pg-lock-wait.ts';
import { listeningPort } from '../helpers/raw-http.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { type List, assertProblem } from '../helpers/v2.ts';

/** The metadata every image route answers, as the route schema gives it. */
type Metadata = Static<typeof ImageMetadata>;
type Page = List<Metadata>;

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SQUARE: [number, number][] = [[1, 1], [9, 1], [9, 9], [1, 9], [1, 1]];

/** A multipart body of image files, each a `file` part whose filename is the image's name. */
function imageFiles(files: { name: string; bytes: Buffer }[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----annostoreV2ImagesBoundary';
  const chunks: Buffer[] = [];
  for (const f of files) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${f.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      f.bytes,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

for (const dialect of dialects) {
  describe(`v2 images on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let seed = 1;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(async () => t?.close());

    const upload = (datasetId: number, files: { name: string; bytes: Buffer }[], key?: string) =>
      t.request({ method: 'POST', url: `/v2/datasets/${datasetId}/images`, ...imageFiles(files), ...(key ? { key } : {}) });
    const getImage = (id: number, key?: string) => t.request({ method: 'GET', url: `/v2/images/${id}`, ...(key ? { key } : {}) });
    const patch = (id: number, payload: object, headers: Record<string, string> = {}, key?: string) =>
      t.request({ method: 'PATCH', url: `/v2/images/${id}`, payload, headers, ...(key ? { key } : {}) });
    const copy = (id: number, payload: object, key?: string) => t.request({ method: 'POST', url: `/v2/images/${id}/copy`, payload, ...(key ? { key } : {}) });
    const remove = (id: number, headers: Record<string, string> = {}, key?: string) =>
      t.request({ method: 'DELETE', url: `/v2/images/${id}`, headers, ...(key ? { key } : {}) });
    const list = (query: string, key?: string) => t.request({ method: 'GET', url: `/v2/images?${query}`, ...(key ? { key } : {}) });
    const names = async (query: string) => {
      const res = await list(query);
      assert.equal(res.statusCode, 200, res.body);
      return json<Page>(res).items.map((i) => i.name);
    };
    const sizes = async (datasetId: number) => {
      const db = t.ctx.db.kysely;
      const d = await db.selectFrom('datasets').select(['size', 'project_id']).where('id', '=', datasetId).executeTakeFirstOrThrow();
      const p = await db.selectFrom('projects').select('size').where('id', '=', d.project_id).executeTakeFirstOrThrow();
      return { dataset: Number(d.size), project: Number(p.size) };
    };
    const png = async () => pngImage(8 + (seed % 5), 6, (seed += 1));

    describe('upload and metadata', () => {
      test('uploaded images are answered with their metadata, which GET gives again with an ETag', async () => {
        const project = await newProject(t.ctx);
        const dataset = await newDataset(t.ctx, project);
        const a = await pngImage(12, 7, 1001);
        const b = await pngImage(5, 9, 1002);
        const res = await upload(dataset, [{ name: 'a.png', bytes: a }, { name: 'b.png', bytes: b }]);
        assert.equal(res.statusCode, 201, res.body);
        const { items } = json<{ items: Metadata[] }>(res);
        assert.deepEqual(
          items.map(({ name, size, width, height, mediaType, datasetId, projectId, description, tags, objectCounts, thumbhash }) => ({
            name, size, width, height, mediaType, datasetId, projectId, description, tags, objectCounts, thumbhash,
          })),
          [
            { name: 'a.png', size: a.length, width: 12, height: 7, mediaType: 'image/png', datasetId: dataset, projectId: project, description: '', tags: [], objectCounts: [], thumbhash: null },
            { name: 'b.png', size: b.length, width: 5, height: 9, mediaType: 'image/png', datasetId: dataset, projectId: project, description: '', tags: [], objectCounts: [], thumbhash: null },
          ],
        );
        assert.match(items[0]!.createdAt, ISO);

        const got = await getImage(items[0]!.id);
        assert.equal(got.statusCode, 200);
        assert.deepEqual(json(got), items[0]);
        const etag = got.headers.etag as string;
        assert.match(etag, /^"/);
        const again = await t.request({ method: 'GET', url: `/v2/images/${items[0]!.id}`, headers: { 'if-none-match': etag } });
        assert.equal(again.statusCode, 304);
        assert.deepEqual(await sizes(dataset), { dataset: a.length + b.length, project: a.length + b.length });
      });

      test('metadata counts the objects of each class and shows the tags with their values', async () => {
        const project = await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }, { title: 'person', shape: 'polygon' }] });
        const dataset = await newDataset(t.ctx, project);
        const tag = await newTag(t.ctx, project, { title: 'weather' });
        const image = await newImage(t.ctx, dataset, { objects: [polygon('person', SQUARE), polygon('car', SQUARE), polygon('car', SQUARE)] });
        await t.ctx.db.kysely.insertInto('image_tags').values({ image_id: image.id, tag_id: tag, value: '"rain"' }).execute();
        const classes = await t.ctx.db.kysely.selectFrom('classes').select(['id', 'title']).where('project_id', '=', project).orderBy('id').execute();
        const body = json<Metadata>(await getImage(image.id));
        assert.deepEqual(body.objectCounts, [
          { classId: classes[0]!.id, classTitle: 'car', count: 2 },
          { classId: classes[1]!.id, classTitle: 'person', count: 1 },
        ]);
        assert.deepEqual(body.tags, [{ id: tag, title: 'weather', value: 'rain' }]);
      });

      test('the same bytes sent twice are stored as one blob', async () => {
        const dataset = await newDataset(t.ctx, await newProject(t.ctx));
        const bytes = await png();
        const blobCount = async () => Number((await t.ctx.db.kysely.selectFrom('blobs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
        const before = await blobCount();
        const first = json<{ items: Metadata[] }>(await upload(dataset, [{ name: 'one.png', bytes }])).items[0]!;
        const res = await upload(dataset, [{ name: 'two.png', bytes }]);
        assert.equal(res.statusCode, 201, res.body);
        const second = json<{ items: Metadata[] }>(res).items[0]!;
        assert.equal(second.hash, first.hash);
        assert.notEqual(second.id, first.id);
        assert.equal(await blobCount(), before + 1, 'one blob for both uploads');
        assert.deepEqual(await sizes(dataset), { dataset: 2 * bytes.length, project: 2 * bytes.length });
      });

      test('a file that is not an image, or a bad name, refuses the whole request with a pointer to the file', async () => {
        const dataset = await newDataset(t.ctx, await newProject(t.ctx));
        const res = await upload(dataset, [{ name: 'good.png', bytes: await png() }, { name: 'bad.png', bytes: Buffer.from('not an image') }]);
        const problem = assertProblem(res, 400, 'VALIDATION');
        assert.deepEqual(problem.errors?.map((e) => e.pointer), ['/files/1']);
        const named = assertProblem(await upload(dataset, [{ name: '..', bytes: await png() }]), 400, 'VALIDATION');
        assert.deepEqual(named.errors?.map((e) => e.pointer), ['/files/0']);
        assert.deepEqual(await names(`datasetId=${dataset}`), []);
      });

      test('a name the dataset has already is a conflict, and nothing of the request is kept', async () => {
        const dataset = await newDataset(t.ctx, await newProject(t.ctx));
        await newImage(t.ctx, dataset, { name: 'taken.png' });
        assertProblem(await upload(dataset, [{ name: 'new.png', bytes: await png() }, { name: 'taken.png', bytes: await png() }]), 409, 'CONFLICT');
        assert.deepEqual(await names(`datasetId=${dataset}`), ['taken.png']);
      });

      test('a request that is not multipart is refused', async () => {
        const dataset = await newDataset(t.ctx, await newProject(t.ctx));
        assertProblem(await t.request({ method: 'POST', url: `/v2/datasets/${dataset}/images`, payload: { name: 'x' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      });
    });

    describe('rename and description', () => {
      test('renames and describes, and refuses a name the dataset has with 409', async () => {
        const dataset = await newDataset(t.ctx, await newProject(t.ctx));
        const image = await newImage(t.ctx, dataset, { name: 'old.png' });
        await newImage(t.ctx, dataset, { name: 'other.png' });
        const res = await patch(image.id, { name: 'new.png', description: 'a street' });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(json<Metadata>(res).name, 'new.png');
        assert.equal(json<Metadata>(res).description, 'a street');
        assert.equal(res.headers.etag, (await getImage(image.id)).headers.etag);
        assertProblem(await patch(image.id, { name: 'other.png' }), 409, 'CONFLICT');
        assertProblem(await patch(image.id, { name: 'a/b.png' }), 400, 'VALIDATION');
        assertProblem(await patch(image.id, { colour: 'red' }), 400, 'VALIDATION');
        assertProblem(await patch(image.id, {}), 400, 'VALIDATION');
        assert.equal(json<Metadata>(await getImage(image.id)).name, 'new.png');
      });

      test('If-Match: a stale ETag is 412 and changes nothing; the current one is honoured', async () => {
        const dataset = await newDataset(t.ctx, await newProject(t.ctx));
        const image = await newImage(t.ctx, dataset, { name: 'x.png' });
        const stale = (await getImage(image.id)).headers.etag as string;
        assert.equal((await patch(image.id, { description: 'first' })).statusCode, 200);
        assertProblem(await patch(image.id, { description: 'second' }, { 'if-match': stale }), 412, 'PRECONDITION_FAILED');
        assertProblem(await remove(image.id, { 'if-match': stale }), 412, 'PRECONDITION_FAILED');
        assert.equal(json<Metadata>(await getImage(image.id)).description, 'first');
        const current = (await getImage(image.id)).headers.etag as string;
        assert.equal((await patch(image.id, { description: 'second' }, { 'if-match': current })).statusCode, 200);
        const latest = (await getImage(image.id)).headers.etag as string;
        assert.equal((await remove(image.id, { 'if-match': latest })).statusCode, 204);
      });

      test('two edits from the same ETag at once: one wins, the other is told with 412', async () => {
        const dataset = await newDataset(t.ctx, await newProject(t.ctx));
        const image = await newImage(t.ctx, dataset, { name: 'race.png' });
        const etag = (await getImage(image.id)).headers.etag as string;
        const answers = await Promise.all(['left', 'right'].map((d) => patch(image.id, { description: d }, { 'if-match': etag })));
        assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 412]);
        const winner = json<Metadata>(answers.find((a) => a.statusCode === 200)!).description;
        assert.equal(json<Metadata>(await getImage(image.id)).description, winner);
      });
    });

    describe('move and copy', () => {
      test('a move within the project carries the bytes from one dataset to the other', async () => {
        const project = await newProject(t.ctx);
        const from = await newDataset(t.ctx, project, 'from');
        const to = await newDataset(t.ctx, project, 'to');
        const image = await newImage(t.ctx, from, { name: 'm.png' });
        const res = await patch(image.id, { datasetId: to });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(json<Metadata>(res).datasetId, to);
        assert.deepEqual(await sizes(from), { dataset: 0, project: image.size });
        assert.deepEqual(await sizes(to), { dataset: image.size, project: image.size });
        assert.deepEqual(await names(`datasetId=${to}`), ['m.png']);
      });

      test('a move into a dataset with the same name is a conflict', async () => {
        const project = await newProject(t.ctx);
        const from = await newDataset(t.ctx, project, 'from');
        const to = await newDataset(t.ctx, project, 'to');
        const image = await newImage(t.ctx, from, { name: 'same.png' });
        await newImage(t.ctx, to, { name: 'same.png' });
        assertProblem(await patch(image.id, { datasetId: to }), 409, 'CONFLICT');
        assert.equal(json<Metadata>(await getImage(image.id)).datasetId, from);
      });

      test('a move to another project needs its classes and tags, and takes the tags as that project’s', async () => {
        const source = await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }] });
        const from = await newDataset(t.ctx, source);
        const sourceTag = await newTag(t.ctx, source, { title: 'night' });
        const sourceFigureTag = await newTag(t.ctx, source, { scope: 'figures', title: 'occluded' });
        const image = await newImage(t.ctx, from, { objects: [polygon('car', SQUARE, ['occluded'])] });
        await t.ctx.db.kysely.insertInto('image_tags').values({ image_id: image.id, tag_id: sourceTag, value: '3' }).execute();
        await referenceFigureTag(t.ctx, image.id, sourceFigureTag);

        const bare = await newDataset(t.ctx, await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }] }));
        const refused = assertProblem(await patch(image.id, { datasetId: bare }), 409, 'CONFLICT');
        assert.match(refused.detail, /lacks/);
        assert.equal(json<Metadata>(await getImage(image.id)).datasetId, from);

        const target = await newProject(t.ctx, { classes: [{ title: 'truck', shape: 'polygon' }, { title: 'car', shape: 'polygon' }] });
        const to = await newDataset(t.ctx, target);
        const targetTag = await newTag(t.ctx, target, { title: 'night' });
        const targetFigureTag = await newTag(t.ctx, target, { scope: 'figures', title: 'occluded' });
        const res = await patch(image.id, { datasetId: to });
        assert.equal(res.statusCode, 200, res.body);
        const moved = json<Metadata>(res);
        assert.equal(moved.projectId, target);
        assert.deepEqual(moved.tags, [{ id: targetTag, title: 'night', value: 3 }]);
        assert.deepEqual(moved.objectCounts.map((c) => c.classTitle), ['car']);
        const refs = await t.ctx.db.kysely.selectFrom('object_tag_refs').select('tag_id').where('image_id', '=', image.id).execute();
        assert.deepEqual(refs.map((r) => r.tag_id), [targetFigureTag]);
        assert.deepEqual(await sizes(from), { dataset: 0, project: 0 });
        assert.deepEqual(await sizes(to), { dataset: image.size, project: image.size });
      });

      // As in a rename of the target project's class: another connection holds its row for update and
      // renames it while the move is answered. On SQLite the second connection would run in this
      // thread and could not wait for the first.
      test('a move into a project whose class a rename holds waits for it and then names the class missing', { skip: dialect.name !== 'postgres' }, async () => {
        const from = await newDataset(t.ctx, await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }] }));
        const targetProject = await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }] });
        const to = await newDataset(t.ctx, targetProject);
        const image = await newImage(t.ctx, from, { objects: [polygon('car', SQUARE)] });
        const other = await createContext(t.config, { migrate: false });
        try {
          let answer: ReturnType<typeof patch> | undefined;
          await other.db.kysely.transaction().execute(async (trx) => {
            await trx.selectFrom('classes').select('id').where('project_id', '=', targetProject).where('title', '=', 'car').forUpdate().execute();
            answer = patch(image.id, { datasetId: to });
            await waitForLockWaitOn(trx);
            await trx.updateTable('classes').set({ title: 'auto' }).where('project_id', '=', targetProject).where('title', '=', 'car').execute();
          });
          const refused = assertProblem(await answer!, 409, 'CONFLICT');
          assert.deepEqual((refused as unknown as { missing: { classes: string[] } }).missing.classes, ['car']);
          assert.equal(json<Metadata>(await getImage(image.id)).datasetId, from, 'the image stays');
        } finally {
          await other.close();
        }
      });

      test('a copy has the same bytes and annotation under a new id, and counts its bytes', async () => {
        const project = await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }] });
        const from = await newDataset(t.ctx, project, 'from');
        const to = await newDataset(t.ctx, project, 'to');
        const tag = await newTag(t.ctx, project, { title: 'keep' });
        const image = await newImage(t.ctx, from, { name: 'c.png', description: 'orig', objects: [polygon('car', SQUARE)] });
        await t.ctx.db.kysely.insertInto('image_tags').values({ image_id: image.id, tag_id: tag, value: null }).execute();
        const res = await copy(image.id, { datasetId: to });
        assert.equal(res.statusCode, 201, res.body);
        const copied = json<Metadata>(res);
        const original = json<Metadata>(await getImage(image.id));
        assert.notEqual(copied.id, image.id);
        assert.deepEqual(
          { ...copied, id: 0, datasetId: 0, createdAt: '', updatedAt: '' },
          { ...original, id: 0, datasetId: 0, createdAt: '', updatedAt: '' },
        );
        assert.deepEqual(await sizes(to), { dataset: image.size, project: 2 * image.size });
        assert.deepEqual(await sizes(from), { dataset: image.size, project: 2 * image.size });
        const blobs = await t.ctx.db.kysely.selectFrom('blobs').select('hash').where('hash', '=', image.hash).execute();
        assert.equal(blobs.length, 1);

        assertProblem(await copy(image.id, { datasetId: from }), 409, 'CONFLICT');
        const renamed = await copy(image.id, { datasetId: from, name: 'c-copy.png' });
        assert.equal(renamed.statusCode, 201, renamed.body);
        assert.deepEqual(await names(`datasetId=${from}&sort=name`), ['c-copy.png', 'c.png']);
        assertProblem(await copy(image.id, { datasetId: from, name: '.' }), 400, 'VALIDATION');
      });
    });

    describe('delete', () => {
      test('deletes the image and its bytes from the sizes; the blob is left for the sweep', async () => {
        const dataset = await newDataset(t.ctx, await newProject(t.ctx));
        const image = await newImage(t.ctx, dataset);
        const kept = await newImage(t.ctx, dataset);
        assert.equal((await remove(image.id)).statusCode, 204);
        assertProblem(await getImage(image.id), 404, 'NOT_FOUND');
        assertProblem(await remove(image.id), 404, 'NOT_FOUND');
        assert.deepEqual(await sizes(dataset), { dataset: kept.size, project: kept.size });
        const blob = await t.ctx.db.kysely.selectFrom('blobs').select('hash').where('hash', '=', image.hash).executeTakeFirst();
        assert.ok(blob);
      });
    });

    describe('lists', () => {
      test('every filter, both sorts, and the total only when asked', async () => {
        const project = await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }, { title: 'dog', shape: 'polygon' }] });
        const ds1 = await newDataset(t.ctx, project, 'one');
        const ds2 = await newDataset(t.ctx, project, 'two');
        const tag = await newTag(t.ctx, project, { title: 'sunny' });
        const [car, dog] = await t.ctx.db.kysely.selectFrom('classes').select('id').where('project_id', '=', project).orderBy('id').execute();
        const c = await newImage(t.ctx, ds1, { name: 'cat-2.png', objects: [polygon('car', SQUARE)] });
        await newImage(t.ctx, ds1, { name: 'Cat-1.png' });
        await newImage(t.ctx, ds1, { name: 'bird.png', objects: [polygon('dog', SQUARE)] });
        await newImage(t.ctx, ds2, { name: 'cat-0.png', objects: [polygon('car', SQUARE), polygon('dog', SQUARE)] });
        await t.ctx.db.kysely.insertInto('image_tags').values({ image_id: c.id, tag_id: tag, value: null }).execute();

        assert.deepEqual(await names(`datasetId=${ds1}`), ['cat-2.png', 'Cat-1.png', 'bird.png']);
        assert.deepEqual(await names(`datasetId=${ds1}&sort=id`), ['cat-2.png', 'Cat-1.png', 'bird.png']);
        assert.deepEqual(await names(`datasetId=${ds1}&sort=name`), ['Cat-1.png', 'bird.png', 'cat-2.png']);
        assert.deepEqual(await names(`projectId=${project}&sort=name`), ['Cat-1.png', 'bird.png', 'cat-0.png', 'cat-2.png']);
        assert.deepEqual(await names(`projectId=${project}&namePrefix=cat`), ['cat-2.png', 'cat-0.png']);
        assert.deepEqual(await names(`projectId=${project}&namePrefix=cat-2`), ['cat-2.png']);
        assert.deepEqual(await names(`projectId=${project}&tagId=${tag}`), ['cat-2.png']);
        assert.deepEqual(await names(`projectId=${project}&classId=${car!.id}`), ['cat-2.png', 'cat-0.png']);
        assert.deepEqual(await names(`datasetId=${ds1}&classId=${dog!.id}`), ['bird.png']);
        assert.deepEqual(await names(`projectId=${project}&annotated=true&sort=name`), ['bird.png', 'cat-0.png', 'cat-2.png']);
        assert.deepEqual(await names(`projectId=${project}&annotated=false`), ['Cat-1.png']);
        assert.deepEqual(await names(`projectId=${project}&namePrefix=cat&classId=${dog!.id}`), ['cat-0.png']);

        const plain = json<Page>(await list(`projectId=${project}`));
        assert.equal('total' in plain, false);
        assert.equal(json<Page>(await list(`projectId=${project}&count=true&limit=1`)).total, 4);
        assert.equal(json<Page>(await list(`projectId=${project}&count=true&annotated=true&limit=1`)).total, 3);
        assert.equal(json<Page>(await list(`projectId=${project}&count=false`)).total, undefined);
      });

      test('items carry the same metadata as GET of one image', async () => {
        const project = await newProject(t.ctx, { classes: [{ title: 'car', shape: 'polygon' }] });
        const dataset = await newDataset(t.ctx, project);
        const tag = await newTag(t.ctx, project, { title: 'x' });
        const a = await newImage(t.ctx, dataset, { objects: [polygon('car', SQUARE)], description: 'd' });
        await newImage(t.ctx, dataset);
        await t.ctx.db.kysely.insertInto('image_tags').values({ image_id: a.id, tag_id: tag, value: '1.5' }).execute();
        const page = json<Page>(await list(`datasetId=${dataset}`));
        for (const item of page.items) assert.deepEqual(item, json(await getImage(item.id)));
      });

      for (const sort of ['id', 'name'] as const) {
        test(`paging by ${sort} with a cursor: every image once, with images added between pages`, async () => {
          const dataset = await newDataset(t.ctx, await newProject(t.ctx));
          for (let i = 0; i < 7; i += 1) await newImage(t.ctx, dataset, { name: `p-${String(i * 2).padStart(2, '0')}.png` });
          const seen: string[] = [];
          let url = `datasetId=${dataset}&limit=3&sort=${sort}`;
          let added = 0;
          for (let pages = 0; pages < 20; pages += 1) {
            const res = await list(url);
            assert.equal(res.statusCode, 200, res.body);
            const page = json<Page>(res);
            seen.push(...page.items.map((i) => i.name));
            if (!page.nextCursor) {
              assert.equal(res.headers.link, undefined);
              break;
            }
            const link = String(res.headers.link);
            assert.match(link, /rel="next"/);
            assert.ok(link.includes(encodeURIComponent(page.nextCursor)) || link.includes(page.nextCursor), link);
            // Between the pages, an image that sorts after the page's end and one that sorts before it.
            added += 1;
            await newImage(t.ctx, dataset, { name: `q-${added}.png` });
            await newImage(t.ctx, dataset, { name: `a-${added}.png` });
            url = `datasetId=${dataset}&limit=3&sort=${sort}&cursor=${encodeURIComponent(page.nextCursor)}`;
          }
          assert.ok(added >= 2, 'more than two pages');
          assert.equal(new Set(seen).size, seen.length, `no image twice: ${seen.join(' ')}`);
          const all = await names(`datasetId=${dataset}&sort=${sort}&limit=1000`);
          if (sort === 'id') {
            // Every image added came after the page being read: all of them are listed, in id order.
            assert.deepEqual(seen, all);
          } else {
            // Those added ahead of the cursor are listed; those added behind it are not; the order holds.
            assert.deepEqual(seen, all.filter((n) => !n.startsWith('a-')));
          }
        });
      }

      test('paging by name through names of a thousand CJK characters, over a real connection', async () => {
        const dataset = await newDataset(t.ctx, await newProject(t.ctx));
        const long = (last: string) => `${'画像名'.repeat(333)}${last}`;
        const expected = ['あ', 'い', 'う', 'え'].map(long);
        for (const name of [...expected].reverse()) await newImage(t.ctx, dataset, { name });
        assert.equal(expected[0]!.length, 1000);
        const port = await listeningPort(t.app);
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const query = `datasetId=${dataset}&sort=name&limit=1${cursor === null ? '' : `&cursor=${cursor}`}`;
          const res = await fetch(`http://127.0.0.1:${port}/v2/images?${query}`, { headers: { authorization: `Bearer ${t.key}` } });
          const body = (await res.json()) as Page;
          assert.equal(res.status, 200, JSON.stringify(body));
          seen.push(...body.items.map((i) => i.name));
          cursor = body.nextCursor;
          if (cursor !== null) assert.ok(cursor.length > 4000, `a cursor of ${cursor.length} characters`);
        } while (cursor !== null && seen.length < 10);
        assert.deepEqual(seen, expected);
      });

      test('namePrefix counts characters as the database does: an emoji prefix finds its names', async () => {
        const dataset = await newDataset(t.ctx, await newProject(t.ctx));
        await newImage(t.ctx, dataset, { name: '😀 party.png' });
        await newImage(t.ctx, dataset, { name: '😀😀 more.png' });
        await newImage(t.ctx, dataset, { name: '😃 other.png' });
        await newImage(t.ctx, dataset, { name: 'plain.png' });
        assert.deepEqual(await names(`datasetId=${dataset}&sort=name&namePrefix=${encodeURIComponent('😀')}`), ['😀 party.png', '😀😀 more.png']);
        assert.deepEqual(await names(`datasetId=${dataset}&namePrefix=${encodeURIComponent('😀😀')}`), ['😀😀 more.png']);
        assert.deepEqual(await names(`datasetId=${dataset}&namePrefix=${encodeURIComponent('😀 p')}`), ['😀 party.png']);
      });

      test('bad input is a problem: missing or both scopes, limits, junk and foreign cursors', async () => {
        const project = await newProject(t.ctx);
        const dataset = await newDataset(t.ctx, project);
        await newImage(t.ctx, dataset);
        await newImage(t.ctx, dataset);
        assertProblem(await list(''), 400, 'VALIDATION', { label: 'no scope' });
        assertProblem(await list(`datasetId=${dataset}&projectId=${project}`), 400, 'VALIDATION', { label: 'both scopes' });
        assertProblem(await list(`datasetId=${dataset}&limit=0`), 400, 'VALIDATION', { label: 'limit 0' });
        assertProblem(await list(`datasetId=${dataset}&limit=1001`), 400, 'VALIDATION', { label: 'limit 1001' });
        assertProblem(await list(`datasetId=${dataset}&cursor=%%%`), 400, 'VALIDATION', { label: 'junk cursor' });
        assertProblem(await list(`datasetId=${dataset}&sort=size`), 400, 'VALIDATION', { label: 'unknown sort' });
        assertProblem(await list(`datasetId=${dataset}&annotated=maybe`), 400, 'VALIDATION', { label: 'not a boolean' });
        const byId = json<Page>(await list(`datasetId=${dataset}&limit=1`));
        assert.ok(byId.nextCursor);
        assertProblem(await list(`datasetId=${dataset}&sort=name&cursor=${encodeURIComponent(byId.nextCursor)}`), 400, 'VALIDATION', { label: 'cursor of another sort' });
        // Ids past PostgreSQL's integer are no list's: a 400, not a failed comparison.
        const forged = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');
        assertProblem(await list(`datasetId=${dataset}&cursor=${forged(3_000_000_000)}`), 400, 'VALIDATION', { label: 'id past int4' });
        assertProblem(await list(`datasetId=${dataset}&sort=name&cursor=${forged(['a.png', 3_000_000_000])}`), 400, 'VALIDATION', { label: 'name cursor id past int4' });
        assert.equal((await list(`datasetId=${dataset}&cursor=${forged(2_147_483_647)}`)).statusCode, 200, 'the largest id is still a cursor');
        assertProblem(await t.request({ method: 'GET', url: `/v2/tasks?cursor=${forged(3_000_000_000)}` }), 400, 'VALIDATION', { label: 'tasks: id past int4' });
        assertProblem(await getImage(0), 400, 'VALIDATION', { label: 'id 0' });
      });
    });

    describe('limits', () => {
      test('more files than a request may hold is 413; a file over the size limit, or a part that is no file, is 400', async () => {
        const small = await startTestApp(dialect, { limits: { ...t.config.limits, uploadFilesPerRequest: 2, uploadFileBytes: 2000 } });
        try {
          const dataset = await newDataset(small.ctx, await newProject(small.ctx));
          const send = (payload: { payload: Buffer; headers: Record<string, string> }) =>
            small.request({ method: 'POST', url: `/v2/datasets/${dataset}/images`, ...payload });
          const three = [1, 2, 3].map((i) => ({ name: `${i}.png`, bytes: Buffer.alloc(0) }));
          assertProblem(await send(imageFiles(three)), 413, 'PAYLOAD_TOO_LARGE');
          const large = await pngImage(400, 400, 77);
          assert.ok(large.length > 2000);
          const problem = assertProblem(await send(imageFiles([{ name: 'ok.png', bytes: await png() }, { name: 'large.png', bytes: large }])), 400, 'VALIDATION');
          assert.deepEqual(problem.errors?.map((e) => e.pointer), ['/files/1']);
          const boundary = '----annostoreFieldPart';
          const field = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${boundary}--\r\n`);
          assertProblem(await send({ payload: field, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }), 400, 'VALIDATION');
          assert.deepEqual(
            json<Page>(await small.request({ method: 'GET', url: `/v2/images?datasetId=${dataset}` })).items,
            [],
          );
        } finally {
          await small.close();
        }
      });
    });

    describe('teams and keys', () => {
      test('another team’s ids answer 404 everywhere, as missing ones do', async () => {
        const theirProject = await newProject(t.ctx, { team: 'beta', classes: [{ title: 'car', shape: 'polygon' }] });
        const theirDataset = await newDataset(t.ctx, theirProject);
        const theirImage = await newImage(t.ctx, theirDataset);
        const theirTag = await newTag(t.ctx, theirProject);
        const theirClass = (await t.ctx.db.kysely.selectFrom('classes').select('id').where('project_id', '=', theirProject).executeTakeFirstOrThrow()).id;
        const ourProject = await newProject(t.ctx);
        const ourDataset = await newDataset(t.ctx, ourProject);
        const ourImage = await newImage(t.ctx, ourDataset);
        const missing = 999_999;

        for (const id of [theirImage.id, missing]) {
          assertProblem(await getImage(id), 404, 'NOT_FOUND', { label: `get ${id}` });
          assertProblem(await patch(id, { description: 'x' }), 404, 'NOT_FOUND', { label: `patch ${id}` });
          assertProblem(await remove(id), 404, 'NOT_FOUND', { label: `delete ${id}` });
          assertProblem(await copy(id, { datasetId: ourDataset }), 404, 'NOT_FOUND', { label: `copy ${id}` });
        }
        for (const id of [theirDataset, missing]) {
          assertProblem(await patch(ourImage.id, { datasetId: id }), 404, 'NOT_FOUND', { label: `move into ${id}` });
          assertProblem(await copy(ourImage.id, { datasetId: id }), 404, 'NOT_FOUND', { label: `copy into ${id}` });
          assertProblem(await list(`datasetId=${id}`), 404, 'NOT_FOUND', { label: `list dataset ${id}` });
          assertProblem(await upload(id, [{ name: 'x.png', bytes: await png() }]), 404, 'NOT_FOUND', { label: `upload into ${id}` });
        }
        for (const id of [theirProject, missing]) assertProblem(await list(`projectId=${id}`), 404, 'NOT_FOUND', { label: `list project ${id}` });
        assertProblem(await list(`projectId=${ourProject}&tagId=${theirTag}`), 404, 'NOT_FOUND', { label: 'their tag' });
        assertProblem(await list(`projectId=${ourProject}&classId=${theirClass}`), 404, 'NOT_FOUND', { label: 'their class' });

        // Nothing of theirs moved, and ours is where it was.
        assert.equal(json<Metadata>(await getImage(theirImage.id, t.otherKey)).datasetId, theirDataset);
        assert.equal(json<Metadata>(await getImage(ourImage.id)).datasetId, ourDataset);
        assert.deepEqual(await sizes(theirDataset), { dataset: theirImage.size, project: theirImage.size });
      });

      test('a read-only key reads but is refused every write with 403', async () => {
        const dataset = await newDataset(t.ctx, await newProject(t.ctx));
        const image = await newImage(t.ctx, dataset);
        const key = t.readOnlyKey;
        assert.equal((await getImage(image.id, key)).statusCode, 200);
        assert.equal((await list(`datasetId=${dataset}`, key)).statusCode, 200);
        assertProblem(await patch(image.id, { description: 'x' }, {}, key), 403, 'FORBIDDEN');
        assertProblem(await remove(image.id, {}, key), 403, 'FORBIDDEN');
        assertProblem(await copy(image.id, { datasetId: dataset, name: 'y.png' }, key), 403, 'FORBIDDEN');
        assertProblem(await upload(dataset, [{ name: 'z.png', bytes: await png() }], key), 403, 'FORBIDDEN');
        assert.equal(json<Metadata>(await getImage(image.id)).description, '');
      });
    });
  });
}
