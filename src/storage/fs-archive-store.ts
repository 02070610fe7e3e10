// Archives in a local folder: written to a temporary file beside it, fsynced, then renamed into
// place, so a reader finds the whole archive or none.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ArchiveStat, type ArchiveStore, type ByteRange, checkArchiveKey } from './archive-store.ts';

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
    const temp = path.join(this.tmp, `archive-${Date.now()}-${randomBytes(8).toString('hex')}`);
    try {
      await pipeline(body, fs.createWriteStream(temp));
      // Flushed before the rename: a crash must not publish a name without its bytes.
      const handle = await fsp.open(temp, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fsp.mkdir(path.dirname(target), { recursive: true });
      await fsp.rename(temp, target);
    } finally {
      await fsp.rm(temp, { force: true });
    }
    return (await this.stat(key))!;
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const handle = await fsp.open(this.pathOf(key), 'r');
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async stat(key: string): Promise<ArchiveStat | null> {
    try {
      const stats = await fsp.stat(this.pathOf(key));
      return { size: stats.size, etag: `"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}-${stats.ino.toString(16)}"` };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.pathOf(key), { force: true });
  }

  async close(): Promise<void> {}
}
