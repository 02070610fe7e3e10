// What a connection may cost the server. A client that sends its request a byte now and then, or stops
// reading its answer, holds a connection (a file descriptor, memory) for as long as it likes unless
// something cuts it; enough of them exhaust the process's descriptors and every other client is
// refused. Four rules (ConnectionSettings, README's configuration table):
// - the request line and headers must arrive within HEADERS_TIMEOUT_MS (Node's headersTimeout);
// - while the server waits on the client (a request body, an answer to be read), IDLE_TIMEOUT_MS
//   without a byte closes the connection. Every byte restarts it, so a slow upload that keeps moving
//   is never cut; a server busy with the answer (a long query, a slow store) is not the client's idleness;
// - between requests a connection waits KEEP_ALIVE_TIMEOUT_MS for the next one;
// - at most MAX_CONNECTIONS are open: a new one past it takes the place of the one that waits longest
//   on its client (idle between requests first, then the slowest body), so a flood of slow clients
//   pushes itself out while the others are answered; with none waiting, the new one is refused.
// An answer given before its request's body has arrived (a 401, a 413) closes the connection, rather
// than reading the rest of the body, however slowly it comes, only to throw it away.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ConnectionSettings } from '../config.ts';

interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  startedAt: number;
  bytesReadBefore: number;
}

interface Connection {
  /** The request being answered, if any. */
  exchange: Exchange | null;
  /** Since when nothing has been in progress on it (opened, or the last answer ended). */
  idleSince: number;
}

/** A request that announced a body (a length above 0, or chunks) and whose body has not all arrived. */
export function bodyStillArriving(request: IncomingMessage): boolean {
  // Only Node's own requests say; an injected one (app.inject) has its body whole from the start.
  if (request.complete !== false) return false;
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Whether the connection's silence is its client's doing: nothing in progress, a body that stopped
 * coming (and not because the server stopped reading it), or an answer the client stopped reading.
 */
function waitsOnClient(socket: Socket, connection: Connection): boolean {
  const exchange = connection.exchange;
  if (exchange === null) return true;
  if (bodyStillArriving(exchange.request)) return exchange.request.readableLength === 0;
  return socket.writableLength > 0;
}

/** Bytes a second the exchange's request has brought since it began: how slow its client is. */
function readRate(socket: Socket, exchange: Exchange, now: number): number {
  return (socket.bytesRead - exchange.bytesReadBefore) / Math.max(1, now - exchange.startedAt);
}

/**
 * The connection to close to make way for a new one: the longest idle of those with nothing in
 * progress, else the slowest of those whose body is still arriving; null when every one is being
 * answered (the new one is refused then).
 */
function connectionToClose(connections: Map<Socket, Connection>, newcomer: Socket): Socket | null {
  const now = Date.now();
  let idle: Socket | null = null;
  let idleSince = Infinity;
  let slow: Socket | null = null;
  let slowest = Infinity;
  for (const [socket, connection] of connections) {
    if (socket === newcomer || !waitsOnClient(socket, connection)) continue;
    const exchange = connection.exchange;
    if (exchange === null) {
      if (connection.idleSince < idleSince) [idle, idleSince] = [socket, connection.idleSince];
    } else {
      const rate = readRate(socket, exchange, now);
      if (rate < slowest) [slow, slowest] = [socket, rate];
    }
  }
  return idle ?? slow;
}

/** Node's own check of header deadlines runs this often: a fraction of the timeout, at most a second. */
const checkingInterval = (headersTimeoutMs: number): number => Math.min(1000, Math.max(10, Math.floor(headersTimeoutMs / 4)));

/** Sets the rules above on the app's server; it must not be listening yet. */
export function guardConnections(app: FastifyInstance, settings: ConnectionSettings): void {
  const server: Server = app.server;
  server.headersTimeout = settings.headersTimeoutMs;
  // Read when the server starts listening (a createServer option, missing from Node's types as a
  // property); Node's default (30 s) would let a head run long past its timeout.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = checkingInterval(settings.headersTimeoutMs);
  server.keepAliveTimeout = settings.keepAliveTimeoutMs;
  // No total time for a request: it would cut a large upload however well it moves.
  server.requestTimeout = 0;
  server.setTimeout(settings.idleTimeoutMs);

  const connections = new Map<Socket, Connection>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { exchange: null, idleSince: Date.now() });
    socket.once('close', () => connections.delete(socket));
    if (connections.size <= settings.maxConnections) return;
    const victim = connectionToClose(connections, socket);
    app.log.debug({ open: connections.size, evicted: victim !== null }, 'connection limit reached');
    (victim ?? socket).destroy();
    // 'close' comes later: the count must hold now, for the next connection of the same burst.
    connections.delete(victim ?? socket);
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const connection = connections.get(socket);
    if (connection === undefined) return;
    const exchange: Exchange = { request, response, startedAt: Date.now(), bytesReadBefore: socket.bytesRead };
    connection.exchange = exchange;
    const ended = () => {
      if (connection.exchange !== exchange) return;
      connection.exchange = null;
      connection.idleSince = Date.now();
    };
    response.once('finish', ended);
    response.once('close', ended);
  });
  // With a listener here, Node no longer closes a silent connection by itself: this decides.
  server.on('timeout', (socket: Socket) => {
    const connection = connections.get(socket);
    if (connection === undefined || waitsOnClient(socket, connection)) socket.destroy();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (bodyStillArriving(request.raw)) void reply.header('connection', 'close');
    done(null, payload);
  });
}
