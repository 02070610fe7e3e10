// The blob store contract: content-addressed bytes, keyed by the image hash (base64 of SHA-256).
import type { Readable } from 'node:stream';
import type { ByteRange } from './archive-store.ts';

export interface BlobStore {
  /** Moves a complete local file into the store under `hash`; readers never see a partial object. */
  putFile(hash: string, localPath: string): Promise<void>;
  /**
   * Like putFile, but takes the local file over: it is moved when the store can (same file system),
   * and is gone afterwards either way. Spares a copy for uploads staged on local disk. `synced`: the
   * caller has already flushed the file to disk (fsync), so the store need not open it again to.
   */
  adoptFile(hash: string, localPath: string, options?: { synced?: boolean }): Promise<void>;
  /**
   * Whether adoptFile keeps the local file itself as the stored bytes. Only then is it worth a
   * caller's while to flush a file as it writes it (and pass `synced`).
   */
  readonly adoptsLocalFiles: boolean;
  /** Stores bytes under `hash`, atomically like putFile. */
  putBytes(hash: string, bytes: Buffer): Promise<void>;
  /**
   * Streams the bytes of `hash`, or only those of `range` (both ends included, within the blob's
   * size); rejects when there are none.
   */
  read(hash: string, range?: ByteRange): Promise<Readable>;
  /**
   * The whole blob. `size`, when the caller knows it (the blobs table records it), lets a store read
   * it without asking for it first; the answer is the stored bytes all the same, whatever their size.
   */
  readBytes(hash: string, size?: number): Promise<Buffer>;
  /**
   * readBytes of several small blobs of recorded size (an export's images), an answer for each in
   * their order, read together where the store can: a local store reads them on a thread in one batch.
   */
  readSmall(blobs: readonly { hash: string; size: number }[]): Promise<Buffer>[];
  has(hash: string): Promise<boolean>;
  /** Removes `hash`; removing a missing one is not an error. */
  delete(hash: string): Promise<void>;
  /** Answers when the store answers; used by /healthz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Storage key of a hash: hex, fanned out over two directory levels. Never derived from client paths. */
export function blobKey(hash: string): string {
  const bytes = Buffer.from(hash, 'base64');
  // Node's decoder skips characters it does not know and stops at padding, so `X=junk`, ` X` and the
  // base64url form of X would all share X's key; only the canonical spelling of 32 bytes is a hash.
  if (bytes.length !== 32 || bytes.toString('base64') !== hash) throw new Error('not a SHA-256 hash in base64');
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 2)}/${hex.slice(2, 4)}/${hex}`;
}
