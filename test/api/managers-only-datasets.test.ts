// Managers-only datasets on both databases (docs/jobs.md "Ground truth"): to anybody but the project's
// managers (an annotator, a reviewer, a viewer, a member without a role) such a dataset and its images
// do not exist, by v1 and v2: every route that names an image or a dataset by id answers 404 (the
// routes are taken from the app itself, so a new one is checked too), and lists, counts, statistics,
// usage and near-duplicates leave them out. The source of a honeypot, ground truth in such a dataset,
// is then not found by its annotator through the gallery, a name filter, a look for similar images or
// a check of hashes.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import type { RouteAccess } from '../../src/http/plugins/project-access.ts';
import * as members from '../../src/repositories/project-members.repository.ts';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import { putGroundTruth } from '../../src/repositories/quality.repository.ts';
import { setPerceptualHashes } from '../../src/repositories/thumbnails.repository.ts';
import { createKey } from '../../src/services/keys.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, userId } from '../helpers/factories.ts';
import { listeningPort } from '../helpers/raw-http.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { type List, assertProblem } from '../helpers/v2.ts';

const MEMBER_ROLES = { mgr: 'manager', rev: 'reviewer', ann: 'annotator', vwr: 'viewer' } as const;
/** Everybody who must not see a managers-only dataset: a plain member of each lesser role, and one without a role. */
const OTHERS = ['ann', 'rev', 'vwr', 'none'] as const;

/** A route and the places where its access names an image or a dataset (`params.id`, `query.datasetId`, `body.datasetsIds`). */
interface NamingRoute {
  method: string;
  url: string;
  places: { kind: 'image' | 'dataset'; path: string }[];
}

const ids = (list: { id: number }[]) => list.map((i) => i.id).sort((a, b) => a - b);

