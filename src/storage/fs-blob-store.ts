// The default blob store: a folder of content-addressed files. Writes go to a temporary file in the
// same folder, are fsynced, then renamed into place, so a reader never sees a partial file.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { ByteRange } from './archive-store.ts';
import { type BlobStore, blobKey } from './blob-store.ts';
import { BatchBlobReader } from './blob-reader.ts';
import { syncPath } from './sync-path.ts';

export class FsBlobStore implements BlobStore {
  private readonly root: string;
  /**
   * Directories under the root whose entry this process has synced in their parent (at most the 65,537
   * of the fan-out): a write into one skips the mkdir and syncs only the directory itself. One removed
   * behind the store's back is made again when the rename into it fails.
   */
  private readonly durableDirs = new Set<string>();

  /** `<root>/objects/`: blob paths are this and a key, joined as strings (a key is already normal). */
  private readonly objectsPrefix: string;
  private readonly reader = new BatchBlobReader();

  constructor(root: string) {
    this.root = root;
    this.objectsPrefix = path.join(root, 'objects') + path.sep;
    fs.mkdirSync(path.join(root, 'tmp'), { recursive: true });
  }

  private pathOf(hash: string): string {
    return this.objectsPrefix + blobKey(hash);
  }

  private tempPath(): string {
    return path.join(this.root, 'tmp', `${Date.now()}-${randomBytes(8).toString('hex')}`);
  }

  /**
   * Publishes a synced file under its name and makes the name durable: a rename lives in its directory,
   * and each directory in its parent, so the directory is synced, and so is the parent of every
   * directory this process has not yet seen made durable (up to the store's root), whoever created it:
   * a concurrent write that created it may not have synced its parent yet. Without that a crash soon
   * after could lose a blob that a committed database row already names.
   */
  private async moveIntoPlace(tempPath: string, target: string): Promise<void> {
    const dir = path.dirname(target);
    if (!this.durableDirs.has(dir)) await fsp.mkdir(dir, { recursive: true });
    try {
      await fsp.rename(tempPath, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !this.durableDirs.has(dir)) throw error;
      // Folders were removed behind the store's back: none of what it remembers can be trusted.
      this.durableDirs.clear();
      await fsp.mkdir(dir, { recursive: true });
      await fsp.rename(tempPath, target);
    }
    const toSync = [dir];
    const unseen: string[] = [];
    for (let d = dir; d !== this.root && d !== path.dirname(d) && !this.durableDirs.has(d); d = path.dirname(d)) {
      unseen.push(d);
      toSync.push(path.dirname(d));
    }
    await Promise.all(toSync.map(syncPath));
    for (const d of unseen) this.durableDirs.add(d);
  }

  async putFile(hash: string, localPath: string): Promise<void> {
    const target = this.pathOf(hash);
    const temp = this.tempPath();
    try {
      await fsp.copyFile(localPath, temp);
      await syncPath(temp);
      await this.moveIntoPlace(temp, target);
    } finally {
      await fsp.rm(temp, { force: true });
    }
  }

  readonly adoptsLocalFiles = true;

  async adoptFile(hash: string, localPath: string, options: { synced?: boolean } = {}): Promise<void> {
    const target = this.pathOf(hash);
    if (!options.synced) await syncPath(localPath);
    try {
      await this.moveIntoPlace(localPath, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      // Another file system: copy through a temporary file instead.
      await this.putFile(hash, localPath);
      await fsp.rm(localPath, { force: true });
    }
  }

  async putBytes(hash: string, bytes: Buffer): Promise<void> {
    const target = this.pathOf(hash);
    const temp = this.tempPath();
    try {
      const handle = await fsp.open(temp, 'w');
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.moveIntoPlace(temp, target);
    } finally {
      await fsp.rm(temp, { force: true });
    }
  }

  async read(hash: string, range?: ByteRange): Promise<Readable> {
    const handle = await fsp.open(this.pathOf(hash), 'r');
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async readBytes(hash: string, size?: number): Promise<Buffer> {
    const file = this.pathOf(hash);
    if (size === undefined) return fsp.readFile(file);
    // readFile asks the file its size (fstat) and goes through a FileHandle: for the small images of
    // an export, read a page at a time, that is most of the cost. An open, one read of one byte more
    // than the recorded size, and a close; a file that is not that size after all is read again whole.
    const bytes = await readUpTo(file, size + 1);
    return bytes.length === size ? bytes : fsp.readFile(file);
  }

  readSmall(blobs: readonly { hash: string; size: number }[]): Promise<Buffer>[] {
    const batch = this.reader.read(
      blobs.map((blob) => this.pathOf(blob.hash)),
      blobs.map((blob) => blob.size),
    );
    // What the thread could not read as recorded (or every blob, should the thread fail) is read the
    // ordinary way, which gives the same bytes, or the same error, as readBytes always has.
    return blobs.map((blob, i) => batch.then((read) => read[i] ?? this.readBytes(blob.hash, blob.size), () => this.readBytes(blob.hash, blob.size)));
  }

  /**
   * readBytes, blocking, for threads that do nothing else (the import's annotation threads): one
   * system call a step instead of a round trip through the thread pool for each. A blob that fits in
   * `scratch` is read into it, and the answer is a view of it, valid until the scratch is next used:
   * an open, a read and a close, and no buffer of its own. A larger one gets a buffer of its own.
   */
  readBytesSync(hash: string, scratch: Buffer): Buffer {
    const fd = fs.openSync(this.pathOf(hash), 'r');
    try {
      const length = fs.readSync(fd, scratch, 0, scratch.length, 0);
      return length < scratch.length ? scratch.subarray(0, length) : fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  async has(hash: string): Promise<boolean> {
    // Outside the try: a malformed hash is an error, not a missing blob.
    const target = this.pathOf(hash);
    try {
      await fsp.access(target);
      return true;
    } catch (error) {
      // Only absence answers false; a disk that cannot be read is an error, as it is on S3.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async delete(hash: string): Promise<void> {
    await fsp.rm(this.pathOf(hash), { force: true });
  }

  async ping(): Promise<void> {
    await fsp.access(this.root, fs.constants.W_OK);
  }

  async close(): Promise<void> {
    await this.reader.close();
  }
}

/** Up to `length` bytes from the start of `file`: an open, one read and a close, on the thread pool. */
function readUpTo(file: string, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    fs.open(file, 'r', (openError, fd) => {
      if (openError) return reject(openError);
      const buffer = Buffer.allocUnsafe(length);
      fs.read(fd, buffer, 0, length, 0, (readError, bytesRead) => {
        fs.close(fd, (closeError) => {
          if (readError ?? closeError) reject(readError ?? closeError);
          else resolve(bytesRead < length ? buffer.subarray(0, bytesRead) : buffer);
        });
      });
    });
  });
}
