// A webhook receiver on loopback, as a team would run one: it checks every delivery's signature with
// the Standard Webhooks library and keeps what arrived. It can be told to fail (503), to hold requests
// open without answering, or be closed and opened again on the same port.
import http from 'node:http';
import { once } from 'node:events';
import type net from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  messageId: string;
  type: string;
  data: Record<string, unknown>;
  /** Whether one of the known secrets verified the signature. */
  verified: boolean;
  at: number;
}

export type ReceiverMode = 'ok' | 'fail' | 'hold';

export interface WebhookReceiver {
  url: string;
  /** Every request that reached the receiver, answered or not. */
  readonly received: Received[];
  /** Secrets to verify with (one per webhook that sends here). */
  readonly secrets: string[];
  mode: ReceiverMode;
  /** Answered with a 2xx: what a receiver would process. */
  accepted(): Received[];
  /** Resolves when a request is held (mode `hold`). */
  nextHeld(): Promise<Received>;
  /** Stops listening (the port refuses connections) and drops held requests. */
  close(): Promise<void>;
  /** Listens again on the same port. */
  open(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<WebhookReceiver> {
  const accepted: Received[] = [];
  const received: Received[] = [];
  const secrets: string[] = [];
  const sockets = new Set<net.Socket>();
  let heldWaiters: ((r: Received) => void)[] = [];

  const verify = (body: string, headers: http.IncomingHttpHeaders): boolean => {
    const plain = { 'webhook-id': String(headers['webhook-id']), 'webhook-timestamp': String(headers['webhook-timestamp']), 'webhook-signature': String(headers['webhook-signature']) };
    return secrets.some((secret) => {
      try {
        new Webhook(secret).verify(body, plain);
        return true;
      } catch {
        return false;
      }
    });
  };

  const receiver: WebhookReceiver = {
    url: '',
    received,
    secrets,
    mode: 'ok',
    accepted: () => accepted,
    nextHeld: () => new Promise((resolve) => heldWaiters.push(resolve)),
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
    async open() {
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as { type: string; data: Record<string, unknown> };
      const entry: Received = { messageId: String(request.headers['webhook-id']), type: parsed.type, data: parsed.data, verified: verify(body, request.headers), at: Date.now() };
      received.push(entry);
      if (receiver.mode === 'hold') {
        const waiters = heldWaiters;
        heldWaiters = [];
        for (const wake of waiters) wake(entry);
        return; // never answered
      }
      if (receiver.mode === 'fail') {
        response.writeHead(503).end('down for maintenance');
        return;
      }
      accepted.push(entry);
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`thanks for ${entry.messageId}`);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as net.AddressInfo).port;
  receiver.url = `http://127.0.0.1:${port}/hooks`;
  return receiver;
}

/** Each distinct webhook-id once: what a receiver that drops repeats processes. */
export const uniqueByMessage = (entries: readonly Received[]): Map<string, Received> => new Map(entries.map((e) => [e.messageId, e]));
