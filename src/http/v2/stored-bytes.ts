// Sends stored, immutable bytes (an image file, a thumbnail) the way browsers and caches want them:
// a strong ETag, 304 to a matching If-None-Match, one byte range (If-Range honoured), cached for a
// year. The bytes under a tag never change, so a client never needs to ask twice.
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import type { ByteRange } from '../../storage/archive-store.ts';
import { parseRange } from './byte-range.ts';
import { ifNoneMatchHits } from './etag.ts';

export interface StoredBytes {
  /** A strong entity tag, quoted. */
  etag: string;
  size: number;
  contentType: string;
  open(range?: ByteRange): Promise<Readable>;
}

const IMMUTABLE = 'private, max-age=31536000, immutable';

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

export function sendStoredBytes(request: FastifyRequest, reply: FastifyReply, stored: StoredBytes): FastifyReply | Promise<FastifyReply> {
  void reply.header('ETag', stored.etag).header('Cache-Control', IMMUTABLE).header('Accept-Ranges', 'bytes').header('X-Content-Type-Options', 'nosniff');
  if (ifNoneMatchHits(request, stored.etag)) return reply.code(304).send();
  void reply.header('Content-Type', stored.contentType);
  const range = parseRange(first(request.headers.range), stored.size, first(request.headers['if-range']), stored.etag);
  if (range === 'unsatisfiable') {
    void reply.header('Content-Range', `bytes */${stored.size}`);
    throw new AppError('RANGE_NOT_SATISFIABLE', `the range is outside the ${stored.size} bytes`, { size: stored.size });
  }
  if (range) {
    void reply.code(206).header('Content-Range', `bytes ${range.start}-${range.end}/${stored.size}`).header('Content-Length', range.end - range.start + 1);
    return stored.open(range).then((stream) => reply.send(stream));
  }
  void reply.header('Content-Length', stored.size);
  return stored.open().then((stream) => reply.send(stream));
}