for (const dialect of dialects) {
  describe(`managers-only datasets on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    const keys = new Map<string, string>();
    const naming: NamingRoute[] = [];
    let projectId: number;
    let truthDataset: number;
    let workDataset: number;
    let truth: { id: number; hash: string };
    const work: number[] = [];
    let honeypot: number;
    let jobId: number;

    const request = (method: string, url: string, key: string, payload?: unknown): Promise<LightMyRequestResponse> =>
      t.request({ method: method as 'GET', url, key, ...(payload === undefined ? {} : { payload: payload as object }) });
    const get = async <T>(url: string, key: string): Promise<T> => {
      const res = await request('GET', url, key);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return json<T>(res);
    };

    before(async () => {
      t = await startTestApp(dialect, {}, {
        onRoute: (route) => {
          const access = (route.config as { access?: RouteAccess } | undefined)?.access;
          if (!access || !('role' in access) || !/^\/v[12]\//.test(route.url)) return;
          const places = access.of.filter(([kind]) => kind === 'image' || kind === 'dataset').map(([kind, path]) => ({ kind: kind as 'image' | 'dataset', path }));
          for (const method of [route.method].flat()) if (method !== 'HEAD' && places.length > 0) naming.push({ method, url: route.url, places });
        },
      });
      const db = t.ctx.db.kysely;
      for (const login of [...Object.keys(MEMBER_ROLES), 'none']) keys.set(login, await createKey(db, { team: 'alpha', user: login }));
      projectId = await newProject(t.ctx, { title: 'honeypots', classes: [{ title: 'car', shape: 'rectangle' }] });
      await members.setDefaultRole(db, projectId, null);
      for (const [login, role] of Object.entries(MEMBER_ROLES)) await members.putMember(db, projectId, await userId(t.ctx, 'alpha', login), role);
      truthDataset = await newDataset(t.ctx, projectId, 'reference', { managersOnly: true });
      workDataset = await newDataset(t.ctx, projectId, 'work');
      const car: AnnotationObject = { classTitle: 'car', description: '', tags: [], bitmap: null, points: { exterior: [[1, 1], [9, 9]], interior: [] } };
      truth = await newImage(t.ctx, truthDataset, { name: 'g1.png', objects: [car] });
      for (let i = 0; i < 3; i++) work.push((await newImage(t.ctx, workDataset, { name: `w${i}.png` })).id);
      // The truth and the first work image look alike; the others look like nothing else.
      await setPerceptualHashes(db, truth.hash, { phash: 'ffff0000ffff0000', dhash: 'ffff0000ffff0000' });
      const rows = await db.selectFrom('images').select(['id', 'hash']).where('id', 'in', work).orderBy('id').execute();
      await setPerceptualHashes(db, rows[0]!.hash, { phash: 'ffff0000ffff0001', dhash: 'ffff0000ffff0001' });
      await setPerceptualHashes(db, rows[1]!.hash, { phash: '0000ffff0000ffff', dhash: '0000ffff0000ffff' });
      await setPerceptualHashes(db, rows[2]!.hash, { phash: '00ff00ff00ff00ff', dhash: '00ff00ff00ff00ff' });
      assert.equal((await request('PUT', `/v2/projects/${projectId}/ground-truth`, keys.get('mgr')!, { imageIds: [truth.id] })).statusCode, 204);
      const made = await request('POST', `/v2/datasets/${workDataset}/jobs`, keys.get('mgr')!, { imagesPerJob: 3, assigneeIds: [await userId(t.ctx, 'alpha', 'ann')], honeypots: 1 });
      assert.equal(made.statusCode, 201, made.body);
      jobId = json<{ items: { id: number }[] }>(made).items[0]!.id;
      honeypot = (await db.selectFrom('honeypots').select('image_id').where('job_id', '=', jobId).executeTakeFirstOrThrow()).image_id;
    });
    after(async () => t?.close());

    test('every route that names an image or a dataset answers 404 to all but managers for one of a managers-only dataset', async () => {
      assert.ok(naming.length >= 30, `${naming.length} routes name an image or a dataset`);
      const failures: string[] = [];
      const ordinary = { image: work[0]!, dataset: workDataset };
      const hidden = { image: truth.id, dataset: truthDataset };
      for (const route of naming) {
        for (const place of route.places) {
          const [where, name] = place.path.split('.', 2) as ['params' | 'query' | 'body', string];
          // The managers-only id at this place; every other place names an ordinary image or dataset.
          const idAt = (p: { kind: 'image' | 'dataset'; path: string }) => (p === place ? hidden : ordinary)[p.kind];
          let url = route.url.replace(/:(\w+)/g, (_m, param: string) => {
            const named = route.places.find((p) => p.path === `params.${param}`);
            return String(named ? idAt(named) : 1);
          });
          if (where === 'query') url += `?${name}=${hidden[place.kind]}`;
          const body = where === 'body' ? { [name]: name.endsWith('Ids') || name.endsWith('sIds') ? [hidden[place.kind]] : hidden[place.kind] } : ['POST', 'PUT', 'PATCH'].includes(route.method) ? {} : undefined;
          for (const login of OTHERS) {
            const res = await request(route.method, url, keys.get(login)!, body);
            if (res.statusCode !== 404) failures.push(`${login} ${route.method} ${url} (${place.path}): ${res.statusCode} ${res.body.slice(0, 120)}`);
          }
        }
      }
      assert.deepEqual(failures, []);
      // The 404 reads as one for an id of nothing.
      const problem = assertProblem(await request('GET', `/v2/images/${truth.id}`, keys.get('ann')!), 404, 'NOT_FOUND');
      const nothing = assertProblem(await request('GET', `/v2/images/2000000000`, keys.get('ann')!), 404, 'NOT_FOUND');
      assert.deepEqual([problem.title, problem.detail], [nothing.title, nothing.detail]);
      const v1 = await request('GET', `/v1/images/tags?imageId=${truth.id}`, keys.get('vwr')!);
      assert.equal(v1.statusCode, 404, v1.body);
      // A manager's read key acts as a viewer: it does not see them either.
      const readKey = await createKey(t.ctx.db.kysely, { team: 'alpha', user: 'mgr', scope: 'read' });
      assertProblem(await request('GET', `/v2/images/${truth.id}`, readKey), 404, 'NOT_FOUND');
      assertProblem(await request('GET', `/v2/datasets/${truthDataset}`, readKey), 404, 'NOT_FOUND');
    });

    test('a manager reads them as any image and dataset', async () => {
      const mgr = keys.get('mgr')!;
      for (const url of [
        `/v2/images/${truth.id}`,
        `/v2/images/${truth.id}/annotation`,
        `/v2/images/${truth.id}/annotation/revisions`,
        `/v2/images/${truth.id}/file`,
        `/v2/images/overlays?ids=${truth.id}`,
        `/v2/datasets/${truthDataset}`,
        `/v2/images?datasetId=${truthDataset}`,
        `/v1/images/tags?imageId=${truth.id}`,
      ]) {
        const res = await request('GET', url, mgr);
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      }
      assert.equal((await get<{ managersOnly: boolean }>(`/v2/datasets/${truthDataset}`, mgr)).managersOnly, true);
      assert.equal((await get<{ managersOnly: boolean }>(`/v2/datasets/${workDataset}`, keys.get('ann')!)).managersOnly, false);
    });

    test('lists, counts, statistics, usage and near-duplicates leave them out for all but managers, by v1 and v2', async () => {
      const car = (await get<List<{ id: number }>>(`/v2/projects/${projectId}/classes`, keys.get('mgr')!)).items[0]!;
      // An image tag on the truth and on an ordinary image.
      const tagged = await request('POST', `/v2/projects/${projectId}/tags`, keys.get('mgr')!, { title: 'blurry', scope: 'images' });
      assert.equal(tagged.statusCode, 201, tagged.body);
      const tagId = json<{ id: number }>(tagged).id;
      for (const id of [truth.id, work[1]!]) {
        const put = await request('PUT', `/v2/images/${id}/annotation`, keys.get('mgr')!, { ...(await get<Record<string, unknown>>(`/v2/images/${id}/annotation`, keys.get('mgr')!)), tags: ['blurry'] });
        assert.equal(put.statusCode, 200, put.body);
      }
      // A model's prediction on the truth (a car far from its car) and on an ordinary image.
      for (const id of [truth.id, work[2]!]) {
        const put = await request('PUT', `/v2/images/${id}/predictions`, keys.get('mgr')!, { model: 'm', objects: [{ classTitle: 'car', points: { exterior: [[20, 20], [30, 30]] }, score: 0.9 }] });
        assert.equal(put.statusCode, 200, put.body);
      }
      for (const login of ['mgr', ...OTHERS]) {
        const key = keys.get(login)!;
        const manager = login === 'mgr';
        const label = (what: string) => `${login}: ${what}`;
        if (login === 'none') {
          // No role in the project: it is not theirs at all.
          assert.equal((await request('GET', `/v2/images?projectId=${projectId}`, key)).statusCode, 403);
          const teamDatasets = await get<List<{ id: number }>>('/v2/datasets?limit=1000', key);
          assert.ok(!teamDatasets.items.some((d) => d.id === truthDataset), label('team datasets'));
          continue;
        }
        const datasets = manager ? [truthDataset, workDataset] : [workDataset];
        const images = manager ? [truth.id, ...work] : work;
        assert.deepEqual(ids((await get<List<{ id: number }>>(`/v2/datasets?projectId=${projectId}&counts=true`, key)).items), datasets, label('v2 datasets'));
        assert.equal((await get<List<unknown> & { total: number }>(`/v2/datasets?projectId=${projectId}&count=true`, key)).total, datasets.length, label('v2 dataset total'));
        assert.ok(ids((await get<List<{ id: number }>>('/v2/datasets?limit=1000', key)).items).includes(truthDataset) === manager, label('team datasets'));
        assert.deepEqual(ids(await get<{ id: number }[]>(`/v1/datasets?projectId=${projectId}`, key)), datasets, label('v1 datasets'));
        assert.ok(ids(await get<{ id: number }[]>('/v1/datasets', key)).includes(truthDataset) === manager, label('v1 team datasets'));
        const gallery = await get<List<{ id: number }> & { total: number }>(`/v2/images?projectId=${projectId}&count=true`, key);
        assert.deepEqual([ids(gallery.items), gallery.total], [images, images.length], label('gallery'));
        const byClass = await get<List<{ id: number }> & { total: number }>(`/v2/images?projectId=${projectId}&classAny=${car.id}&count=true`, key);
        assert.deepEqual([ids(byClass.items), byClass.total], manager ? [[truth.id], 1] : [[], 0], label('gallery by class'));
        // The last image of the gallery by position: a manager's list is one longer.
        const last = await get<List<{ id: number }>>(`/v2/images?projectId=${projectId}&offset=${images.length - 1}&limit=5`, key);
        assert.deepEqual(last.items.map((i) => i.id), [images.at(-1)], label('gallery by offset'));
        if (!manager) assertProblem(await request('GET', `/v2/images?projectId=${projectId}&datasetIds=${truthDataset}`, key), 404, 'NOT_FOUND');
        const stats = await get<{ images: number; datasets: { datasetId: number }[] }>(`/v2/projects/${projectId}/stats`, key);
        assert.deepEqual([stats.images, stats.datasets.map((d) => d.datasetId)], [images.length, datasets], label('statistics'));
        const project = (await get<List<{ id: number; counts: { datasets: number; images: number; objects: number } }>>('/v2/projects?counts=true', key)).items.find((p) => p.id === projectId)!;
        assert.deepEqual(project.counts, { datasets: datasets.length, images: images.length, objects: manager ? 1 : 0 }, label('project counts'));
        const sizes = await t.ctx.db.kysely.selectFrom('images').select('size').where('id', 'in', images).execute();
        const bytes = sizes.reduce((n, r) => n + Number(r.size), 0);
        assert.equal((await get<{ size: number }>(`/v2/projects/${projectId}`, key)).size, bytes, label('project size'));
        assert.equal((project as unknown as { size: number }).size, bytes, label('listed project size'));
        assert.equal(Number((await get<{ id: number; size: string }[]>(`/v1/projects?projectId=${projectId}`, key)).find((p) => p.id === projectId)?.size), bytes, label('v1 project size'));
        assert.equal((await get<unknown[]>(`/v1/annotations?projectId=${projectId}&perPage=100`, key)).length, images.length, label('v1 annotations'));
        assert.deepEqual(await get<{ objects: number; images: number }>(`/v2/classes/${car.id}/usage`, key), { classId: car.id, objects: manager ? 1 : 0, images: manager ? 1 : 0 }, label('class usage'));
        assert.deepEqual(await get<{ images: number }>(`/v2/tags/${tagId}/usage`, key), { images: manager ? 2 : 1 }, label('tag usage'));
        const evaluation = await get<{ worstImages: { imageId: number }[] }>(`/v2/projects/${projectId}/evaluation?model=m`, key);
        assert.equal(evaluation.worstImages.some((i) => i.imageId === truth.id), manager, label('evaluation'));
        assert.ok(evaluation.worstImages.some((i) => i.imageId === work[2]), label('evaluation of the ordinary image'));
        const models = await get<{ items: { model: string; images: number }[] }>(`/v2/projects/${projectId}/predictions/models`, key);
        assert.deepEqual(models.items.map((m) => [m.model, m.images]), [['m', manager ? 2 : 1]], label('prediction models'));
        const report = await get<{ images: number; groups: { images: { id: number }[] }[] }>(`/v2/projects/${projectId}/near-duplicates`, key);
        assert.equal(report.images, images.length, label('near-duplicates images'));
        assert.equal(report.groups.some((g) => g.images.some((i) => i.id === truth.id)), manager, label('near-duplicate groups'));
      }
    });

    test('the annotator of a honeypot does not find its source by gallery, name filter, similar images or hash check', async () => {
      const ann = keys.get('ann')!;
      const copy = await get<{ name: string; hash: string }>(`/v2/images/${honeypot}`, ann);
      assert.deepEqual([copy.name, copy.hash], ['g1.png', truth.hash]);
      // What still tells it apart: its id, newer than every image of the job when the job was made.
      const jobImages = (await get<List<{ imageId: number }>>(`/v2/jobs/${jobId}/images`, ann)).items.map((i) => i.imageId);
      assert.deepEqual(jobImages.filter((id) => id !== honeypot).sort((a, b) => a - b), work);
      assert.ok(work.every((id) => id < honeypot));
      for (const filter of ['namePrefix=g1', 'nameContains=g1.png', `nameContains=G1`]) {
        assert.deepEqual((await get<List<unknown>>(`/v2/images?projectId=${projectId}&${filter}`, ann)).items, [], filter);
      }
      const similar = (id: number, key: string) => get<{ items: { id: number }[] }>(`/v2/images/${id}/similar?distance=4`, key).then((s) => s.items.map((i) => i.id));
      assert.deepEqual(await similar(honeypot, ann), [work[0]]);
      assert.deepEqual(await similar(work[0]!, ann), []);
      assert.deepEqual(await similar(work[0]!, keys.get('mgr')!), [truth.id], 'a manager finds it');
      // A hash check answers which bytes the server lacks, never an image id: the honeypot's bytes are there anyway.
      const v2 = await request('POST', '/v2/imports/hash-check', ann, { hashes: [truth.hash] });
      assert.equal(v2.statusCode, 200, v2.body);
      assert.deepEqual(json(v2), { missing: [] });
      const v1 = await request('POST', '/v1/tasks/import/check-images', ann, [truth.hash]);
      assert.equal(v1.statusCode, 200, v1.body);
      assert.deepEqual(json(v1), []);
      assertProblem(await request('GET', `/v2/images/${truth.id}/annotation`, ann), 404, 'NOT_FOUND');
    });

    test('managers make a dataset managers-only or ordinary (PATCH, POST); others get 403, or 404 for one they cannot see', async () => {
      const mgr = keys.get('mgr')!;
      const ann = keys.get('ann')!;
      assertProblem(await request('PATCH', `/v2/datasets/${workDataset}`, ann, { managersOnly: true }), 403, 'PROJECT_ROLE_REQUIRED');
      assertProblem(await request('PATCH', `/v2/datasets/${truthDataset}`, ann, { managersOnly: false }), 404, 'NOT_FOUND');
      assertProblem(await request('POST', `/v2/projects/${projectId}/datasets`, ann, { title: 'x', managersOnly: true }), 403, 'PROJECT_ROLE_REQUIRED');
      assertProblem(await request('PATCH', `/v2/datasets/${workDataset}`, mgr, {}), 400, 'VALIDATION');
      // Images in a job would vanish from their assignee's sight; ground truth would come into everybody's.
      const inJob = assertProblem(await request('PATCH', `/v2/datasets/${workDataset}`, mgr, { managersOnly: true }), 409, 'CONFLICT');
      assert.deepEqual((inJob as unknown as { imageIds: number[] }).imageIds, work);
      const withTruth = assertProblem(await request('PATCH', `/v2/datasets/${truthDataset}`, mgr, { managersOnly: false }), 409, 'CONFLICT');
      assert.deepEqual((withTruth as unknown as { imageIds: number[] }).imageIds, [truth.id]);
      // Ground truth moves or copies into no ordinary dataset; an image in a job moves into no managers-only one.
      assertProblem(await request('PATCH', `/v2/images/${truth.id}`, mgr, { datasetId: workDataset }), 409, 'CONFLICT');
      assertProblem(await request('POST', `/v2/images/${truth.id}/copy`, mgr, { datasetId: workDataset }), 409, 'CONFLICT');
      assertProblem(await request('PATCH', `/v2/images/${work[0]}`, mgr, { datasetId: truthDataset }), 409, 'CONFLICT');
      const copied = await request('POST', `/v2/images/${work[0]}/copy`, mgr, { datasetId: truthDataset });
      assert.equal(copied.statusCode, 201, copied.body);
      assert.equal(json<{ datasetId: number }>(copied).datasetId, truthDataset);
      // A new managers-only dataset: no job splits it, and annotators do not see it.
      const created = await request('POST', `/v2/projects/${projectId}/datasets`, mgr, { title: 'more truth', managersOnly: true });
      assert.equal(created.statusCode, 201, created.body);
      const more = json<{ id: number; managersOnly: boolean }>(created);
      assert.equal(more.managersOnly, true);
      const extra = await newImage(t.ctx, more.id, { name: 'g2.png' });
      assertProblem(await request('GET', `/v2/datasets/${more.id}`, ann), 404, 'NOT_FOUND');
      const split = assertProblem(await request('POST', `/v2/datasets/${more.id}/jobs`, mgr, { imagesPerJob: 1, assigneeIds: [await userId(t.ctx, 'alpha', 'ann')] }), 400, 'VALIDATION');
      assert.match(split.detail, /managers-only/);
      const filtered = assertProblem(await request('POST', `/v2/projects/${projectId}/jobs`, mgr, { title: 'g', assigneeId: await userId(t.ctx, 'alpha', 'ann'), filter: { namePrefix: 'g2' } }), 400, 'VALIDATION');
      assert.deepEqual((filtered as unknown as { imageIds: number[] }).imageIds, [extra.id]);
      // Made ordinary, it is everybody's again: its id is answered and its image listed.
      const changed = await request('PATCH', `/v2/datasets/${more.id}`, mgr, { managersOnly: false, title: 'no longer truth' });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.deepEqual([json<{ managersOnly: boolean; title: string }>(changed).managersOnly, json<{ title: string }>(changed).title], [false, 'no longer truth']);
      assert.equal((await get<{ id: number }>(`/v2/images/${extra.id}`, ann)).id, extra.id);
      assert.ok(ids((await get<List<{ id: number }>>(`/v2/images?projectId=${projectId}&limit=100`, ann)).items).includes(extra.id));
      // Ground truth outside a managers-only dataset is refused, naming the image.
      const refused = assertProblem(await request('PUT', `/v2/projects/${projectId}/ground-truth`, mgr, { imageIds: [extra.id] }), 400, 'VALIDATION');
      assert.deepEqual((refused as unknown as { imageIds: number[] }).imageIds, [extra.id]);
      // Ground truth marked before the rule, in an ordinary dataset, is not drawn for honeypots.
      await putGroundTruth(t.ctx.db.kysely, projectId, [extra.id], null);
      const legacy = assertProblem(await request('POST', `/v2/datasets/${more.id}/jobs`, mgr, { imagesPerJob: 1, assigneeIds: [await userId(t.ctx, 'alpha', 'ann')], honeypots: 2 }), 400, 'VALIDATION');
      assert.equal((legacy as unknown as { groundTruth: number }).groundTruth, 1, 'the one in the managers-only dataset');
    });

    test('a task names a managers-only dataset it writes into to managers only: v1 and v2 lists, one task, its events and the team’s stream', async () => {
      const db = t.ctx.db.kysely;
      const teamId = (await db.selectFrom('teams').select('id').where('name', '=', 'alpha').executeTakeFirstOrThrow()).id;
      // As an import into both datasets names them (import.service.ts targetDataset).
      const meta = { project: { id: projectId, isNew: false, title: 'honeypots' }, datasets: [{ id: truthDataset, isNew: false, title: 'reference' }, { id: workDataset, isNew: false, title: 'work' }] };
      const newTask = () => tasks.createTask(db, { teamId, userId: null, type: 'import', size: 0, meta, input: {}, projectId });
      const ended = await newTask();
      await db.updateTable('tasks').set({ status: 'started', lease_owner: 'w', lease_expires_at: '2999-01-01T00:00:00.000Z', started_at: new Date().toISOString() }).where('id', '=', ended).execute();
      assert.equal(await tasks.finishTask(db, { id: ended, owner: 'w', status: 'finished', meta: { ...meta, imported: 2 } }), true);
      const queued = await newTask();
      const port = await listeningPort(t.app);
      type Named = { id: number; meta: { datasets: { id: number; title: string }[] } };
      const named = (task: Named | undefined) => task?.meta.datasets.map((d) => d.title);
      let changes = 0;
      /**
       * The task as the team's stream sends it, read over a real connection: in its first event (the
       * snapshot), then in a `task` event once it has changed.
       */
      const streamed = (key: string, id: number) =>
        new Promise<{ snapshot: Named | undefined; changed: Named }>((resolve, reject) => {
          const req = http.get({ host: '127.0.0.1', port, path: '/v2/tasks/events', headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' }, agent: false });
          req.once('error', reject).once('response', (res) => {
            let text = '';
            let snapshot: { task: Named | undefined } | undefined;
            res.setEncoding('utf8');
            res.on('error', () => undefined);
            res.on('data', (chunk: string) => {
              text += chunk;
              if (!snapshot) {
                const data = /event: snapshot\nid: [^\n]*\ndata: ([^\n]*)\n\n/.exec(text)?.[1];
                if (data === undefined) return;
                snapshot = { task: (JSON.parse(data) as { tasks: Named[] }).tasks.find((task) => task.id === id) };
                changes += 1;
                db.updateTable('tasks').set({ meta: JSON.stringify({ ...meta, progress: { done: changes, total: 100 } }) }).where('id', '=', id).execute().catch(reject);
              }
              const changed = [...text.matchAll(/event: task\nid: [^\n]*\ndata: ([^\n]*)\n\n/g)].map((m) => JSON.parse(m[1]!) as Named).find((task) => task.id === id);
              if (!changed) return;
              req.destroy();
              resolve({ snapshot: snapshot.task, changed });
            });
          });
        });
      for (const login of ['mgr', 'ann', 'rev', 'vwr']) {
        const key = keys.get(login)!;
        const expected = login === 'mgr' ? ['reference', 'work'] : ['work'];
        const page = await get<List<Named>>(`/v2/tasks?projectId=${projectId}&limit=100`, key);
        assert.deepEqual(named(page.items.find((task) => task.id === ended)), expected, `${login}: GET /v2/tasks`);
        assert.deepEqual(named(await get<Named>(`/v2/tasks/${ended}`, key)), expected, `${login}: GET /v2/tasks/:id`);
        assert.deepEqual(named((await get<Named[]>(`/v1/tasks?id=${ended}`, key))[0]), expected, `${login}: GET /v1/tasks`);
        const events = await request('GET', `/v2/tasks/${ended}/events`, key);
        const final = /event: final\nid: [^\n]*\ndata: ([^\n]*)/.exec(events.body)?.[1];
        assert.ok(final, `${login}: ${events.body}`);
        assert.deepEqual(named(JSON.parse(final) as Named), expected, `${login}: GET /v2/tasks/:id/events`);
        const { snapshot, changed } = await streamed(key, queued);
        assert.deepEqual(named(snapshot), expected, `${login}: GET /v2/tasks/events, its snapshot`);
        assert.deepEqual(named(changed), expected, `${login}: GET /v2/tasks/events, a task event`);
      }
      // Without a role in the project, its tasks are not listed at all.
      assert.deepEqual(await get<Named[]>(`/v1/tasks?id=${ended}`, keys.get('none')!), []);
    });

    test('a member whose project role is manager by the project’s role for members sees its managers-only datasets in the team lists', async () => {
      const open = await newProject(t.ctx, { title: 'open' });
      await members.setDefaultRole(t.ctx.db.kysely, open, 'manager');
      const hidden = await newDataset(t.ctx, open, 'truth', { managersOnly: true });
      const seen = (key: string) => get<List<{ id: number }>>('/v2/datasets?limit=1000', key).then((page) => page.items.some((d) => d.id === hidden));
      assert.equal(await seen(keys.get('none')!), true, 'no member row: manager by the project’s role');
      await members.putMember(t.ctx.db.kysely, open, await userId(t.ctx, 'alpha', 'none'), 'annotator');
      assert.equal(await seen(keys.get('none')!), false, 'an annotator row of their own');
      // A read key acts as a viewer at most.
      assert.equal(await seen(t.readOnlyKey), false);
      assert.equal(await seen(t.key), true, 'a team owner');
    });
  });
}
