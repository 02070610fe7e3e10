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

export class StagingFolder {
  readonly dir: string;
  private counter = 0;

  private constructor(dir: string) {
    this.dir = dir;
  }

  static async create(root: string): Promise<StagingFolder> {
    await fsp.mkdir(root, { recursive: true });
    return new StagingFolder(await fsp.mkdtemp(path.join(root, `${Date.now()}-${randomBytes(4).toString('hex')}-`)));
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
  }
}
