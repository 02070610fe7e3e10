// A zip archive written as a stream, entry after entry, in bounded memory.
//
// An entry whose bytes are at hand is written with its CRC and sizes in its local header, so a reader
// that reads the archive front to back (not by its central directory) can read it. An entry that
// streams is written as its bytes come: a local header that defers the CRC and sizes to a data
// descriptor after the bytes (general purpose bit 3), so nothing is read twice or held whole; the
// descriptor's sizes are 8 bytes only when the entry outgrew 4 GiB, the width streaming readers
// (Java's ZipInputStream) expect. What the format must keep to the end is the central directory,
// its encoded records (about 80 bytes and the name, per entry), spooled to a file past a few
// megabytes (zip-central.ts). ZIP64 fields are
// written where a size, an offset or the entry count outgrows the classic format (4 GiB, 65,535
// entries), and only there.
//
// Written here rather than with yazl: yazl looks for its next entry from the first one each time, so
// an archive of n entries costs n² steps (40,000 entries took 10 s, 65,000 took 30 s); an export of a
// large project has hundreds of thousands.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { crc32 } from './crc32.ts';
import { CentralDirectory } from './zip-central.ts';

const deflateRaw = promisify(zlib.deflateRaw);
/** Buffers up to this size are deflated on the calling thread; larger ones on the thread pool. */
const SYNC_DEFLATE_BYTES = 256 * 1024;

export interface ZipEntry {
  /** `/`-separated relative path. */
  path: string;
  /** The bytes at hand, or a function that opens (or reads) them when the entry is written. */
  body: Buffer | (() => Promise<AsyncIterable<Buffer> | Iterable<Buffer>>);
  /** Deflate the bytes (text), or store them as they are (images, already compressed). */
  compress: boolean;
}

export interface ZipArchiveOptions {
  /** The modification time of every entry; one per archive keeps the archive's bytes reproducible. */
  mtime?: Date;
  /** Write the ZIP64 end records even for a small archive (a test of readers). */
  forceZip64?: boolean;
  /** Where the central directory goes once it outgrows memory; without one it stays in memory. */
  spoolDir?: string;
  /** How much of the central directory is held before it goes to `spoolDir` (a test's knob). */
  centralMemoryBytes?: number;
}

/** Text-like entries are deflated; everything else (images, PNG masks) is stored. */
export function isCompressible(path: string): boolean {
  return /\.(json|xml|txt|yaml|yml|csv)$/i.test(path);
}

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_HEADER = 0x02014b50;
const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const END = 0x06054b50;
/** Bit 11: the name is UTF-8. */
const UTF8_NAME = 1 << 11;
/** Bit 3: CRC and sizes follow the data. */
const SIZES_AFTER = 1 << 3;
const VERSION_DEFAULT = 20;
const VERSION_ZIP64 = 45;
/** Made by: Unix (3), so the external attributes carry a file mode. */
const MADE_BY = (3 << 8) | VERSION_ZIP64;
const FILE_MODE = 0o100644;
const MAX32 = 0xffffffff;
const MAX16 = 0xffff;

/** Date and time in MS-DOS form (two-second steps, from 1980). */
function dosDateTime(date: Date): { date: number; time: number } {
  const year = Math.max(1980, date.getUTCFullYear());
  return {
    date: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2),
  };
}

export class ZipArchive {
  /** The archive's bytes; read them while entries are added, or `add` waits forever. */
  readonly output: Readable;
  private readonly dos: { date: number; time: number };
  private readonly forceZip64: boolean;
  /** Bytes written so far: the offset of the next local header. */
  private offset = 0;
  private readonly central: CentralDirectory;
  private failure: Error | null = null;
  private ended = false;
  /** Resumes a write waiting for the reader, when the reader has taken what was given. */
  private resumeWrite: (() => void) | null = null;
  /** Bytes given and not yet pushed; null ends the output. */
  private readonly queue: (Buffer | null)[] = [];
  private queued = 0;
  /** Whether the output takes more: false from a refused push until its reader asks again. */
  private wanted = true;

