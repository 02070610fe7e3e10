// A Server-Sent Events answer (text/event-stream, WHATWG HTML §9.2): the reply taken over from
// Fastify, events written as they come, and a comment line now and then so that proxies and load
// balancers do not close a connection that is quiet only because nothing happened.
import type { FastifyReply } from 'fastify';
import { NOSNIFF } from '../plugins/security-headers.ts';

/** How often a quiet stream sends a comment; well under the usual proxy idle timeouts (60 s). */
export const HEARTBEAT_MS = 15_000;

export interface EventStream {
  /** Sends one event; `data` goes as one line of JSON. `id` (no line breaks) is numbered 1, 2, … when not given. */
  send(event: string, data: unknown, id?: string): void;
  /** Ends the answer (the client sees the stream close). */
  close(): void;
  /** Aborted once the client has gone or close() was called: the work behind the stream stops. */
  readonly signal: AbortSignal;
}

export function openEventStream(reply: FastifyReply, options: { heartbeatMs?: number } = {}): EventStream {
  const raw = reply.raw;
  const controller = new AbortController();
  reply.hijack();
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // nginx buffers answers unless told not to.
    'x-accel-buffering': 'no',
    ...NOSNIFF,
  });
  raw.flushHeaders();
  let nextId = 1;
  const heartbeat = setInterval(() => raw.write(': heartbeat\n\n'), options.heartbeatMs ?? HEARTBEAT_MS);
  const stop = () => {
    clearInterval(heartbeat);
    controller.abort();
  };
  raw.once('close', stop);
  // A client gone before this listener was added has already had its 'close'.
  if (raw.destroyed) stop();
  return {
    signal: controller.signal,
    send(event, data, id) {
      if (raw.writableEnded || raw.destroyed) return;
      raw.write(`event: ${event}\nid: ${id ?? nextId++}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    close() {
      stop();
      if (!raw.writableEnded) raw.end();
    },
  };
}
