// Receives uploaded file parts into temporary files while hashing them, so a request is never held
// in memory. Each request gets its own folder, removed when the request ends, whatever happened.
import { createHash, randomBytes } from 'node:crypto';
import type fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

export interface ReceivedFile {
  path: string;
  /** base64 SHA-256 of the bytes received. */
  hash: string;
  size: number;
  /** The part was longer than the limit; the file holds only its beginning. */
  truncated: boolean;
  /** The bytes as well, when there are at most KEEP_BYTES of them: checking them needs no second read. */
  bytes?: Buffer;
  /**
   * In a folder that flushes: resolves once the bytes are on disk (fsync), rejects if that failed.
   * The flush runs while the next parts stream in, so a request waits for its syncs together.
   */
  synced?: Promise<void>;
}

export interface StagingOptions {
  /** Flush each received file to disk in the background (when the files are to become the stored bytes). */
  flush?: boolean;
}

/** Received files up to this size are kept in memory too (at most 6.4 MB for a request of 100 files). */
export const KEEP_BYTES = 64 * 1024;

/**
 * Bytes gathered from a part before they are written. A typical image goes to disk in one write rather
 * than one per chunk (busboy hands over 64 KiB at a time); a request still holds at most this much.
 */
const WRITE_BYTES = 1024 * 1024;

/** Writes every byte of `chunks` at the file's current end, however the system splits the write. */
async function writeAll(handle: fsp.FileHandle, chunks: Buffer[]): Promise<void> {
  const total = chunks.reduce((n, c) => n + c.length, 0);
  let written = (await handle.writev(chunks)).bytesWritten;
  if (written === total) return;
  const whole = Buffer.concat(chunks);
  while (written < total) written += (await handle.write(whole, written, total - written)).bytesWritten;
}

/** fsync, then close: the close happens whether or not the fsync worked. */
async function syncAndClose(handle: fsp.FileHandle): Promise<void> {
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Folders of this process not removed yet (requests still running). */
const open = new Set<string>();

export class StagingFolder {
  readonly dir: string;
  private readonly flush: boolean;
  private counter = 0;
  /** Flushes still running; remove() lets them end before the folder goes. */
  private readonly syncing = new Set<Promise<void>>();

  private constructor(dir: string, flush: boolean) {
    this.dir = dir;
    this.flush = flush;
  }

  static async create(root: string, options: StagingOptions = {}): Promise<StagingFolder> {
    await fsp.mkdir(root, { recursive: true });
    const folder = new StagingFolder(await fsp.mkdtemp(path.join(root, `${Date.now()}-${randomBytes(4).toString('hex')}-`)), options.flush === true);
    open.add(folder.dir);
    return folder;
  }

  /** Streams `source` to a new file of this folder, hashing as it goes. */
  async receive(source: Readable & { truncated?: boolean }): Promise<ReceivedFile> {
    this.counter += 1;
    const target = path.join(this.dir, String(this.counter));
    const hash = createHash('sha256');
    let size = 0;
    let gathered: Buffer[] = [];
    let gatheredBytes = 0;
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(target, 'w');
    } catch (error) {
      // Unread, the part would hold the whole request up.
      source.destroy();
      throw error;
    }
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        hash.update(chunk);
        size += chunk.length;
        gathered.push(chunk);
        gatheredBytes += chunk.length;
        if (gatheredBytes >= WRITE_BYTES) {
          await writeAll(handle, gathered);
          gathered = [];
          gatheredBytes = 0;
        }
      }
      if (gathered.length > 0) await writeAll(handle, gathered);
    } catch (error) {
      source.destroy();
      await handle.close().catch(() => {});
      throw error;
    }
    const received: ReceivedFile = { path: target, hash: hash.digest('base64'), size, truncated: source.truncated === true };
    // KEEP_BYTES is below WRITE_BYTES: a file that small is still all in `gathered`.
    if (size <= KEEP_BYTES) received.bytes = gathered.length === 1 ? gathered[0]! : Buffer.concat(gathered);
    if (!this.flush) {
      await handle.close();
      return received;
    }
    const synced = syncAndClose(handle);
    this.syncing.add(synced);
    // Handled here so a request that fails before it waits for the flush leaves no unhandled
    // rejection; whoever awaits `synced` still sees the error.
    synced.then(
      () => this.syncing.delete(synced),
      () => this.syncing.delete(synced),
    );
    received.synced = synced;
    return received;
  }

  async remove(): Promise<void> {
    await Promise.allSettled([...this.syncing]);
    await fsp.rm(this.dir, { recursive: true, force: true });
    open.delete(this.dir);
  }
}

/**
 * Removes the folders this process still holds. Called at shutdown once in-flight requests had their
 * chance to finish, so nothing of a stopped process stays on its disk.
 */
export async function removeOpenFolders(): Promise<number> {
  const dirs = [...open];
  await Promise.all(dirs.map((dir) => fsp.rm(dir, { recursive: true, force: true })));
  for (const dir of dirs) open.delete(dir);
  return dirs.length;
}

/**
 * Removes the folders under `root` that nothing touched for `olderThanMs`: at start they can only be
 * leftovers of a process that died mid-request (a live upload writes into its folder all the time).
 * Answers how many were removed.
 */
export async function removeStaleFolders(root: string, olderThanMs: number, now = Date.now()): Promise<number> {
  let entries: fs.Dirent[];
  try {
    entries = await fsp.readdir(root, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let removed = 0;
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const dir = path.join(root, entry.name);
    if (open.has(dir) || (await lastTouched(dir)) > now - olderThanMs) continue;
    await fsp.rm(dir, { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

/** The latest modification time of a folder and the files directly in it, in ms (0 if it is gone). */
async function lastTouched(dir: string): Promise<number> {
  try {
    let latest = (await fsp.stat(dir)).mtimeMs;
    for (const name of await fsp.readdir(dir)) {
      const stat = await fsp.stat(path.join(dir, name)).catch(() => null);
      if (stat && stat.mtimeMs > latest) latest = stat.mtimeMs;
    }
    return latest;
  } catch {
    return 0;
  }
}
