// Runs inside an annotation thread (see annotation-threads.ts): reads annotation files from the blob
// store the request names and prepares each one. One store per storage location, kept for the
// thread's life.
import { parentPort } from 'node:worker_threads';
import { mapLimited } from '../../concurrency.ts';
import type { Config } from '../../config.ts';
import type { ProjectMeta } from '../../formats/supervisely/index.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { createBlobStore } from '../../storage/create-blob-store.ts';
import { FsBlobStore } from '../../storage/fs-blob-store.ts';
import { type Preparation, prepareAnnotation } from './annotation-preparation.ts';

export interface ThreadRequest {
  id: number;
  config: Config;
  meta: ProjectMeta;
  hashes: string[];
}

export type ThreadReply = { id: number; preparations: Preparation[] } | { id: number; error: string };

/** Files read at once by one thread from a store that is not a local folder. */
const READS_AT_ONCE = 16;
/**
 * A local folder's files are read one after another into this buffer (prepareAnnotation keeps
 * nothing of the bytes it is given); one larger gets a buffer of its own.
 */
const scratch = Buffer.allocUnsafe(256 * 1024);

const stores = new Map<string, Promise<BlobStore>>();

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

parentPort!.on('message', (request: ThreadRequest) => {
  prepareAll(request).then(
    (preparations) => parentPort!.postMessage({ id: request.id, preparations } satisfies ThreadReply),
    (error: unknown) => parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies ThreadReply),
  );
});
