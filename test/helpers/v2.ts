// What tests of API v2 share: the problem details every error answers, checked whole, and the shape
// of a list page.
import assert from 'node:assert/strict';
import type { ProblemBody } from '../../src/http/v2/problem.ts';

export type { ListAnswer as List } from '../../src/http/schemas/v2.ts';
export type Problem = ProblemBody;

/** The parts of an answer the check reads (an inject answer or a fetched one made alike). */
interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/**
 * Checks that `res` is the problem details of `code` with `status` (RFC 9457, as docs/api-v2.md
 * words them) and answers them; with `pointer`, the first invalid field must be that one.
 */
export function assertProblem(res: Answer, status: number, code: string, options: { label?: string; pointer?: string } = {}): Problem {
  const label = options.label ?? '';
  assert.equal(res.statusCode, status, `${label} ${res.body}`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/, label);
  const body = JSON.parse(res.body) as Problem;
  assert.equal(body.status, status, label);
  assert.equal(body.code, code, label);
  assert.equal(body.type, `urn:annostore:problem:${code.toLowerCase().replaceAll('_', '-')}`, label);
  assert.equal(typeof body.title, 'string', label);
  assert.ok(typeof body.detail === 'string' && body.detail.length > 0, label);
  if (options.pointer !== undefined) assert.equal(body.errors?.[0]?.pointer, options.pointer, `${label} ${res.body}`);
  return body;
}
