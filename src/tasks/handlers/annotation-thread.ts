// Runs inside an annotation thread (see annotation-threads.ts): reads annotation files from the blob
// store the request names and prepares each one, and on SQLite looks up the facts of the batch's image
// blobs, a query that would otherwise hold up the task's thread. One store and one database connection
// per location, kept for the thread's life. It also checks large uploaded annotation and class files
// (upload-documents.ts), whose parse would otherwise hold up a server's requests.
import fsp from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { mapLimited } from '../../concurrency.ts';
import type { Config } from '../../config.ts';
import { collectGarbage } from '../../heap-growth.ts';
import { SqliteBlobFacts } from '../../db/sqlite-blob-facts.ts';
import type { ProjectMeta } from '../../formats/supervisely/index.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { createBlobStore } from '../../storage/create-blob-store.ts';
import { FsBlobStore } from '../../storage/fs-blob-store.ts';
import { type DocumentProblem, type DocumentType, checkUploadedDocument } from '../../services/upload-documents.ts';
import { type Preparation, prepareAnnotation, withDerived } from './annotation-preparation.ts';
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

/** An uploaded file to check, staged at `path`. */
export interface CheckRequest {
  id: number;
  check: { type: DocumentType; format: string; path: string };
}

/**
 * A part of the answer to request `id`: the preparations of its next files, and in the first part the
 * facts of `blobHashes` (packed, see thread-replies.ts); `last` ends the answer. Or why it failed.
 */
export type ThreadReply =
  | { id: number; preparations: PackedPreparations; blobs: Float64Array; last: boolean }
  | { id: number; problem: DocumentProblem | null }
  | { id: number; error: string };

/** Files read at once by one thread from a store that is not a local folder. */
const READS_AT_ONCE = 16;
/**
 * Files prepared for one message. A part's text is all the thread holds, and it is passed on before
 * the young generation fills. A whole batch's text, held until the batch was done, outlived it: in an
 * import of 100,000 images the thread's heap was collected in full 25 times and its young generation
 * took 474 ms; in parts of 100, 4 times and 222 ms.
 */
const FILES_PER_PART = 100;
/**
 * A local folder's files are read one after another into this buffer (prepareAnnotation keeps
 * nothing of the bytes it is given); one larger gets a buffer of its own.
 */
const scratch = Buffer.allocUnsafe(256 * 1024);

const stores = new Map<string, Promise<BlobStore>>();

const databases = new Map<string, SqliteBlobFacts>();

function databaseFor(config: Config): SqliteBlobFacts {
  let db = databases.get(config.dataDir);
  if (!db) databases.set(config.dataDir, (db = new SqliteBlobFacts(config.dataDir)));
  return db;
}

function storeFor(config: Config): Promise<BlobStore> {
  const key = JSON.stringify([config.storageUrl ?? null, config.dataDir]);
  let store = stores.get(key);
  if (!store) stores.set(key, (store = createBlobStore(config)));
  return store;
}

async function prepareAll(store: BlobStore, hashes: string[], meta: ProjectMeta): Promise<Preparation[]> {
  // Blocking is free here: this thread has nothing else to do meanwhile.
  if (store instanceof FsBlobStore) return hashes.map((hash) => withDerived(prepareAnnotation(store.readBytesSync(hash, scratch), meta)));
  return mapLimited(hashes, READS_AT_ONCE, async (hash) => withDerived(prepareAnnotation(await store.readBytes(hash), meta)));
}

const NO_FACTS = new Float64Array(0);

function lookUpBlobs(request: ThreadRequest): Float64Array {
  if (request.blobHashes.length === 0) return NO_FACTS;
  return packFacts(request.blobHashes, databaseFor(request.config).lookUp(request.blobHashes));
}

/** Answers `request` in parts of FILES_PER_PART files (one part when it has none). */
async function answer(request: ThreadRequest, post: (reply: ThreadReply) => void): Promise<void> {
  let blobs = lookUpBlobs(request);
  const store = await storeFor(request.config);
  const { id, hashes, meta } = request;
  for (let start = 0; start === 0 || start < hashes.length; start += FILES_PER_PART) {
    const preparations = packPreparations(await prepareAll(store, hashes.slice(start, start + FILES_PER_PART), meta));
    post({ id, preparations, blobs, last: start + FILES_PER_PART >= hashes.length });
    blobs = NO_FACTS;
  }
}

/**
 * Uploaded files are checked one after another: a file is read whole to be parsed, and a request of
 * 100 files of 60 MB, its checks all sent at once, must not have them all in memory together.
 */
let checks: Promise<void> = Promise.resolve();

/**
 * Files from which a check ends with a full collection. What a file's parse made (four or five times
 * its size) is garbage once it is checked, but V8 lets the heap grow to a multiple of what it last
 * kept before it collects in full: ten uploaded files of 60 MB took a server to 1.4 GB.
 */
const COLLECT_AFTER_BYTES = 8 * 1024 * 1024;

function check({ id, check }: CheckRequest): Promise<void> {
  const done = checks.then(async () => {
    const problem = await checkUploadedDocument(check.type, check.format, { path: check.path });
    parentPort!.postMessage({ id, problem } satisfies ThreadReply);
    if ((await fsp.stat(check.path)).size >= COLLECT_AFTER_BYTES) collectGarbage();
  });
  // A file that could not be read fails its own check only.
  checks = done.catch(() => {});
  return done;
}

parentPort!.on('message', (request: ThreadRequest | CheckRequest) => {
  const work = 'check' in request ? check(request) : answer(request, (reply) => parentPort!.postMessage(reply));
  work.catch((error: unknown) => parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies ThreadReply));
});
