// Failures the client caused that the libraries under us report as plain errors, without a status: a
// multipart body that is malformed or ends before its closing boundary, a multipart Content-Type
// without a usable boundary, a connection that went away while its body was being read. They are
// recognised here, in one place, and become the contract's VALIDATION instead of passing for a 500.
import type { FastifyRequest } from 'fastify';
import { type AppError, validation } from '../errors.ts';
import { unusableBoundary } from './multipart-boundary.ts';

// @fastify/busboy gives its errors no code; these messages are all it says about a body it cannot read.
const CUT_SHORT = [/^Unexpected end of multipart data$/, / terminated early due to unexpected end of multipart data$/];
// A boundary busboy cannot search for: none at all, or longer than its 256-byte search window. The
// upload route refuses such a header before busboy reads it; these hold where the two read it apart.
const NO_BOUNDARY = [/^Multipart: Boundary not found$/, /^Boundary required$/, /^The needle cannot /];

/** What a request stream fails with when its client goes away before the body is complete. */
const CONNECTION_LOST = new Set(['ECONNRESET', 'ERR_STREAM_PREMATURE_CLOSE', 'FST_MP_PREMATURE_CLOSE', 'ABORT_ERR']);

const matches = (patterns: RegExp[], message: string) => patterns.some((pattern) => pattern.test(message));

/** The request's connection is closed: nobody is there to read an answer. */
function clientIsGone(request: FastifyRequest): boolean {
  return request.raw.destroyed || request.raw.socket?.destroyed === true;
}

/** The contract's error for a failure that is the client's doing, or null for any other failure. */
export function clientFault(error: unknown, request: FastifyRequest): AppError | null {
  if (!(error instanceof Error)) return null;
  const code = (error as NodeJS.ErrnoException).code;
  // An error without a code is not one of the system's or Fastify's; only busboy's messages are matched.
  if (code === undefined && matches(CUT_SHORT, error.message)) {
    return validation('the multipart body is malformed or ends before its closing boundary');
  }
  if (code === undefined && matches(NO_BOUNDARY, error.message)) return unusableBoundary();
  // A reset elsewhere (the database, S3) while the client is still there stays a failure of ours.
  if (clientIsGone(request) && (CONNECTION_LOST.has(code ?? '') || error.name === 'AbortError')) {
    return validation('the connection closed before the request body was complete');
  }
  return null;
}
