// Receives uploaded file parts into temporary files while hashing them, so a request is never held
// in memory. Each request gets its own folder, removed when the request ends, whatever happened.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
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

/** fsync, then close, the descriptor of a finished write. */
function syncAndClose(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    fs.fsync(fd, (syncError) => {
      fs.close(fd, (closeError) => {
        const error = syncError ?? closeError;
        if (error) reject(error);
        else resolve();
      });
    });
  });
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
    let kept: Buffer[] | null = [];
    // A flushing folder keeps the descriptor open after the write (destroy, on failure, still closes
    // it), so the fsync needs no second open.
    const out = fs.createWriteStream(target, { autoClose: !this.flush });
    // Hashed by a second 'data' listener beside pipe() rather than a Transform in a pipeline: per
    // part, a pipeline's AbortController and extra stream cost more than hashing a small file.
    source.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      size += chunk.length;
      if (kept && size <= KEEP_BYTES) kept.push(chunk);
      else kept = null;
    });
    await new Promise<void>((resolve, reject) => {
      const fail = (error: Error) => {
        source.destroy();
        out.destroy();
        reject(error);
      };
      source.once('error', fail);
      out.once('error', fail);
      out.once('finish', resolve);
      source.pipe(out);
    });
    const received: ReceivedFile = { path: target, hash: hash.digest('base64'), size, truncated: source.truncated === true };
    if (kept) received.bytes = kept.length === 1 ? kept[0]! : Buffer.concat(kept);
    if (this.flush) {
      // Open by now (it was written to); @types/node leaves `fd` out of WriteStream.
      const synced = syncAndClose((out as unknown as { fd: number }).fd);
      this.syncing.add(synced);
      // Handled here so a request that fails before it waits for the flush leaves no unhandled
      // rejection; whoever awaits `synced` still sees the error.
      synced.then(
        () => this.syncing.delete(synced),
        () => this.syncing.delete(synced),
      );
      received.synced = synced;
    }
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
