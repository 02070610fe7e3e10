// Sends a request whose body is a list of pieces through node:http, each piece written to the socket
// as it is. fetch copies a body on its way out (into a web stream, then each chunk again), which for
// uploads of a hundred images a request cost the client more CPU and memory than reading the files.
import http from 'node:http';
import https from 'node:https';

/** What the client reads of an answer, as fetch's Response gives it. */
export interface Answer {
  ok: boolean;
  status: number;
  headers: Headers;
  text(): Promise<string>;
}

/** Resolves once the request can take more, or is gone (an early answer or an abort destroys it). */
function drainedOrClosed(request: http.ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      request.off('drain', done);
      request.off('close', done);
      resolve();
    };
    request.on('drain', done);
    request.on('close', done);
  });
}

async function writePieces(request: http.ClientRequest, pieces: readonly (Buffer | Blob)[]): Promise<void> {
  for (const piece of pieces) {
    const chunks = Buffer.isBuffer(piece) ? [piece] : piece.stream();
    for await (const chunk of chunks) {
      if (request.destroyed) return;
      if (!request.write(chunk)) await drainedOrClosed(request);
    }
  }
  if (!request.destroyed) request.end();
}

function headersOf(incoming: http.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/**
 * Sends `pieces` (`length` bytes in all) and answers once the whole answer is read. Rejects on a
 * connection failure or when `signal` aborts; an answer that comes before the body is all sent (a 413,
 * say) is still the answer.
 */
export function sendPieces(
  url: string,
  options: { method: string; headers: Record<string, string>; pieces: readonly (Buffer | Blob)[]; length: number; signal: AbortSignal },
): Promise<Answer> {
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let answered = false;
    let sent = false;
    const request = transport.request(target, {
      method: options.method,
      headers: { ...options.headers, 'content-length': String(options.length) },
      signal: options.signal,
    });
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    request.once('response', (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => {
        // The server answered without reading all of the body: this connection cannot carry another request.
        if (!sent) request.destroy();
        const body = Buffer.concat(chunks).toString('utf8');
        const status = response.statusCode ?? 0;
        resolve({ ok: status >= 200 && status < 300, status, headers: headersOf(response.headers), text: async () => body });
      });
    });
    writePieces(request, options.pieces).then(
      () => {
        sent = true;
      },
      (error: unknown) => {
        // Once answered, the server no longer wants the rest of the body.
        if (!answered) request.destroy(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