  constructor(options: ZipArchiveOptions = {}) {
    this.dos = dosDateTime(options.mtime ?? new Date());
    this.forceZip64 = options.forceZip64 ?? false;
    this.central = new CentralDirectory(options.spoolDir ?? null, options.centralMemoryBytes);
    this.output = new Readable({
      highWaterMark: 1 << 20,
      read: () => {
        this.wanted = true;
        this.flush();
      },
      destroy: (error, callback) => {
        if (!this.failure) this.failure = error ?? new Error('the archive output was closed before the archive ended');
        this.resumeWrite?.();
        callback(error);
      },
    });
    // A failure may end the output before its reader is attached (an archive store still making its
    // temporary file): an 'error' with no listener would be an uncaught error of the whole process. A
    // reader attached later learns of the failure from the destroyed stream all the same.
    this.output.on('error', () => undefined);
  }

  /** Writes one entry, its bytes streamed; resolves when they are handed to the output. */
  async add(entry: ZipEntry): Promise<void> {
    if (this.ended) throw new Error('the archive has ended');
    this.check();
    const name = Buffer.from(entry.path, 'utf8');
    if (name.length > MAX16) throw new Error(`entry path too long: ${entry.path.slice(0, 80)}…`);
    const method = entry.compress ? 8 : 0;
    const headerOffset = this.offset;
    const body = entry.body;
    if (Buffer.isBuffer(body) && body.length < MAX32) {
      // Bytes at hand: deflated in one call (a deflate stream an entry cost more than the deflating
      // itself for the small files, annotations, that are most of an archive's entries), and the
      // header says their CRC and sizes.
      const crc = crc32(body);
      const data = !entry.compress ? body : body.length <= SYNC_DEFLATE_BYTES ? zlib.deflateRawSync(body) : await deflateRaw(body);
      await this.write(this.localHeader(name, method, { crc, size: body.length, compressedSize: data.length }));
      await this.write(data);
      await this.central.add(this.centralRecord(name, method, UTF8_NAME, crc, body.length, data.length, headerOffset));
      return;
    }
    await this.write(this.localHeader(name, method, null));
    let crc = 0;
    let size = 0;
    let compressedSize = 0;
    try {
      const source = typeof body === 'function' ? await body() : [body];
      const counted = async function* () {
        for await (const chunk of source) {
          crc = crc32(chunk, crc);
          size += chunk.length;
          yield chunk;
        }
      };
      const sink = async (chunks: AsyncIterable<Buffer>) => {
        for await (const chunk of chunks) {
          compressedSize += chunk.length;
          await this.write(chunk);
        }
      };
      if (entry.compress) await pipeline(Readable.from(counted()), zlib.createDeflateRaw(), sink);
      else await sink(counted());
    } catch (error) {
      this.fail(error as Error);
      throw error;
    }
    await this.close(name, method, headerOffset, crc, size, compressedSize);
  }

  /** The data descriptor after a streamed entry's bytes, and its central directory record kept for the end. */
  private async close(name: Buffer, method: number, headerOffset: number, crc: number, size: number, compressedSize: number): Promise<void> {
    await this.write(this.dataDescriptor(crc, size, compressedSize));
    await this.central.add(this.centralRecord(name, method, UTF8_NAME | SIZES_AFTER, crc, size, compressedSize, headerOffset));
  }

