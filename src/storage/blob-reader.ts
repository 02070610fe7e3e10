// Small blobs of a local store read many at a time on a thread of their own. Each asynchronous file
// call is a trip to the thread pool and back (an open, a read and a close a blob), and for the
// thousands of small images of an export those trips were most of the main thread's time; here a batch
// of files costs two messages, and the thread reads them with blocking calls as fast as the disk gives.
import type { Worker } from 'node:worker_threads';
import { startModuleThread } from '../threads.ts';
import type { BlobReadReply, BlobReadRequest } from './blob-read-thread.ts';

interface Pending {
  resolve(answer: (Buffer | null)[]): void;
  reject(error: Error): void;
}

export class BatchBlobReader {
  #worker: Worker | null = null;
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;

  /**
   * The bytes of each file, read as recorded; null for a file the thread could not read at its
   * recorded size (missing, or another size), which the caller reads the ordinary way.
   */
  read(files: string[], sizes: number[]): Promise<(Buffer | null)[]> {
    const worker = this.#thread();
    const id = this.#nextId++;
    // Held while a batch is awaited (the answer is what the awaiting code waits for), let go when
    // none is: an idle reader must not keep the process alive.
    if (this.#pending.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, files, sizes } satisfies BlobReadRequest);
    });
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = startModuleThread(new URL('./blob-read-thread.ts', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    worker.on('message', ({ id, data, lengths }: BlobReadReply) => {
      const pending = this.#pending.get(id);
      if (!pending) return;
      this.#pending.delete(id);
      if (this.#pending.size === 0) worker.unref();
      let offset = 0;
      pending.resolve(
        lengths.map((length) => {
          if (length < 0) return null;
          offset += length;
          return Buffer.from(data, offset - length, length);
        }),
      );
    });
    const fail = (error: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the blob reading thread exited (code ${code})`)));
    // After the listeners: adding a 'message' listener refs the thread again.
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    for (const pending of this.#pending.values()) pending.reject(new Error('the blob store was closed'));
    this.#pending.clear();
    await worker?.terminate();
  }
}
