// How the S3 client treats its connections: when it stops reusing an idle one, and which failures
// mean the connection was lost rather than that the server answered.

/**
 * The client closes a kept-alive connection after this long idle, so that it never sends on one the
 * server is closing: a request written to a connection the server has just closed, before the client
 * has read that close, fails with "socket hang up" (ECONNRESET), and the SDK does not send an upload
 * whose body is a stream again. Node's HTTP agent heeds a server's `Keep-Alive: timeout=N` (keeping the
 * connection N − 1 s) only when it has an idle timeout of its own, and the SDK's agent has none: it
 * kept connections until the server closed them. s3rver (Node's HTTP server) announces 5 s and, on
 * Node 20, closes after 6 s. Streamed PUTs sent to it from another process around that moment failed
 * 9 to 29 times in each run of 64 to 80 with the SDK's agent, and in none of 288 with this timeout.
 * 4 s is also undici's default, below the 5 s of Node's servers that announce nothing; other servers
 * keep idle connections longer, and after 4 s of quiet a new connection costs one handshake.
 */
export const IDLE_SOCKET_MS = 4_000;

/**
 * The agent options the S3 client is built with; keep-alive and 50 sockets stay the SDK's. An agent's
 * timeout closes idle connections only: a request slower than that is not cut short.
 */
export const s3RequestHandler = {
  httpAgent: { timeout: IDLE_SOCKET_MS },
  httpsAgent: { timeout: IDLE_SOCKET_MS },
};

const LOST_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'ECONNABORTED']);

/**
 * The request failed because its connection was dropped, refused or timed out, before any answer:
 * sending it again on another connection is safe for an idempotent request. An error that carries
 * an HTTP status is the server's answer (a 4xx such as a refused signature, or a 5xx) and is not one.
 * The SDK renames such socket errors to TimeoutError but keeps their code.
 */
export function isConnectionFault(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; $metadata?: { httpStatusCode?: number } } | null;
  if (typeof e !== 'object' || e === null) return false;
  if (e.$metadata?.httpStatusCode !== undefined) return false;
  return (typeof e.code === 'string' && LOST_CONNECTION_CODES.has(e.code)) || /socket hang up/i.test(String(e.message));
}
