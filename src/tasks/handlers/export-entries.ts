// Archive entries into the zip, in order, with the image blobs read ahead: a blob read is several
// trips to the thread pool (open, read, close) or a request to S3, and waiting for each in turn left
// the export idle most of its time (bench/export.ts). They are asked for in batches, which a local
// store reads on a thread of its own in one go (blob-reader.ts).
import type { Readable } from 'node:stream';
import type { ArchiveEntry } from '../../formats/writer.ts';
import { type ZipArchive, type ZipEntry, isCompressible } from '../../formats/zip-archive.ts';
import type { BlobStore } from '../../storage/blob-store.ts';

/** Blobs up to this size are read whole, and so may be read ahead; larger ones are streamed in turn. */
const READ_WHOLE_BYTES = 4 * 1024 * 1024;
/**
 * Entries read ahead of the one being written, and the bytes their blobs may hold at most. A new
 * batch is asked for once half of them have been written, so one is read while the other is written.
 */
const AHEAD = 128;
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
    if (next > current + AHEAD / 2) return;
    const batch: { index: number; hash: string; size: number }[] = [];
    for (; next < entries.length && next <= current + AHEAD && (bytesAhead < AHEAD_BYTES || next === current); next += 1) {
      const blob = smallBlob(entries[next]!);
      if (!blob) continue;
      batch.push({ index: next, ...blob });
      bytesAhead += blob.size;
    }
    if (batch.length === 0) return;
    blobs.readSmall(batch).forEach((bytes, i) => {
      // Awaited in its turn, where a failure fails the archive; until then it must not go unhandled.
      bytes.catch(() => undefined);
      reads.set(batch[i]!.index, { bytes, size: batch[i]!.size });
    });
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
