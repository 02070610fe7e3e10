// Jobs and review under /v2 on both databases (docs/jobs.md): a dataset split into jobs and a job made
// from a gallery filter, the annotator's queue, the lock on annotation writes while a job is open,
// review with issues and their threads, the figures per job and per assignee, a webhook event and an
// audit row for each transition, and who may do what.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AddressInfo } from 'node:net';
import { AnnostoreClient } from '../../src/client/index.ts';
import { loadConfig } from '../../src/config.ts';
import { createKey } from '../../src/services/keys.service.ts';
import { IDLE_CAP_MS } from '../../src/services/jobs.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon, userId } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { type List, assertProblem } from '../helpers/v2.ts';

interface Progress {
  images: number;
  new: number;
  inProgress: number;
  submitted: number;
  accepted: number;
  rejected: number;
  acceptedFirstReview: number;
  timeSpentMs: number;
  objectsMade: number;
}
interface Job {
  id: number;
  projectId: number;
  title: string;
  stage: string;
  assignee: { id: number; login: string };
  reviewer: { id: number; login: string } | null;
  progress: Progress;
}
interface JobImage {
  imageId: number;
  position: number;
  state: string;
  rejections: number;
  timeSpentMs: number;
}
interface Issue {
  id: number;
  x: number | null;
  y: number | null;
  objectId: number | null;
  status: string;
  comments: { userId: number; body: string }[];
}

const box = (x: number): ReturnType<typeof polygon> => polygon('car', [[x, 0], [x + 4, 0], [x + 4, 4], [x, 4]]);

