// Project roles on every /v1 and /v2 route, on both databases: each role (a team owner, a team admin,
// a member who is the project's manager, reviewer, annotator or viewer, and a member with no role)
// against every route the app has, from one table. The routes are taken from the app itself, so a
// route the table does not name fails the test. "Allowed" means the role check let the request
// through (what the route then says of the request is its own business); "refused" is a 403
// PROJECT_ROLE_REQUIRED (v2), or FORBIDDEN with reason PROJECT_ROLE_REQUIRED (v1).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createKey } from '../../src/services/keys.service.ts';
import * as jobs from '../../src/repositories/jobs.repository.ts';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import * as members from '../../src/repositories/project-members.repository.ts';
import { createVersion } from '../../src/services/versions.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, userId } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

type Role = 'viewer' | 'annotator' | 'reviewer' | 'manager';
const RANK: Record<Role, number> = { viewer: 1, annotator: 2, reviewer: 3, manager: 4 };

/** The callers: team role, and role in the project. */
const CALLERS: { name: string; login: string; projectRole: Role | null }[] = [
  { name: 'owner', login: 'alice', projectRole: 'manager' },
  { name: 'admin', login: 'owner', projectRole: 'manager' },
  { name: 'member-manager', login: 'mgr', projectRole: 'manager' },
  { name: 'member-reviewer', login: 'rev', projectRole: 'reviewer' },
  { name: 'member-annotator', login: 'ann', projectRole: 'annotator' },
  { name: 'member-viewer', login: 'vwr', projectRole: 'viewer' },
  { name: 'member-without-role', login: 'none', projectRole: null },
];
const MEMBER_ROLES: Record<string, Role> = { mgr: 'manager', rev: 'reviewer', ann: 'annotator', vwr: 'viewer' };

/** What the table's ids name: made once, or made afresh for each request (what a request deletes). */
interface Ids {
  p: number;
  d: number;
  i: number;
  c: number;
  t: number;
  v: number;
  k: number;
  u: number;
  /** A job of the project, of an image of its own, and an issue on that image. */
  j: number;
  m: number;
  q: number;
  /** An id of nothing: what the team routes are sent, so that none of them changes a caller's key. */
  x: number;
}
type Kind = keyof Ids;

/**
 * A route: the role it needs (`team`: none, the route is about no one project), where its path's ids
 * come from (`fresh`: made for each request, for what it deletes), and the query and body it is sent.
 */
interface Row {
  need: Role | 'team';
  params?: Record<string, Kind>;
  fresh?: Kind;
  query?: string;
  body?: (ids: Ids) => unknown;
  /** An event stream that never ends when allowed: only its refusals are asked for. */
  stream?: true;
}

const team: Row = { need: 'team' };
const on = (need: Role, params: Record<string, Kind>, more: Omit<Row, 'need' | 'params'> = {}): Row => ({ need, params, ...more });

