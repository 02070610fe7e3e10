// s3rver on loopback for a benchmark, as test/helpers/s3.ts starts it, but on a folder of its own under
// .bench/ that outlives the run, so seeded objects are reused by the next one.
import fs from 'node:fs';
import type http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

interface S3rverServer {
  httpServer?: http.Server;
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}) => S3rverServer;

/** s3rver's built-in key pair; it rejects requests signed with any other. */
const S3RVER_CREDENTIALS = 'accessKeyId=S3RVER&secretAccessKey=S3RVER';
const BUCKET = 'annostore-bench';

export interface BenchS3 {
  /** STORAGE_URL of the bucket. */
  readonly url: string;
  /** The file s3rver keeps an object's bytes in. */
  objectFile(key: string): string;
  stop(): Promise<void>;
}

/** Starts s3rver on 127.0.0.1 (a free port) serving `directory`, which is kept when it stops. */
export async function startBenchS3(directory: string): Promise<BenchS3> {
  fs.mkdirSync(directory, { recursive: true });
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  return {
    url: `s3://${BUCKET}?endpoint=http://127.0.0.1:${port}&region=us-east-1&${S3RVER_CREDENTIALS}`,
    objectFile(key) {
      const parts = key.split('/');
      return path.join(directory, BUCKET, ...parts.slice(0, -1), `${parts[parts.length - 1]}._S3rver_object`);
    },
    async stop() {
      const closing = server.close();
      server.httpServer?.closeAllConnections();
      await closing;
    },
  };
}
