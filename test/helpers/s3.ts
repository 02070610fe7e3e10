// Blob store tests run on each store: the local folder and S3, served by s3rver on loopback with its
// own folder and bucket per start.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../../src/config.ts';
import { parseS3Url } from '../../src/storage/s3-blob-store.ts';

// s3rver ships without types; this is the part of it the tests use.
interface S3rverOptions {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}
interface S3rverServer {
  httpServer?: http.Server;
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: S3rverOptions) => S3rverServer;

/** s3rver's built-in key pair; it rejects requests signed with any other. */
const S3RVER_CREDENTIALS = 'accessKeyId=S3RVER&secretAccessKey=S3RVER';

export interface S3Server {
  /** A STORAGE_URL for the fresh bucket: `s3://bucket?endpoint=http://127.0.0.1:PORT&region=us-east-1&…`. */
  url: string;
  stop(): Promise<void>;
}

/** Starts s3rver on 127.0.0.1 (a free port) with a fresh folder holding one empty bucket. */
export async function startS3(): Promise<S3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'annostore-s3rver-'));
  const bucket = `annostore-${randomBytes(6).toString('hex')}`;
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  let port: number;
  try {
    ({ port } = await server.run());
  } catch (error) {
    fs.rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `s3://${bucket}?endpoint=http://127.0.0.1:${port}&region=us-east-1&${S3RVER_CREDENTIALS}`,
    async stop() {
      const closing = server.close();
      // Kept-alive SDK sockets would otherwise hold the server (and the test process) open.
      server.httpServer?.closeAllConnections();
      await closing;
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * How long the server behind a STORAGE_URL keeps an idle kept-alive connection before closing it,
 * measured on one request. Node's server (s3rver's) announces `Keep-Alive: timeout=5`, and Node 20
 * closes the connection a second after that.
 */
export async function idleCloseMs(storageUrl: string): Promise<number> {
  const endpoint = new URL(parseS3Url(storageUrl).endpoint!);
  // No idle timeout of its own: the connection stays until the server closes it.
  const agent = new http.Agent({ keepAlive: true });
  try {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const request = http.get({ host: endpoint.hostname, port: endpoint.port, path: '/', agent }, (response) => {
        response.on('end', () => resolve(request.socket!)).resume();
      });
      request.on('error', reject);
    });
    const idleSince = Date.now();
    await once(socket, 'close');
    return Date.now() - idleSince;
  } finally {
    agent.destroy();
  }
}

export interface StoreSetup {
  /** What to pass to loadConfig or a dialect's freshConfig: `{ storageUrl }` for S3, nothing for fs. */
  overrides: Partial<Config>;
  /** Stops what setup started. */
  cleanup(): Promise<void>;
}

export interface StoreCase {
  name: 'fs' | 's3';
  /** Starts what the store needs; the fs store lives in the config's dataDir and needs nothing. */
  setup(): Promise<StoreSetup>;
}

export const storeCases: StoreCase[] = [
  {
    name: 'fs',
    setup: async () => ({ overrides: {}, cleanup: async () => {} }),
  },
  {
    name: 's3',
    async setup() {
      const s3 = await startS3();
      return { overrides: { storageUrl: s3.url }, cleanup: () => s3.stop() };
    },
  },
];
