// One delivery attempt: a POST to the checked address (target-policy.ts) with the signed headers,
// bounded in time and in how much of the answer is read. Redirects are not followed: a 3xx is an
// answer like any other non-2xx, so a receiver cannot send the server on to an address it never checked.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedTarget } from './target-policy.ts';

/** How much of an answer's body is kept for the delivery list. */
export const RESPONSE_PREFIX_BYTES = 1024;

export interface AttemptResult {
  /** The answer's status, or null when none came (refused, timed out, reset). */
  status: number | null;
  /** The first RESPONSE_PREFIX_BYTES of the answer's body, as text. */
  body: string | null;
  /** Why no answer came. */
  error: string | null;
  durationMs: number;
}

export const isSuccess = (result: AttemptResult): boolean => result.status !== null && result.status >= 200 && result.status < 300;

// PostgreSQL's text cannot hold NUL; an answer is kept to be read by a person anyway.
const textOf = (bytes: Buffer): string => bytes.toString('utf8').replaceAll('\u0000', '');

/** A lookup that answers the checked address whatever it is asked: no second resolution can differ. */
function pinnedLookup(target: ResolvedTarget): LookupFunction {
  return (_host, options, callback) => {
    if (options.all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

export function postOnce(target: ResolvedTarget, headers: Record<string, string>, body: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const send = target.url.protocol === 'https:' ? https.request : http.request;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const settle = (result: Omit<AttemptResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ ...result, durationMs: elapsed() });
      request.destroy();
    };
    const request = send(target.url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      lookup: pinnedLookup(target),
      // A fresh connection per attempt: a pooled one could have been opened to another address.
      agent: false,
    });
    const timer = setTimeout(() => settle({ status: null, body: null, error: `no answer within ${options.timeoutMs} ms` }), options.timeoutMs);
    const onAbort = () => settle({ status: null, body: null, error: 'the worker stopped during the attempt' });
    // A signal already raised fires no event: settle at once.
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error: NodeJS.ErrnoException) => settle({ status: null, body: null, error: error.code ? `${error.code}: ${error.message}` : error.message }));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const done = () => settle({ status: response.statusCode ?? null, body: textOf(Buffer.concat(chunks).subarray(0, RESPONSE_PREFIX_BYTES)), error: null });
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        kept += chunk.length;
        // Enough for the list: the rest of a large answer is not waited for.
        if (kept >= RESPONSE_PREFIX_BYTES) done();
      });
      response.on('end', done);
      response.on('error', done);
    });
    request.end(body);
  });
}
