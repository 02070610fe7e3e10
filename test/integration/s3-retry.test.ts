// How the S3 store treats its connections, against a plain HTTP server standing in for S3: a streamed
// upload that meets a dropped connection is sent again with a fresh stream, and an answer from the
// server is not.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { S3BlobStore } from '../../src/storage/s3-blob-store.ts';
import { hashOf } from '../helpers/factories.ts';
import { waitFor } from '../helpers/wait.ts';

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annostore-s3retry-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A file of `size` random bytes, larger than one read of a file stream unless told otherwise. */
function localFile(size = 1024 * 1024): { file: string; bytes: Buffer; hash: string } {
  const bytes = randomBytes(size);
  const file = path.join(dir, `${randomBytes(6).toString('hex')}.bin`);
  fs.writeFileSync(file, bytes);
  return { file, bytes, hash: hashOf(bytes) };
}

/** Descriptors this process holds open on `file`, where the system lists them (/proc). */
function openDescriptors(file: string): number | undefined {
  if (!fs.existsSync('/proc/self/fd')) return undefined;
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false; // closed while listed
    }
  }).length;
}

/** A stand-in for S3 on loopback, and a store pointed at it. */
async function withServer(handler: http.RequestListener, run: (store: S3BlobStore, server: http.Server) => Promise<void>): Promise<void> {
  const server = http.createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const store = S3BlobStore.fromUrl(`s3://bucket?endpoint=http://127.0.0.1:${port}&region=us-east-1&accessKeyId=a&secretAccessKey=b`);
  try {
    await run(store, server);
  } finally {
    await store.close();
    server.closeAllConnections();
    server.close();
  }
}

const s3Error = (res: http.ServerResponse, status: number, code: string) =>
  res.writeHead(status, { 'content-type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`);

test('putFile sends the whole file again when its connection was dropped, and keeps no file open', async () => {
  const { file, bytes, hash } = localFile();
  const received: Buffer[] = [];
  let requests = 0;
  await withServer(
    (req, res) => {
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
    },
    async (store) => {
      await store.putFile(hash, file);
      assert.equal(requests, 2);
      assert.equal(received.length, 1);
      assert.ok(received[0]!.equals(bytes), 'the second request carried the whole file');
      // A destroyed stream closes its descriptor a moment later, on the thread pool.
      if (openDescriptors(file) !== undefined) await waitFor('no stream of a failed request to hold the file open', () => openDescriptors(file) === 0, 2000);
    },
  );
});

test('putFile does not send again what the server answered: a refused signature, a server error', async () => {
  for (const [status, code] of [
    [403, 'SignatureDoesNotMatch'],
    [503, 'SlowDown'],
  ] as const) {
    const { file, hash } = localFile(1000);
    let requests = 0;
    await withServer(
      (req, res) => {
        requests += 1;
        req.resume().on('end', () => s3Error(res, status, code));
      },
      async (store) => {
        await assert.rejects(store.putFile(hash, file), (error: { name?: string; $metadata?: { httpStatusCode?: number } }) => {
          assert.equal(error.$metadata?.httpStatusCode, status);
          assert.equal(error.name, code);
          return true;
        });
        assert.equal(requests, 1, `a ${status} is sent once`);
      },
    );
  }
});