for (const dialect of dialects) {
  describe(`jobs and review on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let projectId: number;
    let datasetId: number;
    let otherDatasetId: number;
    const images: number[] = [];
    const others: number[] = [];
    let ann1: string;
    let ann2: string;
    let rev: string;
    const ids = { ann1: 0, ann2: 0, rev: 0 };
    let jobs: Job[] = [];

    before(async () => {
      t = await startTestApp(dialect, { webhooks: { ...loadConfig({}).webhooks, allowPrivate: true } });
      const db = t.ctx.db.kysely;
      ann1 = await createKey(db, { team: 'alpha', user: 'ann1' });
      ann2 = await createKey(db, { team: 'alpha', user: 'ann2' });
      rev = await createKey(db, { team: 'alpha', user: 'rev' });
      for (const login of ['ann1', 'ann2', 'rev'] as const) ids[login] = await userId(t.ctx, 'alpha', login);
      projectId = await newProject(t.ctx, { title: 'streets', classes: [{ title: 'car', shape: 'polygon' }] });
      datasetId = await newDataset(t.ctx, projectId, 'batch');
      otherDatasetId = await newDataset(t.ctx, projectId, 'extra');
      for (let i = 0; i < 6; i++) images.push((await newImage(t.ctx, datasetId, { name: `b${i}.png` })).id);
      for (let i = 0; i < 3; i++) others.push((await newImage(t.ctx, otherDatasetId, { name: i < 2 ? `night-${i}.png` : `day-${i}.png` })).id);
      // A webhook that hears of every job event; no worker delivers it here, its deliveries are read.
      const hook = await t.request({
        method: 'POST',
        url: '/v2/webhooks',
        key: t.adminKey,
        payload: { url: 'http://127.0.0.1:9/', events: ['job.created', 'job.deleted', 'job.stage_changed', 'job.image_changed', 'job.issue_opened', 'job.issue_resolved', 'job.comment_added'] },
      });
      assert.equal(hook.statusCode, 201, hook.body);
    });
    after(async () => t?.close());

    const post = (url: string, key: string, payload?: Record<string, unknown>) => t.request({ method: 'POST', url, key, ...(payload === undefined ? {} : { payload }) });
    const get = async <T>(url: string, key = t.key): Promise<T> => {
      const res = await t.request({ method: 'GET', url, key });
      assert.equal(res.statusCode, 200, res.body);
      return json<T>(res);
    };
    const save = (imageId: number, key: string, x = 1) => t.request({ method: 'PUT', url: `/v2/images/${imageId}/annotation`, key, payload: { objects: [box(x)] } });
    const events = async (type: string): Promise<Record<string, unknown>[]> => {
      const rows = await t.ctx.db.kysely.selectFrom('webhook_deliveries').select('payload').where('event_type', '=', type).orderBy('id').execute();
      return rows.map((r) => (JSON.parse(r.payload) as { data: Record<string, unknown> }).data);
    };
    const job = (i: number) => jobs[i]!;

    test('a dataset is split into jobs of K images, one per assignee, by a manager only', async () => {
      const body = { imagesPerJob: 3, assigneeIds: [ids.ann1, ids.ann2], reviewerId: ids.rev };
      assertProblem(await post(`/v2/datasets/${datasetId}/jobs`, ann1, body), 403, 'PROJECT_ROLE_REQUIRED');
      assertProblem(await post(`/v2/datasets/${datasetId}/jobs`, t.otherKey, body), 404, 'NOT_FOUND');
      assertProblem(await post(`/v2/datasets/${datasetId}/jobs`, t.adminKey, { ...body, reviewerId: 2_000_000 }), 404, 'NOT_FOUND');
      const res = await post(`/v2/datasets/${datasetId}/jobs`, t.adminKey, body);
      assert.equal(res.statusCode, 201, res.body);
      jobs = json<{ items: Job[] }>(res).items;
      assert.deepEqual(
        jobs.map((j) => [j.title, j.stage, j.assignee.login, j.reviewer?.login, j.progress.images, j.progress.new]),
        [
          ['batch 1/2', 'annotate', 'ann1', 'rev', 3, 3],
          ['batch 2/2', 'annotate', 'ann2', 'rev', 3, 3],
        ],
      );
      // Giving a job gave its people the roles their work needs in the project (viewers before).
      const members = await get<{ items: { login: string; role: string }[] }>(`/v2/projects/${projectId}/members`, t.adminKey);
      assert.deepEqual(members.items.map((m) => [m.login, m.role]), [['ann1', 'annotator'], ['ann2', 'annotator'], ['rev', 'reviewer']]);
      const first = await get<List<JobImage>>(`/v2/jobs/${job(0).id}/images?limit=2`);
      const rest = await get<List<JobImage>>(`/v2/jobs/${job(0).id}/images?cursor=${first.nextCursor}`);
      assert.deepEqual([...first.items, ...rest.items].map((i) => [i.imageId, i.position, i.state]), [[images[0], 0, 'new'], [images[1], 1, 'new'], [images[2], 2, 'new']]);
      assert.equal(rest.nextCursor, null);
      // An image is in one job at most: the dataset has no free image left.
      assertProblem(await post(`/v2/datasets/${datasetId}/jobs`, t.adminKey, body), 400, 'VALIDATION');
      assert.deepEqual((await events('job.created')).map((e) => [e.jobId, e.projectId, e.images]), jobs.map((j) => [j.id, projectId, 3]));
    });

    test('a job is made from a gallery filter: the images GET /v2/images finds that are in no job yet', async () => {
      const res = await post(`/v2/projects/${projectId}/jobs`, t.adminKey, { title: 'nights', assigneeId: ids.ann1, filter: { namePrefix: 'night-' } });
      assert.equal(res.statusCode, 201, res.body);
      const made = json<Job>(res);
      assert.equal(res.headers.location, `/v2/jobs/${made.id}`);
      assert.deepEqual([made.title, made.reviewer, made.progress.images], ['nights', null, 2]);
      assert.deepEqual((await get<List<JobImage>>(`/v2/jobs/${made.id}/images`)).items.map((i) => i.imageId), others.slice(0, 2));
      assertProblem(await post(`/v2/projects/${projectId}/jobs`, t.adminKey, { title: 'x', assigneeId: ids.ann1, filter: { namePrefix: 'night-' } }), 400, 'VALIDATION');
      assertProblem(await post(`/v2/projects/${projectId}/jobs`, t.adminKey, { title: 'x', assigneeId: ids.ann1, filter: { datasetId: 2_000_000 } }), 404, 'NOT_FOUND');
      assertProblem(await post(`/v2/projects/${projectId}/jobs`, ann1, { title: 'x', assigneeId: ids.ann1, filter: {} }), 403, 'PROJECT_ROLE_REQUIRED');
      assertProblem(await post(`/v2/projects/${projectId}/jobs`, t.otherKey, { title: 'x', assigneeId: ids.ann1, filter: {} }), 404, 'NOT_FOUND');
      const list = await get<List<Job>>(`/v2/projects/${projectId}/jobs`);
      assert.deepEqual(list.items.map((j) => j.title), ['batch 1/2', 'batch 2/2', 'nights']);
      const del = await t.request({ method: 'DELETE', url: `/v2/jobs/${made.id}`, key: ann1 });
      assertProblem(del, 403, 'PROJECT_ROLE_REQUIRED');
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/jobs/${made.id}`, key: t.adminKey })).statusCode, 204);
      assert.deepEqual((await events('job.deleted')).map((e) => e.jobId), [made.id]);
      assertProblem(await t.request({ method: 'GET', url: `/v2/jobs/${made.id}` }), 404, 'NOT_FOUND');
    });

    test('My work lists the jobs the caller is the assignee or reviewer of', async () => {
      assert.deepEqual((await get<List<Job>>('/v2/jobs/mine', ann1)).items.map((j) => j.id), [job(0).id]);
      assert.deepEqual((await get<List<Job>>('/v2/jobs/mine', rev)).items.map((j) => j.id), [job(0).id, job(1).id]);
      assert.deepEqual((await get<List<Job>>('/v2/jobs/mine', t.otherKey)).items, []);
      assertProblem(await t.request({ method: 'GET', url: `/v2/jobs/${job(0).id}`, key: t.otherKey }), 404, 'NOT_FOUND');
    });

    test('in the annotate stage only the assignee and managers change the images’ annotations; other images are free', async () => {
      const image = images[0]!;
      const refused = assertProblem(await save(image, ann2), 403, 'FORBIDDEN');
      assert.match(refused.detail, /assignee/);
      assertProblem(await save(image, rev), 403, 'FORBIDDEN');
      assertProblem(await t.request({ method: 'PATCH', url: `/v2/images/${image}/annotation`, key: ann2, payload: { add: [box(20)] } }), 403, 'FORBIDDEN');
      assert.equal((await save(image, t.adminKey)).statusCode, 200, 'a manager may');
      const [revision] = json<List<{ id: number }>>(await t.request({ method: 'GET', url: `/v2/images/${image}/annotation/revisions` })).items;
      assertProblem(await post(`/v2/images/${image}/annotation/revisions/${revision!.id}/restore`, ann2), 403, 'FORBIDDEN');
      assert.equal((await save(image, ann1)).statusCode, 200);
      assert.equal((await save(others[2]!, ann2)).statusCode, 200, 'an image in no job');
      // v1 writes objects by import only: into a project with open jobs, a member's import is refused.
      const files = [{ path: 'batch/img/x.png', hash: 'x' }];
      const v1 = await t.request({ method: 'POST', url: '/v1/tasks/import', key: ann1, payload: { project: { id: projectId }, preset: 0, files } });
      assert.equal(v1.statusCode, 403, v1.body);
      const v2 = await t.request({ method: 'POST', url: '/v2/imports', key: ann1, payload: { project: { id: projectId }, preset: 0, files } });
      assertProblem(v2, 403, 'PROJECT_ROLE_REQUIRED');
      const manager = await t.request({ method: 'POST', url: '/v1/tasks/import', key: t.adminKey, payload: { project: { id: projectId }, preset: 0, files } });
      assert.notEqual(manager.statusCode, 403, manager.body);
    });

    test('the annotator’s queue: next, open, save and submit; time spent from opens and saves, up to the idle cap', async () => {
      const j = job(0).id;
      const next = await get<{ queue: string; image: JobImage; remaining: number }>(`/v2/jobs/${j}/next`, ann1);
      assert.deepEqual([next.queue, next.image.imageId, next.image.state, next.remaining], ['annotate', images[0], 'in_progress', 3], 'the save made it in progress');
      assert.equal((await get<{ image: JobImage }>(`/v2/jobs/${j}/next?after=${images[0]}`, ann1)).image.imageId, images[1]);
      assertProblem(await post(`/v2/jobs/${j}/images/${images[1]}/open`, ann2), 403, 'FORBIDDEN');
      const opened = await post(`/v2/jobs/${j}/images/${images[1]}/open`, ann1);
      assert.equal(opened.statusCode, 200, opened.body);
      assert.equal(json<JobImage>(opened).state, 'in_progress');
      // Ten seconds between the open and a save count; a gap past the idle cap does not.
      const db = t.ctx.db.kysely;
      const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
      await db.updateTable('job_images').set({ last_active_at: ago(10_000) }).where('image_id', '=', images[1]!).execute();
      assert.equal((await save(images[1]!, ann1, 5)).statusCode, 200);
      await db.updateTable('job_images').set({ last_active_at: ago(IDLE_CAP_MS + 60_000) }).where('image_id', '=', images[1]!).execute();
      assert.equal((await save(images[1]!, ann1, 6)).statusCode, 200);
      const spent = (await get<List<JobImage>>(`/v2/jobs/${j}/images`)).items[1]!.timeSpentMs;
      assert.ok(spent >= 10_000 && spent < 20_000, String(spent));

      assertProblem(await post(`/v2/jobs/${j}/images/${images[0]}/submit`, ann2), 403, 'FORBIDDEN');
      const submitted = await post(`/v2/jobs/${j}/images/${images[0]}/submit`, ann1);
      assert.equal(json<JobImage>(submitted).state, 'submitted');
      assertProblem(await post(`/v2/jobs/${j}/images/${images[0]}/submit`, ann1), 409, 'CONFLICT');
      assert.deepEqual(
        (await events('job.image_changed')).filter((e) => e.imageId === images[0]).map((e) => [e.from, e.to]),
        [['new', 'in_progress'], ['in_progress', 'submitted']],
      );
    });

    test('review: the reviewer accepts or rejects submitted images; a rejection pins issues to a point or an object', async () => {
      const j = job(0).id;
      const queue = await get<{ queue: string; image: JobImage; remaining: number }>(`/v2/jobs/${j}/next`, rev);
      assert.deepEqual([queue.queue, queue.image.imageId, queue.remaining], ['review', images[0], 1]);
      assertProblem(await post(`/v2/jobs/${j}/images/${images[0]}/accept`, ann1), 403, 'PROJECT_ROLE_REQUIRED');
      assertProblem(await post(`/v2/jobs/${j}/images/${images[1]}/accept`, rev), 409, 'CONFLICT');
      assertProblem(await post(`/v2/jobs/${j}/images/${images[0]}/reject`, rev, { issues: [] }), 400, 'VALIDATION');
      assertProblem(await post(`/v2/jobs/${j}/images/${images[0]}/reject`, rev, { issues: Array.from({ length: 51 }, () => ({ x: 1, y: 1, comment: 'many' })) }), 400, 'VALIDATION');
      assertProblem(await post(`/v2/jobs/${j}/images/${images[0]}/reject`, rev, { issues: [{ x: 1, y: 2, objectId: 1, comment: 'both' }] }), 400, 'VALIDATION');
      assertProblem(await post(`/v2/jobs/${j}/images/${images[0]}/reject`, rev, { issues: [{ x: 1, comment: 'no y' }] }), 400, 'VALIDATION');
      const rejected = await post(`/v2/jobs/${j}/images/${images[0]}/reject`, rev, {
        issues: [
          { x: 10, y: 20, comment: 'a car is missed here' },
          { objectId: 1, comment: 'too loose' },
        ],
      });
      assert.equal(rejected.statusCode, 200, rejected.body);
      assert.deepEqual([json<JobImage>(rejected).state, json<JobImage>(rejected).rejections], ['rejected', 1]);
      const issues = (await get<{ items: Issue[] }>(`/v2/jobs/${j}/images/${images[0]}/issues`, ann1)).items;
      assert.deepEqual(
        issues.map((i) => [i.x, i.y, i.objectId, i.status, i.comments.map((c) => c.body)]),
        [
          [10, 20, null, 'open', ['a car is missed here']],
          [null, null, 1, 'open', ['too loose']],
        ],
      );
      // The rejected image is back in the annotator's queue, and is not submitted again while an issue is open.
      assert.equal((await get<{ image: JobImage }>(`/v2/jobs/${j}/next`, ann1)).image.imageId, images[0]);
      const open = assertProblem(await post(`/v2/jobs/${j}/images/${images[0]}/submit`, ann1), 409, 'CONFLICT');
      assert.match(open.detail, /2 open issue/);

      // Threads: the assignee, the reviewer and managers comment; others may not.
      const issue = issues[0]!.id;
      assertProblem(await post(`/v2/issues/${issue}/comments`, ann2, { body: 'me too' }), 403, 'FORBIDDEN');
      assertProblem(await post(`/v2/issues/${issue}/comments`, t.otherKey, { body: 'me too' }), 404, 'NOT_FOUND');
      assert.equal((await post(`/v2/issues/${issue}/comments`, ann1, { body: 'which car?' })).statusCode, 201);
      assert.equal((await post(`/v2/issues/${issue}/comments`, rev, { body: 'the red one' })).statusCode, 201);
      assertProblem(await post(`/v2/issues/${issue}/resolve`, rev, {}), 403, 'FORBIDDEN');
      assert.equal((await save(images[0]!, ann1, 30)).statusCode, 200);
      for (const i of issues) assert.equal((await post(`/v2/issues/${i.id}/resolve`, ann1, { comment: 'fixed' })).statusCode, 200);
      assertProblem(await post(`/v2/issues/${issue}/resolve`, ann1, {}), 409, 'CONFLICT');
      const after = (await get<{ items: Issue[] }>(`/v2/jobs/${j}/images/${images[0]}/issues`, rev)).items;
      assert.deepEqual(after[0]!.comments.map((c) => c.body), ['a car is missed here', 'which car?', 'the red one', 'fixed']);
      assert.deepEqual(after.map((i) => i.status), ['resolved', 'resolved']);
      assert.equal(json<JobImage>(await post(`/v2/jobs/${j}/images/${images[0]}/submit`, ann1)).state, 'submitted');
      assert.equal(json<JobImage>(await post(`/v2/jobs/${j}/images/${images[0]}/accept`, rev)).state, 'accepted');
      assert.equal((await events('job.issue_opened')).length, 2);
      assert.equal((await events('job.issue_resolved')).length, 2);
      assert.equal((await events('job.comment_added')).length, 2);
    });

    test('submitting the job sends it to review, where only the reviewer and managers change its images; rejections bring it back; all accepted is done', async () => {
      const j = job(0).id;
      assertProblem(await post(`/v2/jobs/${j}/submit`, ann2), 403, 'FORBIDDEN');
      const submitted = await post(`/v2/jobs/${j}/submit`, ann1);
      assert.equal(submitted.statusCode, 200, submitted.body);
      assert.deepEqual([json<Job>(submitted).stage, json<Job>(submitted).progress.submitted], ['review', 2]);
      assertProblem(await post(`/v2/jobs/${j}/submit`, ann1), 409, 'CONFLICT');
      assertProblem(await save(images[1]!, ann1, 40), 403, 'FORBIDDEN');
      assert.equal((await save(images[1]!, rev, 41)).statusCode, 200);
      assert.equal((await post(`/v2/jobs/${j}/images/${images[1]}/accept`, rev)).statusCode, 200);
      assert.equal((await post(`/v2/jobs/${j}/images/${images[2]}/reject`, rev, { issues: [{ x: 1, y: 1, comment: 'empty' }] })).statusCode, 200);
      assert.equal(json<Job>(await t.request({ method: 'GET', url: `/v2/jobs/${j}` })).stage, 'annotate', 'no submitted image left and one rejected');
      const [issue] = (await get<{ items: Issue[] }>(`/v2/jobs/${j}/images/${images[2]}/issues`)).items;
      assert.equal((await save(images[2]!, ann1, 50)).statusCode, 200);
      assert.equal((await post(`/v2/issues/${issue!.id}/resolve`, ann1, {})).statusCode, 200);
      assert.equal(json<Job>(await post(`/v2/jobs/${j}/submit`, ann1)).stage, 'review');
      assert.equal((await post(`/v2/jobs/${j}/images/${images[2]}/accept`, rev)).statusCode, 200);
      const done = json<Job>(await t.request({ method: 'GET', url: `/v2/jobs/${j}` }));
      assert.equal(done.stage, 'done');
      assertProblem(await post(`/v2/jobs/${j}/images/${images[2]}/reject`, rev, { issues: [{ x: 1, y: 1, comment: 'late' }] }), 409, 'CONFLICT');
      assert.equal((await save(images[2]!, ann2, 60)).statusCode, 200, 'a done job holds its images no more');
      assert.deepEqual(
        (await events('job.stage_changed')).filter((e) => e.jobId === j).map((e) => [e.from, e.to]),
        [['annotate', 'review'], ['review', 'annotate'], ['annotate', 'review'], ['review', 'done']],
      );
      assert.deepEqual(
        { ...done.progress, timeSpentMs: done.progress.timeSpentMs >= 10_000 },
        { images: 3, new: 0, inProgress: 0, submitted: 0, accepted: 3, rejected: 0, acceptedFirstReview: 1, timeSpentMs: true, objectsMade: 5 },
      );
    });

    test('the figures per assignee; a manager changes a job’s people; every transition has its audit row', async () => {
      assert.equal((await save(images[3]!, ann2, 2)).statusCode, 200);
      const figures = (await get<{ items: { login: string; jobs: number; images: number; accepted: number; acceptedFirstReview: number; objectsMade: number }[] }>(`/v2/projects/${projectId}/jobs/figures`)).items;
      assert.deepEqual(
        figures.map((f) => [f.login, f.jobs, f.images, f.accepted, f.acceptedFirstReview, f.objectsMade]),
        [
          ['ann1', 1, 3, 3, 1, 5],
          ['ann2', 1, 3, 0, 0, 1],
        ],
      );
      assertProblem(await t.request({ method: 'PATCH', url: `/v2/jobs/${job(1).id}`, key: ann2, payload: { assigneeId: ids.ann1 } }), 403, 'PROJECT_ROLE_REQUIRED');
      const changed = await t.request({ method: 'PATCH', url: `/v2/jobs/${job(1).id}`, key: t.adminKey, payload: { assigneeId: ids.ann1, title: 'moved' } });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.deepEqual([json<Job>(changed).title, json<Job>(changed).assignee.login], ['moved', 'ann1']);
      assertProblem(await save(images[3]!, ann2, 3), 403, 'FORBIDDEN');
      await t.app.auditTrail.settled();
      const audit = json<List<{ route: string; status: number }>>(await t.request({ method: 'GET', url: '/v2/audit?limit=1000', key: t.adminKey })).items;
      const routes = new Set(audit.filter((a) => a.status < 300).map((a) => a.route));
      for (const route of [
        '/v2/datasets/:datasetId/jobs',
        '/v2/projects/:projectId/jobs',
        '/v2/jobs/:id',
        '/v2/jobs/:id/images/:imageId/open',
        '/v2/jobs/:id/images/:imageId/submit',
        '/v2/jobs/:id/images/:imageId/accept',
        '/v2/jobs/:id/images/:imageId/reject',
        '/v2/jobs/:id/submit',
        '/v2/issues/:id/comments',
        '/v2/issues/:id/resolve',
      ]) {
        assert.ok(routes.has(route), route);
      }
    });
    test('the typed client walks a job from a filter through review', async () => {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      const as = (key: string) => new AnnostoreClient({ url, key, retries: 0 }).v2;
      const manager = as(t.adminKey);
      const made = await manager.jobs.createFromFilter(projectId, { title: 'client', assigneeId: ids.ann2, reviewerId: ids.rev, filter: { datasetId: otherDatasetId } });
      assert.equal(made.progress.images, 3, 'the night images are free again since their job was deleted');
      const annotator = as(ann2);
      const reviewer = as(rev);
      const next = await annotator.jobs.next(made.id);
      assert.equal(next.image?.imageId, others[0]);
      assert.equal((await annotator.jobs.open(made.id, others[0]!)).state, 'in_progress');
      assert.equal((await annotator.jobs.submitImage(made.id, others[0]!)).state, 'submitted');
      assert.equal((await reviewer.jobs.reject(made.id, others[0]!, { issues: [{ x: 3, y: 4, comment: 'here' }] })).state, 'rejected');
      const [issue] = await annotator.jobs.issues(made.id, others[0]!);
      assert.equal((await annotator.jobs.comment(issue!.id, { body: 'done' })).body, 'done');
      assert.equal((await annotator.jobs.resolve(issue!.id)).status, 'resolved');
      assert.equal((await annotator.jobs.submit(made.id)).stage, 'review');
      for (const image of (await reviewer.jobs.images(made.id, { state: 'submitted' })).items) await reviewer.jobs.accept(made.id, image.imageId);
      assert.equal((await reviewer.jobs.get(made.id)).stage, 'done');
      assert.ok((await reviewer.jobs.mine()).items.some((j) => j.id === made.id));
      assert.ok((await manager.jobs.list(projectId)).items.some((j) => j.id === made.id));
      assert.ok((await manager.jobs.figures(projectId)).some((f) => f.login === 'ann2'));
      assert.equal((await manager.jobs.change(made.id, { title: 'renamed' })).title, 'renamed');
      await manager.jobs.remove(made.id);
      const split = await manager.jobs.split(otherDatasetId, { imagesPerJob: 1, assigneeIds: [ids.ann1] });
      assert.equal(split.length, 1);
    });

  });
}
