// One error handler and one not-found handler: every failure leaves as the contract's body
// `{error, details: {message}}`; 5xx answers never carry internal detail.
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode } from '../../errors.ts';
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

export function toErrorReply(error: unknown): ErrorReply {
  if (error instanceof AppError) return { status: error.status, body: { error: error.code, details: error.details } };
  const fault = clientFault(error);
  if (fault) return toErrorReply(fault);
  const fastifyError = error as FastifyError;
  if (fastifyError?.validation) return describeValidation(fastifyError);
  const status = fastifyError?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = CODE_BY_STATUS[status] ?? 'VALIDATION';
    return { status: CODE_BY_STATUS[status] ? status : 400, body: { error: code, details: { message: fastifyError.message } } };
  }
  return { status: ERROR_STATUS.INTERNAL, body: { error: 'INTERNAL', details: { message: 'internal error' } } };
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const { status, body } = toErrorReply(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    void reply.code(status).type('application/json').send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .type('application/json')
      .send({ error: 'NOT_FOUND', details: { message: `no route ${request.method} ${request.url.split('?')[0]}` } });
  });
}
