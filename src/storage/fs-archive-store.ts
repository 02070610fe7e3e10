// Archives in a local folder: written to a temporary file on the same file system, fsynced, then
// renamed into place (and the rename made durable), so a reader finds the whole archive or none.
//
// A worker killed mid-export leaves its temporary file behind. Each one is named after its key, so the
// next attempt at that key (or its removal) takes the dead attempt's file with it; a file of a key that
// is never written again goes once it has not been touched for STALE_TEMP_MS.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ArchiveStat, type ArchiveStore, type ByteRange, checkArchiveKey } from './archive-store.ts';
import { syncPath } from './sync-path.ts';

/** A temporary archive untouched this long was left by a dead worker: a live one writes all along. */
export const STALE_TEMP_MS = 60 * 60 * 1000;

/** The temporary files of `key` begin with this, then a random part of their own. */
const tempPrefix = (key: string) => `archive-${checkArchiveKey(key).replaceAll('/', '_')}.`;

export class FsArchiveStore implements ArchiveStore {
  readonly bucket = 'local';
  private readonly root: string;
  private readonly tmp: string;

  /** `root` holds the archives; `tmp`, on the same file system, their unfinished copies. */
  constructor(root: string, tmp: string) {
    this.root = root;
    this.tmp = tmp;
    fs.mkdirSync(tmp, { recursive: true });
  }

  private pathOf(key: string): string {
    return path.join(this.root, ...checkArchiveKey(key).split('/'));
  }

  async put(key: string, body: Readable): Promise<ArchiveStat> {
    const target = this.pathOf(key);
    await this.removeStaleTemps();
    const temp = path.join(this.tmp, `${tempPrefix(key)}${randomBytes(8).toString('hex')}`);
    try {
      await pipeline(body, fs.createWriteStream(temp));
      // Flushed before the rename, and the rename after it: a crash must not publish a name without
      // its bytes, nor take back an archive whose task is already marked finished.
      await syncPath(temp);
      const dir = path.dirname(target);
      await fsp.mkdir(dir, { recursive: true });
      await fsp.rename(temp, target);
      await syncPath(dir);
      await syncPath(path.dirname(dir));
    } finally {
      await fsp.rm(temp, { force: true });
    }
    // An earlier attempt at this key whose worker died is over now; a superseded one still writing
    // finds its file gone and fails rather than publishing later.
    await this.removeTemps(key);
    return (await this.stat(key))!;
  }

  objectName(key: string): string {
    return checkArchiveKey(key);
  }

  async read(key: string, range?: ByteRange, etag?: string): Promise<Readable> {
    const handle = await fsp.open(this.pathOf(key), 'r');
    if (etag !== undefined && etagOf(await handle.stat()) !== etag) {
      await handle.close();
      throw new Error(`archive ${key} changed since its entity tag was read`);
    }
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async stat(key: string): Promise<ArchiveStat | null> {
    try {
      const stats = await fsp.stat(this.pathOf(key));
      return { size: stats.size, etag: etagOf(stats) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.pathOf(key), { force: true });
    await this.removeTemps(key);
  }

  /** Removes every temporary file of `key`. */
  private async removeTemps(key: string): Promise<void> {
    const prefix = tempPrefix(key);
    for (const name of await fsp.readdir(this.tmp)) {
      if (name.startsWith(prefix)) await fsp.rm(path.join(this.tmp, name), { force: true });
    }
  }

  /** Removes temporary archives of any key that nothing has written to for STALE_TEMP_MS. */
  private async removeStaleTemps(now = Date.now()): Promise<void> {
    for (const name of await fsp.readdir(this.tmp)) {
      if (!name.startsWith('archive-')) continue;
      const file = path.join(this.tmp, name);
      const stat = await fsp.stat(file).catch(() => null);
      if (stat && stat.mtimeMs < now - STALE_TEMP_MS) await fsp.rm(file, { force: true });
    }
  }

  async close(): Promise<void> {}
}

/** Size, modification time and inode: a new archive under the same key differs in at least one. */
const etagOf = (stats: fs.Stats): string => `"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}-${stats.ino.toString(16)}"`;
