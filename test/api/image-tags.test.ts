// Image tags and descriptions: GET, POST, DELETE /images/tags and PUT /images/description, on both
// databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, tagImage, userId } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface ImageTagBody {
  id: number;
  title: string;
}

interface ProjectTagBody extends ImageTagBody {
  createdBy: number | null;
  hotkey: string;
}

interface AnnotationBody {
  imageId: number;
  data: { description: string; tags: string[] };
}

function assertError(res: LightMyRequestResponse, status: number, code: string, label = ''): void {
  assert.equal(res.statusCode, status, `${label} ${res.body}`);
  const body = json<{ error: string; details: { message: string } }>(res);
  assert.equal(body.error, code, label);
  assert.equal(typeof body.details.message, 'string', label);
}

function assertSuccess(res: LightMyRequestResponse, label = ''): void {
  assert.equal(res.statusCode, 200, `${label} ${res.body}`);
  assert.deepEqual(json(res), { success: true }, label);
}

for (const dialect of dialects) {
  describe(`image tags on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(async () => t?.close());

    /** A project of `team` with one dataset holding one image named `name`. */
    async function seed(options: { team?: string; name?: string } = {}) {
      const project = await newProject(t.ctx, { team: options.team ?? 'alpha' });
      const datasetId = await newDataset(t.ctx, project);
      const image = await newImage(t.ctx, datasetId, { name: options.name ?? 'photo.png' });
      return { project, datasetId, imageId: image.id };
    }

    const byId = (imageId: number) => `imageId=${imageId}`;
    const request = async (method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, payload?: unknown, key?: string) =>
      t.request({ method, url, ...(payload === undefined ? {} : { payload: payload as object }), ...(key ? { key } : {}) });
    const getTags = async (query: string, key?: string) => request('GET', `/v1/images/tags?${query}`, undefined, key);
    const attach = async (query: string, payload: unknown, key?: string) => request('POST', `/v1/images/tags?${query}`, payload, key);
    const detach = async (query: string, payload: unknown, key?: string) => request('DELETE', `/v1/images/tags?${query}`, payload, key);
    const describeImage = async (query: string, payload: unknown, key?: string) =>
      request('PUT', `/v1/images/description?${query}`, payload, key);
    const tagsOf = async (imageId: number) => json<ImageTagBody[]>(await getTags(byId(imageId)));
    const titlesOf = async (imageId: number) => (await tagsOf(imageId)).map((tag) => tag.title);
    const projectTags = async (projectId: number, type = 'images') =>
      json<ProjectTagBody[]>(await request('GET', `/v1/projects/${projectId}/tags?type=${type}`));
    const annotation = async (projectId: number, imageId: number) =>
      json<AnnotationBody[]>(await request('GET', `/v1/annotations?projectId=${projectId}`)).find((r) => r.imageId === imageId);

    describe('naming the image', () => {
      test('by imageId, or by imageTitle with datasetId', async () => {
        const s = await seed({ name: 'street 1.png' });
        const tag = await newTag(t.ctx, s.project, { title: 'day' });
        await tagImage(t.ctx, s.imageId, tag);
        const expected = [{ id: tag, title: 'day' }];
        assert.deepEqual(json(await getTags(byId(s.imageId))), expected);
        const res = await getTags(`imageTitle=${encodeURIComponent('street 1.png')}&datasetId=${s.datasetId}`);
        assert.equal(res.statusCode, 200);
        assert.deepEqual(json(res), expected);
      });

      test('imageTitle without datasetId, neither, or both ways at once are 400', async () => {
        const s = await seed();
        for (const [label, query] of [
          ['imageTitle alone', 'imageTitle=photo.png'],
          ['nothing', ''],
          ['datasetId alone', `datasetId=${s.datasetId}`],
          ['imageId and imageTitle', `imageId=${s.imageId}&imageTitle=photo.png&datasetId=${s.datasetId}`],
          ['empty imageTitle', `imageTitle=&datasetId=${s.datasetId}`],
          ['imageId 0', 'imageId=0'],
          ['imageId not a number', 'imageId=abc'],
        ]) {
          assertError(await getTags(query!), 400, 'VALIDATION', label);
        }
        assertError(await attach('imageTitle=photo.png', { title: 'x', create: true }), 400, 'VALIDATION', 'POST');
        assertError(await detach('imageTitle=photo.png', []), 400, 'VALIDATION', 'DELETE');
        assertError(await describeImage('imageTitle=photo.png', { value: 'x' }), 400, 'VALIDATION', 'PUT');
        assert.deepEqual(await projectTags(s.project), []);
      });

      test('a missing image is 404, by id and by title', async () => {
        const s = await seed();
        assertError(await getTags(byId(999_999)), 404, 'NOT_FOUND', 'id');
        assertError(await getTags(`imageTitle=nope.png&datasetId=${s.datasetId}`), 404, 'NOT_FOUND', 'title');
        assertError(await getTags('imageTitle=photo.png&datasetId=999999'), 404, 'NOT_FOUND', 'dataset');
      });

      test('another team’s image is 404 both ways, like a missing one', async () => {
        const theirs = await seed({ team: 'beta', name: 'secret.png' });
        const mine = await seed({ name: 'mine.png' });
        const foreign = await getTags(byId(theirs.imageId));
        assertError(foreign, 404, 'NOT_FOUND', 'alpha on beta by id');
        assert.equal(json<{ error: string }>(foreign).error, json<{ error: string }>(await getTags(byId(999_999))).error);
        assertError(await getTags(`imageTitle=secret.png&datasetId=${theirs.datasetId}`), 404, 'NOT_FOUND', 'alpha on beta by title');
        assertError(await getTags(byId(mine.imageId), t.otherKey), 404, 'NOT_FOUND', 'beta on alpha by id');
        assertError(await getTags(`imageTitle=mine.png&datasetId=${mine.datasetId}`, t.otherKey), 404, 'NOT_FOUND', 'beta on alpha by title');
        assert.equal((await getTags(byId(theirs.imageId), t.otherKey)).statusCode, 200);
      });
    });

    describe('GET /images/tags', () => {
      test('an image without tags gives []', async () => {
        const s = await seed();
        const res = await getTags(byId(s.imageId));
        assert.equal(res.statusCode, 200);
        assert.deepEqual(json(res), []);
      });

      test('answers {id, title} in tag id order, whatever the attach order, and only this image’s', async () => {
        const s = await seed();
        const first = await newTag(t.ctx, s.project, { title: 'zebra' });
        const second = await newTag(t.ctx, s.project, { title: 'apple', hotkey: 'a' });
        const unused = await newTag(t.ctx, s.project, { title: 'unused' });
        await tagImage(t.ctx, s.imageId, second);
        await tagImage(t.ctx, s.imageId, first);
        const other = await newImage(t.ctx, s.datasetId);
        await tagImage(t.ctx, other.id, unused);
        assert.deepEqual(json(await getTags(byId(s.imageId))), [
          { id: first, title: 'zebra' },
          { id: second, title: 'apple' },
        ]);
      });

      test('a read-only key may read', async () => {
        const s = await seed();
        assert.equal((await getTags(byId(s.imageId), t.readOnlyKey)).statusCode, 200);
      });
    });

    describe('POST /images/tags', () => {
      test('attaches by id and by title; the annotation record shows them', async () => {
        const s = await seed();
        const day = await newTag(t.ctx, s.project, { title: 'day' });
        const rain = await newTag(t.ctx, s.project, { title: 'rain' });
        assertSuccess(await attach(byId(s.imageId), { id: rain }), 'by id');
        assertSuccess(await attach(`imageTitle=photo.png&datasetId=${s.datasetId}`, { title: 'day' }), 'by title');
        assert.deepEqual(await tagsOf(s.imageId), [
          { id: day, title: 'day' },
          { id: rain, title: 'rain' },
        ]);
        assert.deepEqual((await annotation(s.project, s.imageId))?.data.tags, ['day', 'rain']);
      });

      test('attaching twice is a success and attaches once', async () => {
        const s = await seed();
        const tag = await newTag(t.ctx, s.project, { title: 'once' });
        assertSuccess(await attach(byId(s.imageId), { id: tag }), 'first');
        assertSuccess(await attach(byId(s.imageId), { id: tag }), 'again by id');
        assertSuccess(await attach(byId(s.imageId), { title: 'once' }), 'again by title');
        assertSuccess(await attach(byId(s.imageId), { title: 'once', create: true }), 'again with create');
        assert.deepEqual(await tagsOf(s.imageId), [{ id: tag, title: 'once' }]);
        const rows = await t.ctx.db.kysely.selectFrom('image_tags').select('tag_id').where('image_id', '=', s.imageId).execute();
        assert.equal(rows.length, 1);
        assert.equal((await projectTags(s.project)).length, 1);
      });

      test('a title the project does not have is 404 and creates nothing', async () => {
        const s = await seed();
        assertError(await attach(byId(s.imageId), { title: 'novel' }), 404, 'NOT_FOUND');
        assertError(await attach(byId(s.imageId), { title: 'novel', create: false }), 404, 'NOT_FOUND', 'create false');
        assert.deepEqual(await projectTags(s.project), []);
        assert.deepEqual(await tagsOf(s.imageId), []);
      });

      test('with create, a new title becomes an images tag of the caller and is attached', async () => {
        const s = await seed();
        assertSuccess(await attach(byId(s.imageId), { title: 'novel', create: true }));
        const [created] = await projectTags(s.project);
        assert.equal(created?.title, 'novel');
        assert.equal(created?.hotkey, '');
        assert.equal(created?.createdBy, await userId(t.ctx, 'alpha', 'alice'));
        assert.deepEqual(await projectTags(s.project, 'figures'), []);
        assert.deepEqual(await tagsOf(s.imageId), [{ id: created!.id, title: 'novel' }]);
        const other = await newImage(t.ctx, s.datasetId);
        assertSuccess(await attach(byId(other.id), { title: 'novel', create: true }), 'reuses the tag');
        assert.equal((await projectTags(s.project)).length, 1);
        assert.deepEqual(await tagsOf(other.id), [{ id: created!.id, title: 'novel' }]);
      });

      test('tags of the figures scope, of another project or of nowhere are 404', async () => {
        const s = await seed();
        const figure = await newTag(t.ctx, s.project, { scope: 'figures', title: 'occluded' });
        const elsewhere = await newTag(t.ctx, await newProject(t.ctx), { title: 'away' });
        const foreign = await newTag(t.ctx, await newProject(t.ctx, { team: 'beta' }), { title: 'beta-tag' });
        assertError(await attach(byId(s.imageId), { id: figure }), 404, 'NOT_FOUND', 'figure id');
        assertError(await attach(byId(s.imageId), { title: 'occluded' }), 404, 'NOT_FOUND', 'figure title');
        assertError(await attach(byId(s.imageId), { id: elsewhere }), 404, 'NOT_FOUND', 'other project');
        assertError(await attach(byId(s.imageId), { title: 'away' }), 404, 'NOT_FOUND', 'other project title');
        assertError(await attach(byId(s.imageId), { id: foreign }), 404, 'NOT_FOUND', 'other team');
        assertError(await attach(byId(s.imageId), { id: 999_999, create: true }), 404, 'NOT_FOUND', 'no such id');
        assert.deepEqual(await tagsOf(s.imageId), []);
      });

      test('create with a title only the figures scope has makes an images tag', async () => {
        const s = await seed();
        await newTag(t.ctx, s.project, { scope: 'figures', title: 'occluded' });
        assertSuccess(await attach(byId(s.imageId), { title: 'occluded', create: true }));
        assert.deepEqual((await projectTags(s.project)).map((tag) => tag.title), ['occluded']);
        assert.deepEqual(await titlesOf(s.imageId), ['occluded']);
      });

      test('malformed bodies are 400 and change nothing', async () => {
        const s = await seed();
        const tag = await newTag(t.ctx, s.project, { title: 'day' });
        const cases: [string, unknown][] = [
          ['empty object', {}],
          ['both id and title', { id: tag, title: 'day' }],
          ['only create', { create: true }],
          ['id as a string', { id: String(tag) }],
          ['id 0', { id: 0 }],
          ['title empty', { title: '' }],
          ['title blank', { title: '  ', create: true }],
          ['title not a string', { title: 5 }],
          ['create not a boolean', { title: 'novel', create: 'yes' }],
          ['unknown member', { id: tag, value: 3 }],
          ['array body', [{ id: tag }]],
          ['null body', null],
        ];
        for (const [label, payload] of cases) {
          const res =
            payload === null
              ? await t.request({ method: 'POST', url: `/v1/images/tags?${byId(s.imageId)}`, headers: { 'content-type': 'application/json' }, payload: 'null' })
              : await attach(byId(s.imageId), payload);
          assertError(res, 400, 'VALIDATION', label);
        }
        const bare = await t.request({ method: 'POST', url: `/v1/images/tags?${byId(s.imageId)}` });
        assertError(bare, 400, 'VALIDATION', 'no body');
        assert.deepEqual(await tagsOf(s.imageId), []);
        assert.deepEqual((await projectTags(s.project)).map((p) => p.title), ['day']);
      });

      test('another team’s image is 404 and keeps its tags; a read-only key gets 403', async () => {
        const theirs = await seed({ team: 'beta' });
        await newTag(t.ctx, theirs.project, { title: 'beta-tag' });
        assertError(await attach(byId(theirs.imageId), { title: 'beta-tag' }), 404, 'NOT_FOUND', 'alpha on beta');
        assertError(await attach(byId(theirs.imageId), { title: 'new', create: true }), 404, 'NOT_FOUND', 'alpha on beta create');
        assert.deepEqual(json(await getTags(byId(theirs.imageId), t.otherKey)), []);
        const mine = await seed();
        const tag = await newTag(t.ctx, mine.project, { title: 'mine' });
        assertError(await attach(byId(mine.imageId), { id: tag }, t.otherKey), 404, 'NOT_FOUND', 'beta on alpha');
        assertError(await attach(byId(mine.imageId), { id: tag }, t.readOnlyKey), 403, 'FORBIDDEN', 'read-only');
        assertError(await attach(byId(mine.imageId), { title: 'other', create: true }, t.readOnlyKey), 403, 'FORBIDDEN');
        assert.deepEqual(await tagsOf(mine.imageId), []);
        assert.deepEqual((await projectTags(mine.project)).map((p) => p.title), ['mine']);
      });
    });

    describe('DELETE /images/tags', () => {
      /** An image with tags a, b, c attached and d not attached. */
      async function tagged() {
        const s = await seed();
        const ids: Record<string, number> = {};
        for (const title of ['a', 'b', 'c', 'd']) ids[title] = await newTag(t.ctx, s.project, { title });
        for (const title of ['a', 'b', 'c']) await tagImage(t.ctx, s.imageId, ids[title]!);
        return { ...s, ids };
      }

      test('detaches tags named by id and by title', async () => {
        const s = await tagged();
        assertSuccess(await detach(byId(s.imageId), [{ id: s.ids.a }, { title: 'c' }]));
        assert.deepEqual(await titlesOf(s.imageId), ['b']);
        assert.deepEqual((await annotation(s.project, s.imageId))?.data.tags, ['b']);
        assert.deepEqual((await projectTags(s.project)).map((p) => p.title), ['a', 'b', 'c', 'd'], 'the tags themselves stay');
      });

      test('by imageTitle with datasetId', async () => {
        const s = await tagged();
        assertSuccess(await detach(`imageTitle=photo.png&datasetId=${s.datasetId}`, [{ title: 'b' }]));
        assert.deepEqual(await titlesOf(s.imageId), ['a', 'c']);
      });

      test('a tag that exists but is not attached, or is named twice, is a success', async () => {
        const s = await tagged();
        assertSuccess(await detach(byId(s.imageId), [{ id: s.ids.d }]), 'not attached');
        assertSuccess(await detach(byId(s.imageId), [{ id: s.ids.a }, { title: 'a' }, { id: s.ids.a }]), 'named twice');
        assert.deepEqual(await titlesOf(s.imageId), ['b', 'c']);
      });

      test('an empty list is a success that detaches nothing', async () => {
        const s = await tagged();
        assertSuccess(await detach(byId(s.imageId), []));
        assert.deepEqual(await titlesOf(s.imageId), ['a', 'b', 'c']);
      });

      test('one tag unknown to the project is 404 and nothing is detached', async () => {
        const s = await tagged();
        const figure = await newTag(t.ctx, s.project, { scope: 'figures', title: 'fig' });
        const elsewhere = await newTag(t.ctx, await newProject(t.ctx), { title: 'away' });
        const cases: [string, unknown[]][] = [
          ['missing title', [{ id: s.ids.a }, { title: 'nope' }, { title: 'b' }]],
          ['missing id', [{ title: 'a' }, { id: 999_999 }]],
          ['figure tag id', [{ id: s.ids.a }, { id: figure }]],
          ['figure tag title', [{ id: s.ids.a }, { title: 'fig' }]],
          ['other project tag', [{ id: s.ids.b }, { id: elsewhere }]],
        ];
        for (const [label, payload] of cases) assertError(await detach(byId(s.imageId), payload), 404, 'NOT_FOUND', label);
        assert.deepEqual(await titlesOf(s.imageId), ['a', 'b', 'c']);
      });

      test('the 404 names the element that matched no tag', async () => {
        const s = await tagged();
        const res = await detach(byId(s.imageId), [{ id: s.ids.a }, { title: 'nope' }]);
        assertError(res, 404, 'NOT_FOUND');
        const details = json<{ details: { index: number; title: string } }>(res).details;
        assert.equal(details.index, 1);
        assert.equal(details.title, 'nope');
      });

      test('malformed bodies are 400 and detach nothing', async () => {
        const s = await tagged();
        const cases: [string, unknown][] = [
          ['an object, not an array', { id: s.ids.a }],
          ['empty element', [{ id: s.ids.a }, {}]],
          ['element with id and title', [{ id: s.ids.a, title: 'a' }]],
          ['element with an unknown member', [{ id: s.ids.a, create: true }]],
          ['element not an object', [s.ids.a]],
          ['id as a string', [{ id: String(s.ids.a) }]],
          ['title empty', [{ title: '' }]],
          ['too many elements', Array.from({ length: 1001 }, () => ({ id: s.ids.a }))],
        ];
        for (const [label, payload] of cases) assertError(await detach(byId(s.imageId), payload), 400, 'VALIDATION', label);
        assertError(await t.request({ method: 'DELETE', url: `/v1/images/tags?${byId(s.imageId)}` }), 400, 'VALIDATION', 'no body');
        assert.deepEqual(await titlesOf(s.imageId), ['a', 'b', 'c']);
      });

      test('another team’s image is 404 both ways; a read-only key gets 403', async () => {
        const mine = await tagged();
        const theirs = await seed({ team: 'beta' });
        const theirTag = await newTag(t.ctx, theirs.project, { title: 'beta-tag' });
        await tagImage(t.ctx, theirs.imageId, theirTag);
        assertError(await detach(byId(theirs.imageId), [{ id: theirTag }]), 404, 'NOT_FOUND', 'alpha on beta');
        assert.deepEqual(json(await getTags(byId(theirs.imageId), t.otherKey)), [{ id: theirTag, title: 'beta-tag' }]);
        assertError(await detach(byId(mine.imageId), [{ title: 'a' }], t.otherKey), 404, 'NOT_FOUND', 'beta on alpha');
        assertError(await detach(byId(mine.imageId), [{ id: theirTag }]), 404, 'NOT_FOUND', 'beta tag on alpha image');
        assertError(await detach(byId(mine.imageId), [{ title: 'a' }], t.readOnlyKey), 403, 'FORBIDDEN', 'read-only');
        assert.deepEqual(await titlesOf(mine.imageId), ['a', 'b', 'c']);
      });
    });

    describe('PUT /images/description', () => {
      test('sets the description the annotation record shows, by id and by title', async () => {
        const s = await seed();
        assertSuccess(await describeImage(byId(s.imageId), { value: 'a red car at night' }));
        assert.equal((await annotation(s.project, s.imageId))?.data.description, 'a red car at night');
        assertSuccess(await describeImage(`imageTitle=photo.png&datasetId=${s.datasetId}`, { value: 'ünïcødé "quoted"\nline' }));
        assert.equal((await annotation(s.project, s.imageId))?.data.description, 'ünïcødé "quoted"\nline');
        assertSuccess(await describeImage(byId(s.imageId), { value: '' }), 'empty clears');
        assert.equal((await annotation(s.project, s.imageId))?.data.description, '');
      });

      test('up to the configured length is accepted, one more is 400', async () => {
        const s = await seed();
        const max = t.config.limits.descriptionLength;
        assertSuccess(await describeImage(byId(s.imageId), { value: 'x'.repeat(max) }));
        assertError(await describeImage(byId(s.imageId), { value: 'y'.repeat(max + 1) }), 400, 'VALIDATION');
        assert.equal((await annotation(s.project, s.imageId))?.data.description, 'x'.repeat(max));
      });

      test('malformed bodies are 400 and change nothing', async () => {
        const s = await seed();
        await describeImage(byId(s.imageId), { value: 'before' });
        const cases: [string, unknown][] = [
          ['no value', {}],
          ['value a number', { value: 5 }],
          ['value null', { value: null }],
          ['unknown member', { value: 'x', description: 'y' }],
          ['array body', [{ value: 'x' }]],
        ];
        for (const [label, payload] of cases) assertError(await describeImage(byId(s.imageId), payload), 400, 'VALIDATION', label);
        assert.equal((await annotation(s.project, s.imageId))?.data.description, 'before');
      });

      test('a missing image is 404; another team’s is 404 both ways; a read-only key gets 403', async () => {
        const mine = await seed();
        const theirs = await seed({ team: 'beta' });
        assertError(await describeImage(byId(999_999), { value: 'x' }), 404, 'NOT_FOUND', 'missing');
        assertError(await describeImage(byId(theirs.imageId), { value: 'x' }), 404, 'NOT_FOUND', 'alpha on beta');
        assertError(await describeImage(byId(mine.imageId), { value: 'x' }, t.otherKey), 404, 'NOT_FOUND', 'beta on alpha');
        assertError(await describeImage(byId(mine.imageId), { value: 'x' }, t.readOnlyKey), 403, 'FORBIDDEN', 'read-only');
        assert.equal((await annotation(mine.project, mine.imageId))?.data.description, '');
        const [theirRecord] = json<AnnotationBody[]>(
          await request('GET', `/v1/annotations?projectId=${theirs.project}`, undefined, t.otherKey),
        );
        assert.equal(theirRecord?.data.description, '');
      });
    });
  });
}
