// JSON nested far deeper than any request's shape, in the members the schemas leave free (export
// options, a DTL layer's settings): a 400 naming the place, never a 500 from a walk out of stack.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_NESTING } from '../../src/http/plugins/validation.ts';
import { dialects } from '../helpers/dialects.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';

/** `depth` lists, one inside the other, as JSON text. */
const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('JSON nested deeper than the limit', () => {
  let t: TestApp;
  before(async () => (t = await startTestApp(dialects[0]!)));
  after(async () => t?.close());

  const post = (payload: string) => t.request({ method: 'POST', url: '/v2/exports', headers: { 'content-type': 'application/json' }, payload });

  test('10,000 deep in export options is a 400 that names the place', async () => {
    const res = await post(`{"projectId": 1, "format": "coco", "options": {"deep": ${nested(10_000)}}}`);
    const problem = assertProblem(res, 400, 'VALIDATION');
    assert.match(problem.detail, new RegExp(`must not nest objects and lists more than ${MAX_NESTING} deep`));
    // The body is the first level, options the second, the outer list the third: the list one level
    // past the limit is the one named.
    assert.equal(problem.errors?.[0]?.pointer, `/options/deep${'/0'.repeat(MAX_NESTING - 2)}`);
  });

  test('10,000 deep in a DTL layer’s settings is a 400 that names the place', async () => {
    const config = `[{"action": "data", "src": ["p/*"], "dst": "$d", "settings": {"classes_mapping": ${nested(10_000)}}}, {"action": "save", "src": ["$d"], "dst": "out", "settings": {}}]`;
    const res = await post(`{"config": ${config}}`);
    const problem = assertProblem(res, 400, 'VALIDATION');
    assert.match(problem.detail, /must not nest objects and lists/);
    assert.ok(problem.errors?.[0]?.pointer?.startsWith('/config/0/settings/classes_mapping/0/0'), res.body);
  });

  test('options as deep as the limit allows are read (their refusal is the export’s own); one level more is not', async () => {
    const atLimit = assertProblem(await post(`{"projectId": 1, "format": "coco", "options": {"deep": ${nested(MAX_NESTING - 2)}}}`), 400, 'VALIDATION');
    assert.doesNotMatch(atLimit.detail, /must not nest/);
    const past = assertProblem(await post(`{"projectId": 1, "format": "coco", "options": {"deep": ${nested(MAX_NESTING - 1)}}}`), 400, 'VALIDATION');
    assert.match(past.detail, /must not nest/);
  });
});
