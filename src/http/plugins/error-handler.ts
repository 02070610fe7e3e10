// One error handler and one not-found handler: every failure leaves as the contract's body
// `{error, details: {message}}`; 5xx answers never carry internal detail.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode, validation } from '../../errors.ts';
import { clientFault } from '../client-faults.ts';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'VALIDATION',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

interface ErrorReply {
  status: number;
  body: { error: ErrorCode; details: Record<string, unknown> };
}

function describeValidation(error: FastifyError): ErrorReply {
  const first = error.validation?.[0];
  const place = error.validationContext ?? 'request';
  const field = first?.instancePath ? first.instancePath.replace(/^\//, '').replaceAll('/', '.') : undefined;
  const missing = (first?.params as { missingProperty?: string } | undefined)?.missingProperty;
  const extra = (first?.params as { additionalProperty?: string } | undefined)?.additionalProperty;
  let message = `${place}${field ? `.${field}` : ''} ${first?.message ?? 'is invalid'}`;
  if (extra) message = `${place}${field ? `.${field}` : ''} has unknown member "${extra}"`;
  const details: Record<string, unknown> = { message, in: place };
  const named = missing ?? extra ?? field;
  if (named) details.field = named;
  return { status: 400, body: { error: 'VALIDATION', details } };
}

export function toErrorReply(error: unknown, request: FastifyRequest): ErrorReply {
  if (error instanceof AppError) return { status: error.status, body: { error: error.code, details: error.details } };
  const fault = clientFault(error, request);
  if (fault) return toErrorReply(fault, request);
  const fastifyError = error as FastifyError;
  if (fastifyError?.validation) return describeValidation(fastifyError);
  const status = fastifyError?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = CODE_BY_STATUS[status] ?? 'VALIDATION';
    return { status: CODE_BY_STATUS[status] ? status : 400, body: { error: code, details: { message: fastifyError.message } } };
  }
  return { status: ERROR_STATUS.INTERNAL, body: { error: 'INTERNAL', details: { message: 'internal error' } } };
}

/**
 * A refusal made of a library's failure (a decoder's, say) answers in our words; the library's own,
 * kept as the error's cause, goes to the log for whoever looks into it.
 */
export function logCause(error: unknown, request: FastifyRequest): void {
  if (error instanceof AppError && error.cause !== undefined) request.log.warn({ err: error.cause, code: error.code }, error.message);
}

/** Answers `error` with the contract's status and body; only a failure of ours is logged as one. */
export function answerError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { status, body } = toErrorReply(error, request);
  if (status >= 500) request.log.error({ err: error }, 'request failed');
  else logCause(error, request);
  // A JSON pointer is v2's way to say where (problem.ts); v1 names the place by `field` alone.
  const details = { ...body.details };
  delete details.pointer;
  // v1's contract knows one 403 code: a project role's refusal is a FORBIDDEN that says why in `reason`.
  if (body.error === 'PROJECT_ROLE_REQUIRED') {
    void reply.code(status).type('application/json').send({ error: 'FORBIDDEN', details: { ...details, reason: body.error } });
    return;
  }
  void reply.code(status).type('application/json').send({ ...body, details });
}

/**
 * `page`, when given, may answer an unknown path first (the web interface's "Not found" page for a
 * browser); it says false to leave it to the JSON 404.
 */
export function registerErrorHandling(app: FastifyInstance, page?: (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>): void {
  app.setErrorHandler(answerError);
  app.setNotFoundHandler(async (request, reply) => {
    if (page && (await page(request, reply))) return reply;
    return reply
      .code(404)
      .type('application/json')
      .send({ error: 'NOT_FOUND', details: { message: `no route ${request.method} ${request.url.split('?')[0]}` } });
  });
}

/** What Node's HTTP parser reports, by its code, in words for the client. */
function describeUnreadableRequest(code: string | undefined): AppError {
  switch (code) {
    case 'HPE_INVALID_EOF_STATE':
      return validation('the connection ended before the request was complete');
    case 'HPE_HEADER_OVERFLOW':
      return validation('the request line and headers are larger than the server accepts');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return validation('the request did not arrive in time');
    default:
      return validation('the request is not well-formed HTTP/1.1');
  }
}

/**
 * Fastify's clientErrorHandler: a connection whose bytes Node's HTTP parser cannot read (a broken
 * head, a chunked body that stops, a body cut short by the client's end of the connection). No
 * request exists to pass through the error handler, so the contract's answer is written here.
 */
export function answerUnreadableRequest(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ err: error }, 'unreadable request');
  const fault = describeUnreadableRequest(error.code);
  const body = JSON.stringify({ error: fault.code, details: fault.details });
  // As Node's own handler does: an answer already under way on this socket must not be corrupted.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent: boolean } | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.write(
      `HTTP/1.1 ${fault.status} ${STATUS_CODES[fault.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
