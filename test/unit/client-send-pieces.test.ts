// The client's upload transport: every piece arrives in order with the declared length, a Blob is
// streamed from disk, an answer the server gives before it read the body is still the answer, and a
// server that is not there is a connection error.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sendPieces } from '../../src/client/send-pieces.ts';
import { freePort } from '../helpers/server-process.ts';

let server: http.Server;
let url: string;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annostore-send-'));

before(async () => {
  server = http.createServer((request, response) => {
    if (request.url === '/refuse') {
      // Answers at once and does not read the body.
      response.writeHead(413, { 'content-type': 'application/json', 'retry-after': '7' }).end('{"error":"too large"}');
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ length: request.headers['content-length'], type: request.headers['content-type'], body: body.toString('base64') }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const signal = () => AbortSignal.timeout(10_000);

test('sends every piece in order, Blobs streamed, with the length declared', async () => {
  const onDisk = randomBytes(300_000);
  fs.writeFileSync(path.join(dir, 'big.bin'), onDisk);
  const pieces = [Buffer.from('head\r\n'), await fs.openAsBlob(path.join(dir, 'big.bin')), randomBytes(5_000_000), Buffer.alloc(0), Buffer.from('\r\ntail')];
  const length = pieces.reduce((n, p) => n + (p instanceof Blob ? p.size : p.length), 0);
  const answer = await sendPieces(`${url}/echo`, { method: 'POST', headers: { 'content-type': 'text/plain' }, pieces, length, signal: signal() });
  assert.equal(answer.ok, true);
  assert.equal(answer.status, 200);
  const echoed = JSON.parse(await answer.text()) as { length: string; type: string; body: string };
  assert.equal(echoed.length, String(length));
  assert.equal(echoed.type, 'text/plain');
  const expected = Buffer.concat(await Promise.all(pieces.map(async (p) => (p instanceof Blob ? Buffer.from(await p.arrayBuffer()) : p))));
  assert.ok(Buffer.from(echoed.body, 'base64').equals(expected));
});

test('an answer given before the body was read is the answer, headers and all', async () => {
  const pieces = [randomBytes(8 * 1024 * 1024)];
  const answer = await sendPieces(`${url}/refuse`, { method: 'POST', headers: {}, pieces, length: pieces[0]!.length, signal: signal() });
  assert.equal(answer.ok, false);
  assert.equal(answer.status, 413);
  assert.equal(answer.headers.get('retry-after'), '7');
  assert.deepEqual(JSON.parse(await answer.text()), { error: 'too large' });
});

test('no server: rejects with the connection error', async () => {
  const port = await freePort();
  await assert.rejects(
    sendPieces(`http://127.0.0.1:${port}/`, { method: 'POST', headers: {}, pieces: [Buffer.from('x')], length: 1, signal: signal() }),
    { code: 'ECONNREFUSED' },
  );
});
