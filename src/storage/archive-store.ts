// The archive store contract: whole files (export archives) written once by stream and read back,
// whole or by byte range. Unlike blobs they are not content-addressed: a key names them, and every
// key is made by the server (see archiveKey), never taken from a request.
import type { Readable } from 'node:stream';

export interface ArchiveStat {
  size: number;
  /** A quoted entity tag that changes whenever the archive's bytes could have. */
  etag: string;
}

/** An inclusive byte range, as HTTP gives it. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ArchiveStore {
  /** Where archives live, as a task's `meta.path.bucket` gives it: the S3 bucket, or `local`. */
  readonly bucket: string;
  /**
   * Writes the stream under `key` and publishes it only when the stream has ended whole: a failed or
   * destroyed stream leaves nothing under `key` (an archive that was there before stays as it was).
   */
  put(key: string, body: Readable): Promise<ArchiveStat>;
  /**
   * The archive's bytes, or those of `range`; rejects when there is no archive, and, given `etag`, when
   * the archive is no longer the one that tag names (a reader must not get another version's bytes).
   */
  read(key: string, range?: ByteRange, etag?: string): Promise<Readable>;
  /** Where `key` lies in `bucket`, as a task's `meta.path.objectName` gives it (with the store's prefix). */
  objectName(key: string): string;
  /** Size and entity tag, or null when there is no archive. */
  stat(key: string): Promise<ArchiveStat | null>;
  /** Removes the archive; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

const KEY = /^(exports\/\d+\/\d+\.zip|models\/\d+\/\d+\.weights)$/;

/** The key of a task's export archive. */
export function archiveKey(teamId: number, taskId: number): string {
  return `exports/${teamId}/${taskId}.zip`;
}

/** The key of a model's weights file: stored, read and removed like an archive. */
export function weightsKey(teamId: number, modelId: number): string {
  return `models/${teamId}/${modelId}.weights`;
}

/** Refuses a key archiveKey or weightsKey did not make: a store never writes outside its archives. */
export function checkArchiveKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`not an archive key: ${key}`);
  return key;
}
