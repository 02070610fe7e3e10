// v2's errors are RFC 9457 problem details (`application/problem+json`). The same failures as v1's,
// read by the same toErrorReply, worded for v2: `type` names the catalogue entry, `code` is the
// catalogue's code, `detail` the message, and `errors` points at each invalid field (RFC 6901 JSON
// pointers into the part of the request named by `in`).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../../errors.ts';
import { logCause, toErrorReply } from '../plugins/error-handler.ts';

export const PROBLEM_TYPE = 'application/problem+json';

const TITLES: Record<ErrorCode, string> = {
  VALIDATION: 'The request is not valid',
  UNAUTHORIZED: 'No valid API key',
  FORBIDDEN: 'The API key may not do this',
  PROJECT_ROLE_REQUIRED: 'Your role in the project does not allow this',
  NOT_FOUND: 'Not found',
  CONFLICT: 'Conflict with the current state',
  GONE: 'Gone',
  PRECONDITION_FAILED: 'The resource has changed',
  PAYLOAD_TOO_LARGE: 'Too large',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type',
  RANGE_NOT_SATISFIABLE: 'Range not satisfiable',
  IDEMPOTENCY_KEY_REUSED: 'Idempotency-Key used for another request',
  RATE_LIMITED: 'Too many requests',
  INTERNAL: 'Internal error',
};

/** The `type` URI of a catalogue code; docs/api-v2.md lists them. */
export const problemType = (code: ErrorCode): string => `urn:annostore:problem:${code.toLowerCase().replaceAll('_', '-')}`;

/** Where a request's invalid value is: the part of the request, and an RFC 6901 pointer into it. */
export type RequestPart = 'body' | 'querystring' | 'params' | 'headers';

export interface FieldError {
  pointer: string;
  detail: string;
  in: RequestPart;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
  [extension: string]: unknown;
}

/** A field as the error details name it (`files.3.path`, `[2]`, `name`) as a JSON pointer. */
function pointerOf(field: string): string {
  const steps = field
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((step) => step !== '');
  return steps.map((step) => `/${step.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** Where a schema validation failed, as a pointer into the request part it checked. */
function validationPointer(error: unknown): string | undefined {
  const first = (error as FastifyError | null)?.validation?.[0];
  if (!first) return undefined;
  const params = first.params as { missingProperty?: string; additionalProperty?: string } | undefined;
  const member = params?.missingProperty ?? params?.additionalProperty;
  return `${first.instancePath}${member === undefined ? '' : pointerOf(member)}`;
}

const PARTS: readonly string[] = ['body', 'querystring', 'params', 'headers'];

/**
 * The part of the request a failed check was about: as the check said (`in`), as the schema's
 * validation said, else the body of a request that sends one and the query string of one that does not
 * (a check after the schema reads the members of what the route takes).
 */
function partOf(error: unknown, place: unknown, request: FastifyRequest): RequestPart {
  if (typeof place === 'string' && PARTS.includes(place)) return place as RequestPart;
  const context = (error as FastifyError | null)?.validationContext;
  if (context && PARTS.includes(context)) return context as RequestPart;
  return request.method === 'GET' || request.method === 'HEAD' || request.method === 'DELETE' ? 'querystring' : 'body';
}

export function toProblem(error: unknown, request: FastifyRequest): ProblemBody {
  const { status, body } = toErrorReply(error, request);
  const { message, field, pointer, errors, in: place, ...extensions } = body.details as { message: string; field?: unknown; pointer?: unknown; errors?: unknown; in?: unknown };
  // Extension members come first: one named like a standard member (a task's `status`) must not
  // replace it.
  const problem: ProblemBody = { ...extensions, type: problemType(body.error), title: TITLES[body.error], status, detail: message, code: body.error };
  const at = typeof pointer === 'string' ? pointer : (validationPointer(error) ?? (typeof field === 'string' ? pointerOf(field) : undefined));
  // A 400 always says where: each error its part of the request and a pointer into it (the whole
  // part, '', when the check was about all of it: a body that is no JSON, a multipart body cut short).
  if (body.error === 'VALIDATION' || at !== undefined || Array.isArray(errors)) {
    const part = partOf(error, place, request);
    problem.errors = Array.isArray(errors)
      ? (errors as Omit<FieldError, 'in'>[]).map((e) => ({ pointer: e.pointer, detail: e.detail, in: part }))
      : [{ pointer: at ?? '', detail: message, in: part }];
    problem.in = part;
  }
  return problem;
}

/** Answers `error` as problem details; only a failure of ours is logged as one. */
export function answerProblem(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const problem = toProblem(error, request);
  if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
  else logCause(error, request);
  void reply.code(problem.status).type(PROBLEM_TYPE).send(JSON.stringify(problem));
}

/** Under /v2: every error and unknown route answers problem details. */
export function registerProblems(app: FastifyInstance): void {
  app.setErrorHandler(answerProblem);
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .type(PROBLEM_TYPE)
      .send(
        JSON.stringify({
          type: problemType('NOT_FOUND'),
          title: TITLES.NOT_FOUND,
          status: 404,
          detail: `no route ${request.method} ${request.url.split('?')[0]}`,
          code: 'NOT_FOUND',
        } satisfies ProblemBody),
      );
  });
}
