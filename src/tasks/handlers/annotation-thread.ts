// Runs inside an annotation thread (see annotation-threads.ts): reads annotation files from the blob
// store the request names and prepares each one, and on SQLite looks up the facts of the batch's image
// blobs, a query that would otherwise hold up the task's thread. One store and one database connection
// per location, kept for the thread's life.
import { parentPort } from 'node:worker_threads';
import { mapLimited } from '../../concurrency.ts';
import type { Config } from '../../config.ts';
import { type Db, createDb } from '../../db/create-db.ts';
import type { ProjectMeta } from '../../formats/supervisely/index.ts';
import { blobsByHash } from '../../repositories/staging.repository.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { createBlobStore } from '../../storage/create-blob-store.ts';
import { FsBlobStore } from '../../storage/fs-blob-store.ts';
import { type Preparation, prepareAnnotation } from './annotation-preparation.ts';
import { type PackedPreparations, packFacts, packPreparations } from './thread-replies.ts';

export interface ThreadRequest {
  id: number;
  config: Config;
  meta: ProjectMeta;
  /** Annotation files to prepare. */
  hashes: string[];
  /** Image blobs to look up (SQLite only). */
  blobHashes: string[];
}

/** `blobs`: the facts of `blobHashes`, packed (thread-replies.ts). */
export type ThreadReply = { id: number; preparations: PackedPreparations; blobs: Float64Array } | { id: number; error: string };

/** Files read at once by one thread from a store that is not a local folder. */
const READS_AT_ONCE = 16;
/**
 * A local folder's files are read one after another into this buffer (prepareAnnotation keeps
 * nothing of the bytes it is given); one larger gets a buffer of its own.
 */
const scratch = Buffer.allocUnsafe(256 * 1024);

const stores = new Map<string, Promise<BlobStore>>();

const databases = new Map<string, Promise<Db>>();

function databaseFor(config: Config): Promise<Db> {
  let db = databases.get(config.dataDir);
  if (!db) databases.set(config.dataDir, (db = createDb(config)));
  return db;
}

function storeFor(config: Config): Promise<BlobStore> {
  const key = JSON.stringify([config.storageUrl ?? null, config.dataDir]);
  let store = stores.get(key);
  if (!store) stores.set(key, (store = createBlobStore(config)));
  return store;
}

async function prepareAll(request: ThreadRequest): Promise<Preparation[]> {
  const store = await storeFor(request.config);
  // Blocking is free here: this thread has nothing else to do meanwhile.
  if (store instanceof FsBlobStore) return request.hashes.map((hash) => prepareAnnotation(store.readBytesSync(hash, scratch), request.meta));
  return mapLimited(request.hashes, READS_AT_ONCE, async (hash) => prepareAnnotation(await store.readBytes(hash), request.meta));
}

async function lookUpBlobs(request: ThreadRequest): Promise<Float64Array> {
  if (request.blobHashes.length === 0) return new Float64Array(0);
  return packFacts(request.blobHashes, await blobsByHash((await databaseFor(request.config)).kysely, request.blobHashes));
}

async function answer(request: ThreadRequest): Promise<ThreadReply> {
  const blobs = await lookUpBlobs(request);
  return { id: request.id, preparations: packPreparations(await prepareAll(request)), blobs };
}

parentPort!.on('message', (request: ThreadRequest) => {
  answer(request).then(
    (reply) => parentPort!.postMessage(reply),
    (error: unknown) => parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies ThreadReply),
  );
});
