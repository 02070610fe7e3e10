// A streamed upload that meets a dropped connection is sent again with a fresh stream.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { S3BlobStore } from '../../src/storage/s3-blob-store.ts';

test('putFile retries a PUT whose connection was dropped, sending the whole file again', async () => {
  const received: Buffer[] = [];
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    if (requests === 1) {
      req.socket.destroy(); // the server closed the connection under the request
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Buffer.concat(chunks));
      res.writeHead(200, { etag: '"x"' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annostore-s3retry-'));
  const file = path.join(dir, 'blob');
  const bytes = Buffer.from('bytes that must arrive whole, once');
  fs.writeFileSync(file, bytes);
  const store = S3BlobStore.fromUrl(`s3://bucket?endpoint=http://127.0.0.1:${port}&region=us-east-1&accessKeyId=a&secretAccessKey=b`);
  try {
    await store.putFile(createHash('sha256').update(bytes).digest('base64'), file);
    assert.equal(requests, 2);
    assert.deepEqual(received, [bytes]);
  } finally {
    await store.close();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