const TABLE: Record<string, Row> = {
  // v1
  'GET /v1/annotations': { need: 'viewer', query: 'projectId={p}' },
  'GET /v1/models': team,
  'GET /v1/architectures': team,
  'GET /v1/datasets': { need: 'viewer', query: 'projectId={p}' },
  'DELETE /v1/datasets/:datasetId': on('manager', { datasetId: 'd' }, { fresh: 'd' }),
  'GET /v1/images/tags': { need: 'viewer', query: 'imageId={i}' },
  'POST /v1/images/tags': { need: 'annotator', query: 'imageId={i}', body: () => ({}) },
  'DELETE /v1/images/tags': { need: 'annotator', query: 'imageId={i}', body: () => [] },
  'PUT /v1/images/description': { need: 'manager', query: 'imageId={i}', body: () => ({}) },
  'POST /v1/tasks/import/check-images': team,
  'POST /v1/tasks/import/files': team,
  'POST /v1/tasks/import': { need: 'manager', body: (ids) => ({ project: { id: ids.p } }) },
  'POST /v1/tasks/import/local': { need: 'manager', body: (ids) => ({ datasetsIds: [ids.d] }) },
  'GET /v1/projects/:id/tags': on('viewer', { id: 'p' }, { query: 'type=images' }),
  'POST /v1/projects/:id/tags': on('manager', { id: 'p' }, { body: () => ({}) }),
  'PUT /v1/projects/:projectId/tags/:id': on('manager', { projectId: 'p', id: 't' }, { body: () => ({}) }),
  'DELETE /v1/projects/:projectId/tags/:id': on('manager', { projectId: 'p', id: 't' }, { fresh: 't' }),
  'GET /v1/projects': team,
  'DELETE /v1/projects/:projectId': on('manager', { projectId: 'p' }, { fresh: 'p' }),
  'GET /v1/tasks': team,
  'POST /v1/tasks/:id/stop': on('manager', { id: 'k' }),
  // v2: the caller's own account, keys, session, the team's users, models, webhooks, audit
  'GET /v2/account': team,
  'PUT /v2/account/password': team,
  'GET /v2/account/keys': team,
  'POST /v2/account/keys': team,
  'DELETE /v2/account/keys/:id': { need: 'team', params: { id: 'x' } },
  'GET /v2/me': team,
  'GET /v2/keys': team,
  'GET /v2/keys/:id': { need: 'team', params: { id: 'x' } },
  'POST /v2/keys': team,
  'DELETE /v2/keys/:id': { need: 'team', params: { id: 'x' } },
  'GET /v2/session': team,
  'DELETE /v2/session': team,
  'GET /v2/sessions': team,
  'DELETE /v2/sessions/:id': { need: 'team', params: { id: 'x' } },
  'GET /v2/users': team,
  'GET /v2/users/:id': { need: 'team', params: { id: 'x' } },
  'POST /v2/users': team,
  'PATCH /v2/users/:id': { need: 'team', params: { id: 'x' } },
  'POST /v2/users/:id/password-link': { need: 'team', params: { id: 'x' } },
  'GET /v2/audit': team,
  'GET /v2/architectures': team,
  'GET /v2/architectures/:id': { need: 'team', params: { id: 'x' } },
  'POST /v2/architectures': team,
  'DELETE /v2/architectures/:id': { need: 'team', params: { id: 'x' } },
  'GET /v2/models': team,
  'POST /v2/models': team,
  'GET /v2/models/:id': { need: 'team', params: { id: 'x' } },
  'PATCH /v2/models/:id': { need: 'team', params: { id: 'x' } },
  'DELETE /v2/models/:id': { need: 'team', params: { id: 'x' } },
  'GET /v2/models/:id/weights': { need: 'team', params: { id: 'x' } },
  'PUT /v2/models/:id/weights': { need: 'team', params: { id: 'x' } },
  'POST /v2/webhooks': team,
  'GET /v2/webhooks': team,
  'GET /v2/webhooks/:id': { need: 'team', params: { id: 'x' } },
  'DELETE /v2/webhooks/:id': { need: 'team', params: { id: 'x' } },
  'GET /v2/webhooks/:id/deliveries': { need: 'team', params: { id: 'x' } },
  'POST /v2/webhooks/:id/test': { need: 'team', params: { id: 'x' } },
  'GET /v2/segment/model': team,
  'GET /v2/segment/decoder': team,
  'GET /v2/segment/models': team,
  'GET /v2/jobs/mine': team,
  'POST /v2/imports/hash-check': team,
  'POST /v2/imports/files': team,
  'GET /v2/tasks': team,
  'GET /v2/tasks/events': { need: 'team', stream: true },
  'POST /v2/projects': team,
  'GET /v2/projects': team,
  // v2: a project and what is in it
  'GET /v2/projects/:id': on('viewer', { id: 'p' }),
  'PATCH /v2/projects/:id': on('manager', { id: 'p' }, { body: () => ({}) }),
  'DELETE /v2/projects/:id': on('manager', { id: 'p' }, { fresh: 'p' }),
  'GET /v2/projects/:id/role': on('viewer', { id: 'p' }),
  'GET /v2/project-roles': { need: 'team', query: 'projectIds={p},{x}' },
  'GET /v2/projects/:id/members': on('manager', { id: 'p' }),
  'PATCH /v2/projects/:id/members': on('manager', { id: 'p' }, { body: () => ({}) }),
  'PUT /v2/projects/:id/members/:userId': on('manager', { id: 'p', userId: 'u' }, { body: () => ({}) }),
  'DELETE /v2/projects/:id/members/:userId': on('manager', { id: 'p', userId: 'u' }),
  'GET /v2/projects/:projectId/classes': on('viewer', { projectId: 'p' }),
  'POST /v2/projects/:projectId/classes': on('manager', { projectId: 'p' }, { body: () => ({}) }),
  'GET /v2/classes/:id': on('viewer', { id: 'c' }),
  'GET /v2/classes/:id/usage': on('viewer', { id: 'c' }),
  'PATCH /v2/classes/:id': on('manager', { id: 'c' }, { body: () => ({}) }),
  'DELETE /v2/classes/:id': on('manager', { id: 'c' }, { fresh: 'c' }),
  'GET /v2/projects/:projectId/tags': on('viewer', { projectId: 'p' }),
  'POST /v2/projects/:projectId/tags': on('manager', { projectId: 'p' }, { body: () => ({}) }),
  'GET /v2/tags/:id': on('viewer', { id: 't' }),
  'GET /v2/tags/:id/usage': on('viewer', { id: 't' }),
  'PATCH /v2/tags/:id': on('manager', { id: 't' }, { body: () => ({}) }),
  'DELETE /v2/tags/:id': on('manager', { id: 't' }, { fresh: 't' }),
  'POST /v2/projects/:projectId/datasets': on('manager', { projectId: 'p' }, { body: () => ({}) }),
  'GET /v2/datasets': { need: 'viewer', query: 'projectId={p}' },
  'GET /v2/datasets/:id': on('viewer', { id: 'd' }),
  'PATCH /v2/datasets/:id': on('manager', { id: 'd' }, { body: () => ({}) }),
  'DELETE /v2/datasets/:id': on('manager', { id: 'd' }, { fresh: 'd' }),
  'POST /v2/datasets/:datasetId/images': on('manager', { datasetId: 'd' }, { body: () => ({}) }),
  'GET /v2/images': { need: 'viewer', query: 'projectId={p}' },
  'GET /v2/images/:id': on('viewer', { id: 'i' }),
  'PATCH /v2/images/:id': on('manager', { id: 'i' }, { body: () => ({}) }),
  'POST /v2/images/:id/copy': on('manager', { id: 'i' }, { body: () => ({}) }),
  'DELETE /v2/images/:id': on('manager', { id: 'i' }, { fresh: 'i' }),
  'GET /v2/images/overlays': { need: 'viewer', query: 'ids={i}' },
  'GET /v2/images/:id/file': on('viewer', { id: 'i' }),
  'GET /v2/images/:id/thumbnail': on('viewer', { id: 'i' }),
  'GET /v2/images/:id/annotation': on('viewer', { id: 'i' }),
  'PUT /v2/images/:id/annotation': on('annotator', { id: 'i' }, { body: () => ({}) }),
  'PATCH /v2/images/:id/annotation': on('annotator', { id: 'i' }, { body: () => ({}) }),
  'GET /v2/images/:id/annotation/revisions': on('viewer', { id: 'i' }),
  'GET /v2/images/:id/annotation/revisions/:revisionId': on('viewer', { id: 'i', revisionId: 'u' }),
  'POST /v2/images/:id/annotation/revisions/:revisionId/restore': on('annotator', { id: 'i', revisionId: 'u' }, { body: () => ({}) }),
  'GET /v2/images/:id/similar': on('viewer', { id: 'i' }),
  'GET /v2/images/:id/embedding': on('viewer', { id: 'i' }),
  'POST /v2/datasets/:datasetId/embeddings': on('manager', { datasetId: 'd' }, { body: () => ({}) }),
  'GET /v2/images/:id/predictions': on('viewer', { id: 'i' }),
  'PUT /v2/images/:id/predictions': on('manager', { id: 'i' }, { body: () => ({}) }),
  'DELETE /v2/images/:id/predictions': on('manager', { id: 'i' }),
  'GET /v2/projects/:projectId/predictions/models': on('viewer', { projectId: 'p' }),
  'GET /v2/projects/:projectId/evaluation': on('viewer', { projectId: 'p' }),
  'POST /v2/projects/:projectId/predictions': on('manager', { projectId: 'p' }, { body: () => ({}) }),
  'GET /v2/projects/:projectId/near-duplicates': on('viewer', { projectId: 'p' }),
  'POST /v2/projects/:projectId/near-duplicates/hashes': on('manager', { projectId: 'p' }, { body: () => ({}) }),
  'GET /v2/projects/:projectId/stats': on('viewer', { projectId: 'p' }),
  'POST /v2/imports': { need: 'manager', body: (ids) => ({ project: { id: ids.p } }) },
  'POST /v2/imports/local': { need: 'manager', body: (ids) => ({ datasetsIds: [ids.d] }) },
  'POST /v2/exports': { need: 'manager', body: (ids) => ({ projectId: ids.p }) },
  'GET /v2/exports/:id': on('viewer', { id: 'k' }),
  'GET /v2/exports/:id/archive': on('viewer', { id: 'k' }),
  'DELETE /v2/exports/:id': on('manager', { id: 'k' }, { fresh: 'k' }),
  'GET /v2/tasks/:id': on('viewer', { id: 'k' }),
  'GET /v2/tasks/:id/events': on('viewer', { id: 'k' }, { stream: true }),
  'POST /v2/tasks/:id/stop': on('manager', { id: 'k' }),
  'DELETE /v2/tasks/:id': on('manager', { id: 'k' }, { fresh: 'k' }),
  'POST /v2/projects/:projectId/versions': on('manager', { projectId: 'p' }, { body: () => ({}) }),
  'GET /v2/projects/:projectId/versions': on('viewer', { projectId: 'p' }),
  'GET /v2/versions/:id': on('viewer', { id: 'v' }),
  'GET /v2/versions/:id/images': on('viewer', { id: 'v' }),
  'GET /v2/versions/:id/images/:imageId/file': on('viewer', { id: 'v', imageId: 'i' }),
  'GET /v2/versions/:id/diff': on('viewer', { id: 'v' }),
  'GET /v2/versions/:id/leakage': on('viewer', { id: 'v' }),
  'DELETE /v2/versions/:id': on('manager', { id: 'v' }, { fresh: 'v' }),
  'POST /v2/projects/:projectId/jobs': on('manager', { projectId: 'p' }, { body: () => ({}) }),
  'POST /v2/datasets/:datasetId/jobs': on('manager', { datasetId: 'd' }, { body: () => ({}) }),
  'GET /v2/projects/:projectId/jobs': on('viewer', { projectId: 'p' }),
  'GET /v2/projects/:projectId/jobs/figures': on('viewer', { projectId: 'p' }),
  'GET /v2/jobs/:id': on('viewer', { id: 'j' }),
  'PATCH /v2/jobs/:id': on('manager', { id: 'j' }, { body: () => ({}) }),
  'DELETE /v2/jobs/:id': on('manager', { id: 'j' }, { fresh: 'j' }),
  'GET /v2/jobs/:id/images': on('viewer', { id: 'j' }),
  'GET /v2/jobs/:id/next': on('annotator', { id: 'j' }),
  'POST /v2/jobs/:id/images/:imageId/open': on('annotator', { id: 'j', imageId: 'm' }),
  'POST /v2/jobs/:id/images/:imageId/submit': on('annotator', { id: 'j', imageId: 'm' }),
  'POST /v2/jobs/:id/images/:imageId/accept': on('reviewer', { id: 'j', imageId: 'm' }),
  'POST /v2/jobs/:id/images/:imageId/reject': on('reviewer', { id: 'j', imageId: 'm' }, { body: () => ({}) }),
  'POST /v2/jobs/:id/submit': on('annotator', { id: 'j' }),
  'GET /v2/jobs/:id/images/:imageId/issues': on('viewer', { id: 'j', imageId: 'm' }),
  'PUT /v2/projects/:projectId/ground-truth': on('manager', { projectId: 'p' }, { body: () => ({}) }),
  'DELETE /v2/projects/:projectId/ground-truth': on('manager', { projectId: 'p' }, { body: () => ({}) }),
  'GET /v2/projects/:projectId/ground-truth': on('manager', { projectId: 'p' }),
  'GET /v2/projects/:projectId/quality': on('manager', { projectId: 'p' }),
  'POST /v2/issues/:id/comments': on('annotator', { id: 'q' }, { body: () => ({}) }),
  'POST /v2/issues/:id/resolve': on('annotator', { id: 'q' }, { body: () => ({}) }),
};

