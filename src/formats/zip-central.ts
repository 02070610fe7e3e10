// The central directory of a zip being written: one record an entry, all of them written at the end.
// A project of a million images makes two million entries and some 300 MB of records, so past a
// few megabytes they go to a file in a spool folder and are streamed back at the end: what the
// archive holds in memory does not grow with the project.
import { randomBytes } from 'node:crypto';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** Records held in memory before they are appended to the spool file. */
export const CENTRAL_MEMORY_BYTES = 4 * 1024 * 1024;
const READ_BYTES = 1024 * 1024;

export class CentralDirectory {
  private readonly spoolDir: string | null;
  private readonly memoryBytes: number;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private file: { path: string; handle: FileHandle } | null = null;
  /** Bytes of every record so far, spooled or held. */
  size = 0;
  count = 0;

  /** Without `spoolDir` every record stays in memory (small archives, tests). */
  constructor(spoolDir: string | null, memoryBytes = CENTRAL_MEMORY_BYTES) {
    this.spoolDir = spoolDir;
    this.memoryBytes = memoryBytes;
  }

  async add(record: Buffer): Promise<void> {
    this.held.push(record);
    this.heldBytes += record.length;
    this.size += record.length;
    this.count += 1;
    if (this.spoolDir && this.heldBytes >= this.memoryBytes) await this.spill(this.spoolDir);
  }

  private async spill(spoolDir: string): Promise<void> {
    if (!this.file) {
      const file = path.join(spoolDir, `zip-central-${Date.now()}-${randomBytes(6).toString('hex')}`);
      this.file = { path: file, handle: await fsp.open(file, 'w+') };
    }
    const batch = Buffer.concat(this.held);
    this.held = [];
    this.heldBytes = 0;
    await this.file.handle.write(batch);
  }

  /** Every record in order, in pieces of about a megabyte: what was spooled, then what is held. */
  async *chunks(): AsyncGenerator<Buffer> {
    if (this.file) {
      const buffer = Buffer.allocUnsafe(READ_BYTES);
      for (let position = 0; ; ) {
        const { bytesRead } = await this.file.handle.read(buffer, 0, buffer.length, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        yield Buffer.from(buffer.subarray(0, bytesRead));
      }
    }
    for (let i = 0; i < this.held.length; i += 1024) yield Buffer.concat(this.held.slice(i, i + 1024));
  }

  /** Forgets the records and removes the spool file. */
  async close(): Promise<void> {
    this.held = [];
    this.heldBytes = 0;
    const file = this.file;
    this.file = null;
    if (file) {
      await file.handle.close().catch(() => undefined);
      await fsp.rm(file.path, { force: true });
    }
  }
}
