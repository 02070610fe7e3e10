// Receives uploaded file parts into temporary files while hashing them, so a request is never held
// in memory. Each request gets its own folder, removed when the request ends, whatever happened.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface ReceivedFile {
  path: string;
  /** base64 SHA-256 of the bytes received. */
  hash: string;
  size: number;
  /** The part was longer than the limit; the file holds only its beginning. */
  truncated: boolean;
}

/** Folders of this process not removed yet (requests still running). */
const open = new Set<string>();

export class StagingFolder {
  readonly dir: string;
  private counter = 0;

  private constructor(dir: string) {
    this.dir = dir;
  }

  static async create(root: string): Promise<StagingFolder> {
    await fsp.mkdir(root, { recursive: true });
    const folder = new StagingFolder(await fsp.mkdtemp(path.join(root, `${Date.now()}-${randomBytes(4).toString('hex')}-`)));
    open.add(folder.dir);
    return folder;
  }

  /** Streams `source` to a new file of this folder, hashing as it goes. */
  async receive(source: Readable & { truncated?: boolean }): Promise<ReceivedFile> {
    this.counter += 1;
    const target = path.join(this.dir, String(this.counter));
    const hash = createHash('sha256');
    let size = 0;
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(source, hashing, fs.createWriteStream(target));
    return { path: target, hash: hash.digest('base64'), size, truncated: source.truncated === true };
  }

  async remove(): Promise<void> {
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
