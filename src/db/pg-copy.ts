// COPY … TO STDOUT (FORMAT binary) on PostgreSQL: the rows of a query as raw bytes. node-postgres
// decodes every text field of an ordinary result into a JavaScript string; a page of annotations is
// megabytes of text that is only ever sent on as it is, so reading it as bytes saves the decoding, the
// encoding back and the garbage of a thousand large strings.
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

/** The 11-byte signature of the binary format, then a flags word and a header-extension length. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** A tuple's field count of -1 marks the end of the data; a field length of -1 is NULL. */
const END = -1;
const NULL_LENGTH = -1;

/**
 * Runs `statement`, a complete `COPY (…) TO STDOUT (FORMAT binary)`, and returns what it wrote in the
 * chunks it arrived in (joining them would copy megabytes for nothing). COPY takes no bind
 * parameters: every value must already be a literal in the statement.
 */
export async function copyOut(pool: pg.Pool, statement: string): Promise<Buffer[]> {
  const client = await pool.connect();
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of client.query(copyTo(statement))) chunks.push(chunk as Buffer);
  } catch (error) {
    // The connection may be left mid-protocol: drop it from the pool rather than hand it on.
    client.release(error instanceof Error ? error : true);
    throw error;
  }
  client.release();
  return chunks;
}

/**
 * Reads binary COPY data tuple by tuple, field by field, across the chunks it arrived in. Fields are
 * copied straight to where they go (copyField) rather than cut out as Buffers of their own: a page is
 * thousands of fields, and each Buffer object is garbage to collect.
 */
export class BinaryCopyReader {
  private chunk = 0;
  private at = 0;

  constructor(private readonly chunks: Buffer[]) {
    for (const byte of SIGNATURE) {
      if (this.chunks.length === 0 || this.byte() !== byte) throw new Error('not PostgreSQL binary COPY data');
    }
    this.int32(); // flags: nothing in them changes how tuples read
    this.skip(this.int32()); // the header extension
  }

  /** How many bytes the data holds: more than its fields, so room enough to copy them all. */
  get totalBytes(): number {
    return this.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  }

  /** Starts the next tuple: its field count, or null after the last one. */
  nextTuple(): number | null {
    const count = (((this.byte() << 8) | this.byte()) << 16) >> 16; // signed 16 bits
    return count === END ? null : count;
  }

  /** The next field, a 4-byte integer. */
  intField(): number {
    if (this.int32() !== 4) throw new Error('binary COPY field is not a 4-byte integer');
    return this.int32();
  }

  /** The next field as text; null for NULL. */
  textField(): string | null {
    const length = this.int32();
    if (length === NULL_LENGTH) return null;
    const bytes = Buffer.allocUnsafe(length);
    this.copy(bytes, 0, length);
    return bytes.toString('utf8');
  }

  /** Copies the next field's bytes into `out` at `offset`; returns how many (0 for NULL). */
  copyField(out: Buffer, offset: number): number {
    const length = this.int32();
    if (length === NULL_LENGTH) return 0;
    this.copy(out, offset, length);
    return length;
  }

  /** Passes over the next field. */
  skipField(): void {
    const length = this.int32();
    if (length !== NULL_LENGTH) this.skip(length);
  }

  private current(): Buffer {
    while (this.chunk < this.chunks.length && this.at >= this.chunks[this.chunk]!.length) {
      this.chunk += 1;
      this.at = 0;
    }
    const chunk = this.chunks[this.chunk];
    if (!chunk) throw new Error('binary COPY data ends early');
    return chunk;
  }

  private byte(): number {
    return this.current()[this.at++]!;
  }

  /** A signed 32-bit big-endian integer, which may straddle two chunks. */
  private int32(): number {
    return ((this.byte() << 24) | (this.byte() << 16) | (this.byte() << 8) | this.byte()) | 0;
  }

  private copy(out: Buffer, offset: number, length: number): void {
    let left = length;
    while (left > 0) {
      const chunk = this.current();
      const n = Math.min(left, chunk.length - this.at);
      chunk.copy(out, offset + length - left, this.at, this.at + n);
      this.at += n;
      left -= n;
    }
  }

  private skip(length: number): void {
    let left = length;
    while (left > 0) {
      const n = Math.min(left, this.current().length - this.at);
      this.at += n;
      left -= n;
    }
  }
}
