// HTTP/1.1 written byte by byte on a plain TCP connection, for what no well-behaved client sends: a
// body shorter than its Content-Length, a chunked body that stops, a connection dropped mid-upload.
import type { FastifyInstance } from 'fastify';
import net, { type AddressInfo } from 'node:net';

export interface RawConnection {
  socket: net.Socket;
  /** Everything the server sent, once the connection is closed (by either side). */
  answer: Promise<string>;
}

/** Starts the app listening on a free loopback port, if it is not listening yet, and answers the port. */
export async function listeningPort(app: FastifyInstance): Promise<number> {
  if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

export function connect(port: number): RawConnection {
  const socket = net.connect(port, '127.0.0.1');
  const answer = new Promise<string>((resolve) => {
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    // A reset from the server is an answer too: whatever came before it is what the client saw.
    socket.on('error', () => {});
    socket.on('close', () => resolve(Buffer.concat(received).toString('utf8')));
  });
  return { socket, answer };
}

/** Resolves once `bytes` are handed to the system, so the server can receive them. */
export function write(socket: net.Socket, bytes: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => socket.write(bytes, (error) => (error ? reject(error) : resolve())));
}

/** The head of a request: request line and headers, ending with the empty line. */
export function requestHead(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** One chunk of a chunked body. */
export function chunk(bytes: string | Buffer): Buffer {
  const data = Buffer.from(bytes);
  return Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The first answer in what the server sent (null if it sent nothing); assumes a Content-Length body. */
export function parseAnswer(text: string): RawAnswer | null {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...headerLines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = Buffer.from(text.slice(end + 4));
  const length = headers['content-length'] === undefined ? rest.length : Number(headers['content-length']);
  return { status: Number(statusLine!.split(' ')[1]), headers, body: rest.subarray(0, length).toString('utf8') };
}
