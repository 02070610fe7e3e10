// An id in a path has one spelling: a plain decimal integer from 1. Every route of v1 and v2 with a
// parameter in its path (found as the app registers its routes, so a new route is covered) answers 400
// to any other spelling of a number, with the body of its version.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RouteOptions } from 'fastify';
import { dialects } from '../helpers/dialects.ts';
import { newProject } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface Route {
  method: string;
  url: string;
  ids: string[];
}

/** Numbers a lenient parser reads as 1 (or as another integer), none of them the one spelling. */
const OTHER_SPELLINGS = ['0x1', '01', '+1', '1e3', '1%20', '%201', '1.0', '0'];

for (const dialect of dialects) {
  describe(`ids in paths (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestApp;
    const routes: Route[] = [];

    before(async () => {
      const onRoute = (route: RouteOptions) => {
        const properties = (route.schema?.params as { properties?: Record<string, { type?: string }> } | undefined)?.properties ?? {};
        const ids = Object.keys(properties).filter((name) => properties[name]!.type === 'integer');
        // Every route with a parameter in its path, ids or not: a parameter not checked as an id is caught below.
        if (!route.url.includes(':') || !/^\/v[12]\//.test(route.url)) return;
        for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url, ids });
      };
      t = await startTestApp(dialect, {}, { onRoute });
    });
    after(async () => t?.close());

    test('every route with a path id is found, and each of its ids is an integer of its params schema', () => {
      assert.ok(routes.filter((r) => r.url.startsWith('/v1/')).length >= 7, JSON.stringify(routes.map((r) => r.url)));
      assert.ok(routes.filter((r) => r.url.startsWith('/v2/')).length >= 40, JSON.stringify(routes.map((r) => r.url)));
      for (const route of routes) {
        const inPath = [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1]);
        assert.deepEqual([...route.ids].sort(), [...inPath].sort(), `${route.method} ${route.url}`);
      }
    });

    test('another spelling of a number is a 400 in the body of the route’s version; the plain one is not', async () => {
      for (const route of routes) {
        for (const name of route.ids) {
          for (const spelling of OTHER_SPELLINGS) {
            const url = route.url.replace(/:(\w+)/g, (_m, param: string) => (param === name ? spelling : '1'));
            const res = await t.request({ method: route.method as 'GET', url, key: t.adminKey });
            const label = `${route.method} ${url}: ${res.body}`;
            assert.equal(res.statusCode, 400, label);
            if (route.url.startsWith('/v2/')) {
              const problem = json<{ code: string; errors: { in: string; pointer: string }[] }>(res);
              assert.equal(problem.code, 'VALIDATION', label);
              assert.deepEqual(problem.errors.map((e) => [e.in, e.pointer]), [['params', `/${name}`]], label);
            } else {
              const body = json<{ error: string; details: { field?: string; in?: string } }>(res);
              assert.deepEqual([body.error, body.details.in, body.details.field], ['VALIDATION', 'params', name], label);
            }
          }
        }
      }
      const projectId = await newProject(t.ctx, { title: 'plain' });
      assert.equal((await t.request({ method: 'GET', url: `/v2/projects/${projectId}` })).statusCode, 200);
      assert.equal((await t.request({ method: 'GET', url: `/v1/projects/${projectId}/tags?type=images` })).statusCode, 200);
    });
  });
}