/** Routes that need no key at all (signing in, one-time links): nothing to decide. */
const PUBLIC = new Set(['GET /v2/openapi.json', 'POST /v2/session', 'GET /v2/session/oidc', 'POST /v2/password-links/lookup', 'POST /v2/password-links/use']);

const refusal = (res: LightMyRequestResponse): boolean => {
  if (res.statusCode !== 403) return false;
  const body = json<{ code?: string; error?: string; details?: { reason?: string } }>(res);
  return body.code === 'PROJECT_ROLE_REQUIRED' || body.details?.reason === 'PROJECT_ROLE_REQUIRED';
};

for (const dialect of dialects) {
  describe(`project roles on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    const routes: string[] = [];
    const keys = new Map<string, string>();
    let ids: Ids;

    /** A project of team alpha whose members are the callers, with no role for anyone else. */
    async function roledProject(): Promise<number> {
      const p = await newProject(t.ctx, { title: 'roles', classes: [{ title: 'car', shape: 'rectangle' }] });
      await members.setDefaultRole(t.ctx.db.kysely, p, null);
      for (const [login, role] of Object.entries(MEMBER_ROLES)) await members.putMember(t.ctx.db.kysely, p, await userId(t.ctx, 'alpha', login), role);
      return p;
    }

    async function fresh(kind: Kind): Promise<number> {
      const db = t.ctx.db.kysely;
      switch (kind) {
        case 'p':
          return roledProject();
        case 'd':
          return newDataset(t.ctx, ids.p, `ds-${Math.random()}`);
        case 'i':
          return (await newImage(t.ctx, ids.d)).id;
        case 't':
          return newTag(t.ctx, ids.p);
        case 'c': {
          const row = await db.insertInto('classes').values({ project_id: ids.p, title: `c-${Math.random()}`, shape: 'point', color: '#00FF00', created_at: new Date().toISOString() }).returning('id').executeTakeFirstOrThrow();
          return row.id;
        }
        case 'v':
          return (await createVersion(db, (await db.selectFrom('projects').select('team_id').where('id', '=', ids.p).executeTakeFirstOrThrow()).team_id, null, ids.p, { name: `v-${Math.random()}` })).id;
        case 'k': {
          const teamId = (await db.selectFrom('projects').select('team_id').where('id', '=', ids.p).executeTakeFirstOrThrow()).team_id;
          return tasks.createTask(db, { teamId, userId: null, type: 'export', size: 0, meta: {}, input: {}, projectId: ids.p });
        }
        case 'u':
          // A user the members routes may change: none of the callers.
          await createKey(db, { team: 'alpha', user: 'spare' });
          return userId(t.ctx, 'alpha', 'spare');
        case 'm':
          return (await newImage(t.ctx, ids.d)).id;
        case 'j': {
          // A job whose assignee is none of the callers, of an image of its own, so that the job's hold on
          // its images' annotations never meets the image the other routes write.
          const teamId = (await db.selectFrom('projects').select('team_id').where('id', '=', ids.p).executeTakeFirstOrThrow()).team_id;
          const assignee = await userId(t.ctx, 'alpha', 'ann');
          const job = await jobs.insertJob(db, { teamId, projectId: ids.p, title: `job-${Math.random()}`, assigneeId: assignee, reviewerId: null, createdBy: assignee, at: new Date().toISOString() });
          // The first job holds image m; a job made for a request that deletes it holds one of its own.
          await jobs.insertJobImages(db, job, [ids.j === 0 ? ids.m : await fresh('m')]);
          return job;
        }
        case 'q':
          return jobs.insertIssue(db, { jobId: ids.j, imageId: ids.m, x: 1, y: 1, objectId: null, createdBy: await userId(t.ctx, 'alpha', 'rev'), at: new Date().toISOString() });
        case 'x':
          return 2_000_000_000;
      }
    }

    before(async () => {
      t = await startTestApp(dialect, {}, { onRoute: (route) => {
        for (const method of [route.method].flat()) if (method !== 'HEAD' && /^\/v[12]\//.test(route.url)) routes.push(`${method} ${route.url}`);
      } });
      keys.set('alice', t.key);
      keys.set('owner', t.adminKey);
      for (const login of [...Object.keys(MEMBER_ROLES), 'none']) keys.set(login, await createKey(t.ctx.db.kysely, { team: 'alpha', user: login }));
      const p = await roledProject();
      ids = { p, d: 0, i: 0, c: 0, t: 0, v: 0, k: 0, u: 0, j: 0, m: 0, q: 0, x: 2_000_000_000 };
      ids.d = await fresh('d');
      ids.i = await fresh('i');
      ids.c = await fresh('c');
      ids.t = await fresh('t');
      ids.v = await fresh('v');
      ids.k = await fresh('k');
      ids.u = await fresh('u');
      ids.m = await fresh('m');
      ids.j = await fresh('j');
      ids.q = await fresh('q');
    });
    after(async () => t?.close());

    test('every /v1 and /v2 route of the app is in the table, and the table names no route the app lacks', () => {
      const unclassified = routes.filter((r) => !(r in TABLE) && !PUBLIC.has(r));
      assert.deepEqual(unclassified, [], 'routes nobody classified');
      const stale = Object.keys(TABLE).filter((r) => !routes.includes(r));
      assert.deepEqual(stale, [], 'table rows of no route');
    });

    test('each role against each route: allowed, or 403 PROJECT_ROLE_REQUIRED', async () => {
      const failures: string[] = [];
      for (const [route, row] of Object.entries(TABLE)) {
        const [method, path] = route.split(' ') as [string, string];
        for (const caller of CALLERS) {
          const allowed = row.need === 'team' || (caller.projectRole !== null && RANK[caller.projectRole] >= RANK[row.need]);
          if (row.stream && allowed) continue;
          const own: Ids = { ...ids };
          if (row.fresh) own[row.fresh] = await fresh(row.fresh);
          let url = path;
          for (const [name, kind] of Object.entries(row.params ?? {})) url = url.replace(`:${name}`, String(own[kind]));
          if (row.query) url += `?${row.query.replace(/\{(\w)\}/g, (_m, k: Kind) => String(own[k]))}`;
          const body = row.body?.(own) ?? (['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined);
          const res = await t.request({
            method: method as 'GET',
            url,
            key: keys.get(caller.login)!,
            ...(body === undefined ? {} : { payload: body as object }),
          });
          if (allowed === refusal(res)) failures.push(`${caller.name} ${route}: ${allowed ? 'refused' : `not refused (${res.statusCode})`} ${res.body.slice(0, 160)}`);
        }
      }
      assert.deepEqual(failures, []);
    });

    test('GET /v2/project-roles answers in one request what GET /v2/projects/:id/role answers for each project, leaving out those without a role and those of no project of the team', async () => {
      const open = await newProject(t.ctx, { title: `open-${Math.random()}` });
      await members.setDefaultRole(t.ctx.db.kysely, open, 'viewer');
      const elsewhere = await newProject(t.ctx, { team: 'beta', title: `beta-${Math.random()}` });
      const asked = [open, ids.p, elsewhere, ids.x, ids.p];
      const readKey = await createKey(t.ctx.db.kysely, { team: 'alpha', user: 'mgr', scope: 'read' });
      for (const [name, key] of [...CALLERS.map((c) => [c.name, keys.get(c.login)!] as const), ['member-manager, read key', readKey] as const]) {
        const res = await t.request({ method: 'GET', url: `/v2/project-roles?projectIds=${asked.join(',')}`, key });
        assert.equal(res.statusCode, 200, `${name}: ${res.body}`);
        const want: { projectId: number; role: string }[] = [];
        for (const projectId of [...new Set(asked)].sort((a, b) => a - b)) {
          const one = await t.request({ method: 'GET', url: `/v2/projects/${projectId}/role`, key });
          if (one.statusCode === 200) want.push(json<{ projectId: number; role: string }>(one));
          else assert.ok([403, 404].includes(one.statusCode), `${name} /v2/projects/${projectId}/role: ${one.statusCode}`);
        }
        assert.deepEqual(json<{ items: unknown[] }>(res).items, want, name);
      }
      // The same read key, one by one and at once: a viewer at most.
      const viaReadKey = json<{ items: { projectId: number; role: string }[] }>(await t.request({ method: 'GET', url: `/v2/project-roles?projectIds=${ids.p}`, key: readKey }));
      assert.deepEqual(viaReadKey.items, [{ projectId: ids.p, role: 'viewer' }]);
      // A list too long is refused, not cut.
      const tooMany = Array.from({ length: 501 }, (_, i) => i + 1).join(',');
      assert.equal((await t.request({ method: 'GET', url: `/v2/project-roles?projectIds=${tooMany}`, key: t.key })).statusCode, 400);
    });

    test('task lists (v1, v1 by id, v2) and a task read by id show a member the tasks of projects they have a role in, and those of no project or a deleted one that they started', async () => {
      const db = t.ctx.db.kysely;
      const teamId = (await db.selectFrom('projects').select('team_id').where('id', '=', ids.p).executeTakeFirstOrThrow()).team_id;
      const gone = await newProject(t.ctx, { title: `gone-${Math.random()}` });
      const made = {
        roled: ids.k,
        noProject: await tasks.createTask(db, { teamId, userId: null, type: 'export', size: 0, meta: {}, input: {}, projectId: null }),
        noProjectByAnnotator: await tasks.createTask(db, { teamId, userId: await userId(t.ctx, 'alpha', 'ann'), type: 'dtl', size: 0, meta: {}, input: {}, projectId: null }),
        goneByNone: await tasks.createTask(db, { teamId, userId: await userId(t.ctx, 'alpha', 'none'), type: 'export', size: 0, meta: {}, input: {}, projectId: gone }),
        goneByViewer: await tasks.createTask(db, { teamId, userId: await userId(t.ctx, 'alpha', 'vwr'), type: 'export', size: 0, meta: {}, input: {}, projectId: gone }),
      };
      await db.deleteFrom('projects').where('id', '=', gone).execute();
      const ours = new Set<number>(Object.values(made));
      const expected: Record<string, number[]> = {
        alice: [made.roled, made.noProject, made.noProjectByAnnotator, made.goneByNone, made.goneByViewer],
        owner: [made.roled, made.noProject, made.noProjectByAnnotator, made.goneByNone, made.goneByViewer],
        mgr: [made.roled],
        rev: [made.roled],
        ann: [made.roled, made.noProjectByAnnotator],
        vwr: [made.roled, made.goneByViewer],
        none: [made.goneByNone],
      };
      const failures: string[] = [];
      for (const caller of CALLERS) {
        const key = keys.get(caller.login)!;
        const want = [...expected[caller.login]!].sort((a, b) => a - b);
        const v1 = await t.request({ method: 'GET', url: '/v1/tasks', key });
        assert.equal(v1.statusCode, 200, v1.body);
        const v1Ids = json<{ id: number }[]>(v1).map((k) => k.id).filter((id) => ours.has(id));
        if (JSON.stringify(v1Ids) !== JSON.stringify(want)) failures.push(`${caller.name} GET /v1/tasks: ${JSON.stringify(v1Ids)}, not ${JSON.stringify(want)}`);
        for (const id of ours) {
          const one = await t.request({ method: 'GET', url: `/v1/tasks?id=${id}`, key });
          assert.equal(one.statusCode, 200, one.body);
          const seen = json<{ id: number }[]>(one).map((k) => k.id);
          if (JSON.stringify(seen) !== JSON.stringify(want.includes(id) ? [id] : [])) failures.push(`${caller.name} GET /v1/tasks?id=${id}: ${JSON.stringify(seen)}`);
        }
        const v2 = await t.request({ method: 'GET', url: '/v2/tasks?limit=1000&count=true', key });
        assert.equal(v2.statusCode, 200, v2.body);
        const page = json<{ items: { id: number }[]; total: number }>(v2);
        const v2Ids = page.items.map((k) => k.id).filter((id) => ours.has(id)).sort((a, b) => a - b);
        if (JSON.stringify(v2Ids) !== JSON.stringify(want)) failures.push(`${caller.name} GET /v2/tasks: ${JSON.stringify(v2Ids)}, not ${JSON.stringify(want)}`);
        if (page.total !== page.items.length) failures.push(`${caller.name} GET /v2/tasks: total ${page.total} of ${page.items.length} listed`);
        // A task read by its id follows the lists: what they leave out cannot be read either.
        for (const id of ours) {
          const read = await t.request({ method: 'GET', url: `/v2/tasks/${id}`, key });
          if ((read.statusCode === 200) !== want.includes(id)) failures.push(`${caller.name} GET /v2/tasks/${id}: ${read.statusCode}`);
          if (read.statusCode !== 200 && ![403, 404].includes(read.statusCode)) failures.push(`${caller.name} GET /v2/tasks/${id}: ${read.statusCode} ${read.body.slice(0, 120)}`);
        }
      }
      assert.deepEqual(failures, []);
    });
  });
}
