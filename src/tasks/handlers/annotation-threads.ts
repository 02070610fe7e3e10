// Threads that read and prepare the annotation files of large imports, so parsing, checking and
// serialising them (most of an import's CPU time) runs beside the task's own thread, which meanwhile
// commits the previous batch. One shared set per process, started at the first large import and
// kept (unreferenced: it never keeps the process alive); a thread that dies takes the set with it and
// the next import starts a new one. A server's uploads use the same set to check large annotation and
// class files off the thread that answers requests.
import type { Worker } from 'node:worker_threads';
import type { Config } from '../../config.ts';
import { startModuleThread } from '../../threads.ts';
import type { ProjectMeta } from '../../formats/supervisely/index.ts';
import type { Preparation } from './annotation-preparation.ts';
import type { CheckRequest, ThreadReply, ThreadRequest } from './annotation-thread.ts';
import type { DocumentProblem, DocumentType } from '../../services/upload-documents.ts';
import type { ImageFacts } from '../../repositories/staging.repository.ts';
import { type PackedPreparations, unpackFacts, unpackPreparations } from './thread-replies.ts';

/** A batch as the threads answer it: its annotations prepared, and the facts of its image blobs. */
export interface ThreadAnswer {
  preparations: Preparation[];
  blobs: Map<string, ImageFacts>;
}

/** A request whose answer is still coming: the parts so far. */
interface Waiting {
  blobHashes: string[];
  parts: PackedPreparations[];
  blobs: Float64Array | null;
  resolve(answer: ThreadAnswer): void;
  reject(error: Error): void;
}

/**
 * A thread keeps little: a batch's files and their prepared text. V8's default young generation
 * (32 MB) is sized for throughput, not for that; 8 MB gave the same rate and 24 MB less memory.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 8 };

interface WaitingCheck {
  resolve(problem: DocumentProblem | null): void;
  reject(error: Error): void;
}

class AnnotationThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  readonly #checks = new Map<number, WaitingCheck>();
  #nextId = 0;
  failure: Error | null = null;

  constructor() {
    this.#worker = startModuleThread(new URL('./annotation-thread.ts', import.meta.url), { resourceLimits: THREAD_LIMITS });
    this.#worker.on('message', (reply: ThreadReply) => {
      const check = this.#checks.get(reply.id);
      if (check) {
        this.#checks.delete(reply.id);
        if ('error' in reply) check.reject(new Error(reply.error));
        else if ('problem' in reply) check.resolve(reply.problem);
        return;
      }
      const waiting = this.#waiting.get(reply.id);
      if (!waiting) return;
      if ('error' in reply) {
        this.#waiting.delete(reply.id);
        waiting.reject(new Error(reply.error));
        return;
      }
      if (!('preparations' in reply)) return;
      waiting.parts.push(reply.preparations);
      waiting.blobs ??= reply.blobs;
      if (!reply.last) return;
      this.#waiting.delete(reply.id);
      waiting.resolve({ preparations: waiting.parts.flatMap(unpackPreparations), blobs: unpackFacts(waiting.blobHashes, waiting.blobs) });
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', (code) => this.#fail(new Error(`an annotation thread exited (code ${code})`)));
    // After the listeners: adding a 'message' listener refs the thread again.
    this.#worker.unref();
  }

  prepare(config: Config, meta: ProjectMeta, hashes: string[], blobHashes: string[]): Promise<ThreadAnswer> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { blobHashes, parts: [], blobs: null, resolve, reject });
      this.#worker.postMessage({ id, config, meta, hashes, blobHashes } satisfies ThreadRequest);
    });
  }

  /** Uploaded files sent to this thread and not answered yet. */
  get pendingChecks(): number {
    return this.#checks.size;
  }

  check(type: DocumentType, format: string, path: string): Promise<DocumentProblem | null> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#checks.set(id, { resolve, reject });
      this.#worker.postMessage({ id, check: { type, format, path } } satisfies CheckRequest);
    });
  }

  terminate(): void {
    void this.#worker.terminate();
  }

  #fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
    for (const check of this.#checks.values()) check.reject(error);
    this.#checks.clear();
  }
}

export class AnnotationThreads {
  readonly #threads: AnnotationThread[];

  constructor(count: number) {
    this.#threads = Array.from({ length: count }, () => new AnnotationThread());
  }

  get broken(): boolean {
    return this.#threads.some((t) => t.failure !== null);
  }

  terminate(): void {
    for (const thread of this.#threads) thread.terminate();
  }

  get size(): number {
    return this.#threads.length;
  }

  /**
   * Each annotation's preparation, in the order of `hashes`, and the facts of the blobs of
   * `blobHashes` (on SQLite: the first thread asks its own connection); rejects when a file cannot be
   * read.
   */
  async prepare(config: Config, meta: ProjectMeta, hashes: string[], blobHashes: string[] = []): Promise<ThreadAnswer> {
    const share = Math.ceil(hashes.length / this.#threads.length);
    const parts = await Promise.all(
      this.#threads.map((thread, i) => thread.prepare(config, meta, hashes.slice(i * share, (i + 1) * share), i === 0 ? blobHashes : [])),
    );
    return { preparations: parts.flatMap((p) => p.preparations), blobs: parts[0]!.blobs };
  }

  /** Checks the uploaded file at `path` (see checkUploadedDocument) on the thread with the fewest waiting. */
  checkDocument(type: DocumentType, format: string, path: string): Promise<DocumentProblem | null> {
    const idlest = this.#threads.reduce((best, thread) => (thread.pendingChecks < best.pendingChecks ? thread : best));
    return idlest.check(type, format, path);
  }
}

let shared: AnnotationThreads | null = null;

/** The process's annotation threads, `count` of them. */
export function annotationThreads(count: number): AnnotationThreads {
  if (!shared || shared.broken || shared.size !== count) {
    shared?.terminate();
    shared = new AnnotationThreads(count);
  }
  return shared;
}