  /** Writes the central directory and ends the output. */
  async end(): Promise<void> {
    this.check();
    this.ended = true;
    const start = this.offset;
    try {
      for await (const chunk of this.central.chunks()) await this.write(chunk);
    } finally {
      await this.central.close();
    }
    const { count, size: centralSize } = this.central;
    const zip64 = this.forceZip64 || count >= MAX16 || centralSize >= MAX32 || start >= MAX32;
    if (zip64) {
      const record = Buffer.alloc(56);
      record.writeUInt32LE(ZIP64_END, 0);
      record.writeBigUInt64LE(44n, 4);
      record.writeUInt16LE(MADE_BY, 12);
      record.writeUInt16LE(VERSION_ZIP64, 14);
      record.writeBigUInt64LE(BigInt(count), 24);
      record.writeBigUInt64LE(BigInt(count), 32);
      record.writeBigUInt64LE(BigInt(centralSize), 40);
      record.writeBigUInt64LE(BigInt(start), 48);
      const locator = Buffer.alloc(20);
      locator.writeUInt32LE(ZIP64_LOCATOR, 0);
      locator.writeBigUInt64LE(BigInt(this.offset), 8);
      locator.writeUInt32LE(1, 16);
      await this.write(Buffer.concat([record, locator]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(END, 0);
    end.writeUInt16LE(zip64 ? MAX16 : count, 8);
    end.writeUInt16LE(zip64 ? MAX16 : count, 10);
    end.writeUInt32LE(zip64 ? MAX32 : centralSize, 12);
    end.writeUInt32LE(zip64 ? MAX32 : start, 16);
    await this.write(end);
    this.queue.push(null);
    this.flush();
  }

  /** Ends the output with `error`: its reader sees the failure, never a short archive that looks whole. */
  fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.output.destroy(error);
    void this.central.close().catch(() => undefined);
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }

  /** A local header: with the CRC and sizes of bytes at hand, or (null) deferring them for a stream. */
  private localHeader(name: Buffer, method: number, known: { crc: number; size: number; compressedSize: number } | null): Buffer {
    const header = Buffer.alloc(30);
    header.writeUInt32LE(LOCAL_HEADER, 0);
    header.writeUInt16LE(VERSION_DEFAULT, 4);
    header.writeUInt16LE(known ? UTF8_NAME : UTF8_NAME | SIZES_AFTER, 6);
    header.writeUInt16LE(method, 8);
    header.writeUInt16LE(this.dos.time, 10);
    header.writeUInt16LE(this.dos.date, 12);
    // A stream's CRC and sizes (offsets 14–25) stay 0: they follow in the data descriptor.
    if (known) {
      header.writeUInt32LE(known.crc, 14);
      header.writeUInt32LE(known.compressedSize, 18);
      header.writeUInt32LE(known.size, 22);
    }
    header.writeUInt16LE(name.length, 26);
    return Buffer.concat([header, name]);
  }

  private dataDescriptor(crc: number, size: number, compressedSize: number): Buffer {
    const zip64 = size >= MAX32 || compressedSize >= MAX32;
    const descriptor = Buffer.alloc(zip64 ? 24 : 16);
    descriptor.writeUInt32LE(DATA_DESCRIPTOR, 0);
    descriptor.writeUInt32LE(crc, 4);
    if (zip64) {
      descriptor.writeBigUInt64LE(BigInt(compressedSize), 8);
      descriptor.writeBigUInt64LE(BigInt(size), 16);
    } else {
      descriptor.writeUInt32LE(compressedSize, 8);
      descriptor.writeUInt32LE(size, 12);
    }
    return descriptor;
  }

  private centralRecord(name: Buffer, method: number, flags: number, crc: number, size: number, compressedSize: number, offset: number): Buffer {
    // The ZIP64 extra field holds, in this order, only the values too large for their 32-bit field.
    const large = [size, compressedSize, offset].filter((value) => value >= MAX32);
    const extra = Buffer.alloc(large.length > 0 ? 4 + 8 * large.length : 0);
    if (large.length > 0) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(8 * large.length, 2);
      large.forEach((value, i) => extra.writeBigUInt64LE(BigInt(value), 4 + 8 * i));
    }
    const record = Buffer.alloc(46);
    record.writeUInt32LE(CENTRAL_HEADER, 0);
    record.writeUInt16LE(MADE_BY, 4);
    record.writeUInt16LE(large.length > 0 ? VERSION_ZIP64 : VERSION_DEFAULT, 6);
    record.writeUInt16LE(flags, 8);
    record.writeUInt16LE(method, 10);
    record.writeUInt16LE(this.dos.time, 12);
    record.writeUInt16LE(this.dos.date, 14);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(Math.min(compressedSize, MAX32), 20);
    record.writeUInt32LE(Math.min(size, MAX32), 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt16LE(extra.length, 30);
    // Comment length, disk number, internal attributes: 0.
    record.writeUInt32LE((FILE_MODE << 16) >>> 0, 38);
    record.writeUInt32LE(Math.min(offset, MAX32), 42);
    return Buffer.concat([record, name, extra]);
  }

  /** Hands bytes to the output; waits while the reader is behind by more than its buffer. */
  private async write(chunk: Buffer): Promise<void> {
    this.check();
    this.offset += chunk.length;
    this.queue.push(chunk);
    this.queued += chunk.length;
    this.flush();
    while (this.queued > this.output.readableHighWaterMark && !this.failure) {
      await new Promise<void>((resolve) => (this.resumeWrite = resolve));
      this.resumeWrite = null;
    }
    this.check();
  }

  /** Pushes what is queued while the reader wants more. */
  private flush(): void {
    while (this.queue.length > 0 && this.wanted) {
      const chunk = this.queue.shift()!;
      if (chunk === null) {
        this.output.push(null);
        return;
      }
      this.queued -= chunk.length;
      if (!this.output.push(chunk)) this.wanted = false;
    }
    if (this.queued <= this.output.readableHighWaterMark) this.resumeWrite?.();
  }
}

