// A ranged GET on S3 that some compatible servers answer with more than the range asked for.
import { Readable } from 'node:stream';
import type { ByteRange } from './archive-store.ts';

/** The first `length` bytes of the stream; the rest is left unread and the stream closed. */
async function* firstBytes(body: Readable, length: number): AsyncGenerator<Buffer> {
  let left = length;
  for await (const chunk of body) {
    const bytes = chunk as Buffer;
    if (bytes.length >= left) {
      yield bytes.subarray(0, left);
      break;
    }
    left -= bytes.length;
    yield bytes;
  }
  body.destroy();
}

/**
 * The body of a GET for `range`, cut to the range. Some S3-compatible servers read `bytes=0-0` as
 * "from 0 to the end" (s3rver does); a range's reader must get the bytes it asked for and no more, or
 * its Content-Length lies.
 */
export function rangeOf(body: Readable, contentLength: number | undefined, range: ByteRange): Readable {
  const length = range.end - range.start + 1;
  return contentLength === length ? body : Readable.from(firstBytes(body, length), { objectMode: false });
}
