// A BlobStore that reports each failed call (by operation) before passing the failure on: the blob
// store errors of the metrics are counted here, at the one place every store is made.
import type { BlobStore } from './blob-store.ts';

type Operation = 'putFile' | 'adoptFile' | 'putBytes' | 'read' | 'readBytes' | 'has' | 'delete' | 'ping';

export function countingFailures(store: BlobStore, onFailure: (operation: Operation) => void): BlobStore {
  const counted =
    <A extends unknown[], R>(operation: Operation, call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      call(...args).catch((error: unknown) => {
        onFailure(operation);
        throw error;
      });
  return {
    putFile: counted('putFile', (hash, localPath) => store.putFile(hash, localPath)),
    adoptFile: counted('adoptFile', (hash, localPath, options) => store.adoptFile(hash, localPath, options)),
    get adoptsLocalFiles() {
      return store.adoptsLocalFiles;
    },
    putBytes: counted('putBytes', (hash, bytes) => store.putBytes(hash, bytes)),
    read: counted('read', (hash, range) => store.read(hash, range)),
    readBytes: counted('readBytes', (hash, size) => store.readBytes(hash, size)),
    readSmall: (blobs) =>
      store.readSmall(blobs).map((read) =>
        read.catch((error: unknown) => {
          onFailure('readBytes');
          throw error;
        }),
      ),
    has: counted('has', (hash) => store.has(hash)),
    delete: counted('delete', (hash) => store.delete(hash)),
    ping: counted('ping', () => store.ping()),
    close: () => store.close(),
  };
}
