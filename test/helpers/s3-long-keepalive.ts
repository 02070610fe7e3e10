// s3rver on loopback, as startS3 in s3.ts, but keeping idle connections open for a minute.
//
// Node's HTTP server closes an idle keep-alive connection after 5 s, and the S3 client may send a
// request on such a connection just as it closes. The SDK retries most requests, but not an upload
// whose body is a file stream (S3BlobStore.putFile), which then fails with "socket hang up". Tests
// that load the store from several processes for minutes use this server so that race stays out.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { S3Server } from './s3.ts';

interface S3rverServer {
  httpServer?: http.Server;
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: object) => S3rverServer;

export async function startS3LongKeepAlive(): Promise<S3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'annostore-s3rver-'));
  const bucket = `annostore-${randomBytes(6).toString('hex')}`;
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  if (server.httpServer) {
    server.httpServer.keepAliveTimeout = 60_000;
    server.httpServer.headersTimeout = 65_000;
  }
  return {
    url: `s3://${bucket}?endpoint=http://127.0.0.1:${port}&region=us-east-1&accessKeyId=S3RVER&secretAccessKey=S3RVER`,
    async stop() {
      const closing = server.close();
      server.httpServer?.closeAllConnections();
      await closing;
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
