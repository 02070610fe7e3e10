// Archive entries into the zip, in order, with the image blobs read a few entries ahead: a blob read
// is several trips to the thread pool (open, stat, read, close) or a request to S3, and waiting for
// each in turn left the export idle most of its time (bench/export.ts).
import type { Readable } from 'node:stream';
import type { ArchiveEntry } from '../../formats/writer.ts';
import { type ZipArchive, type ZipEntry, isCompressible } from '../../formats/zip-archive.ts';
import type { BlobStore } from '../../storage/blob-store.ts';

/** Blobs up to this size are read whole, and so may be read ahead; larger ones are streamed in turn. */
const READ_WHOLE_BYTES = 4 * 1024 * 1024;
/** Reads in flight ahead of the entry being written, and the bytes they may hold at most. */
const AHEAD = 16;
const AHEAD_BYTES = 32 * 1024 * 1024;

/**
 * Writes the entries into the archive in their order. `sizes` gives the byte size of the blobs the
 * entries name (those of the images of the page being written); a blob it does not know is streamed.
 */
export async function addEntries(
  archive: ZipArchive,
  entries: readonly ArchiveEntry[],
  blobs: BlobStore,
  sizes: ReadonlyMap<string, number>,
  afterEach: () => Promise<void> = async () => undefined,
): Promise<void> {
  const smallBlob = (entry: ArchiveEntry): { hash: string; size: number } | null => {
    const body = entry.body;
    if (Buffer.isBuffer(body) || !('blobHash' in body)) return null;
    const size = sizes.get(body.blobHash);
    return size !== undefined && size <= READ_WHOLE_BYTES ? { hash: body.blobHash, size } : null;
  };
  const reads = new Map<number, { bytes: Promise<Buffer>; size: number }>();
  let next = 0;
  let bytesAhead = 0;
  const readAhead = (current: number) => {
    for (; next < entries.length && next <= current + AHEAD && (bytesAhead < AHEAD_BYTES || next === current); next += 1) {
      const blob = smallBlob(entries[next]!);
      if (!blob) continue;
      const bytes = blobs.readBytes(blob.hash, blob.size);
      // Awaited in its turn, where a failure fails the archive; until then it must not go unhandled.
      bytes.catch(() => undefined);
      reads.set(next, { bytes, size: blob.size });
      bytesAhead += blob.size;
    }
  };
  for (let i = 0; i < entries.length; i += 1) {
    readAhead(i);
    const entry = entries[i]!;
    const compress = isCompressible(entry.path);
    const read = reads.get(i);
    if (read) {
      reads.delete(i);
      bytesAhead -= read.size;
      const bytes = await read.bytes;
      await archive.add({ path: entry.path, body: bytes, compress });
    } else {
      await archive.add(zipEntry(entry, blobs));
    }
    await afterEach();
  }
}

/** The zip entry of an archive entry read in its turn: a blob streamed, a generated stream, bytes at hand. */
function zipEntry(entry: ArchiveEntry, blobs: BlobStore): ZipEntry {
  const body = entry.body;
  const compress = isCompressible(entry.path);
  if (Buffer.isBuffer(body)) return { path: entry.path, body, compress };
  if ('blobHash' in body) return { path: entry.path, body: (): Promise<Readable> => blobs.read(body.blobHash), compress };
  return { path: entry.path, body: async () => body.stream(), compress };
}
