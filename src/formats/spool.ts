// Text kept on disk while an export runs: a writer appends to it record by record and the archive
// reads it back once as a stream, so text that grows with the project never stays in memory.
import { createReadStream } from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** Appended text is written out in pieces of about this many characters. */
const FLUSH_CHARS = 1 << 20;

export class TextSpool {
  private pending: string[] = [];
  private pendingChars = 0;
  private handle: FileHandle | null;
  private removed = false;

  private constructor(
    readonly path: string,
    handle: FileHandle,
    private readonly flushChars: number,
  ) {
    this.handle = handle;
  }

  /**
   * A new, empty spool file in `dir` (which must exist), named `name`. Text is written out in pieces
   * of about `flushChars` characters: smaller where many spools fill at once.
   */
  static async create(dir: string, name: string, flushChars = FLUSH_CHARS): Promise<TextSpool> {
    const file = path.join(dir, name);
    return new TextSpool(file, await fsp.open(file, 'wx'), flushChars);
  }

  async write(text: string): Promise<void> {
    if (!this.handle) throw new Error(`${this.path} was ended`);
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= this.flushChars) await this.flush();
  }

  private async flush(): Promise<void> {
    const text = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    if (text !== '') await this.handle!.write(text);
  }

  /** Writes what is pending and closes the file; it can then be read. */
  async end(): Promise<void> {
    if (!this.handle) return;
    await this.flush();
    await this.handle.close();
    this.handle = null;
  }

  /** The spooled bytes, in pieces. */
  read(): Readable & AsyncIterable<Buffer> {
    if (this.handle) throw new Error(`${this.path} is read before it was ended`);
    if (this.removed) throw new Error(`${this.path} was removed`);
    return createReadStream(this.path, { highWaterMark: 1 << 20 });
  }

  /** Closes the file if it is open and deletes it; safe to call more than once. */
  async remove(): Promise<void> {
    if (this.handle) {
      this.pending = [];
      await this.handle.close();
      this.handle = null;
    }
    this.removed = true;
    await fsp.rm(this.path, { force: true });
  }
}
