// Archives on S3: written by multipart upload, which S3 publishes only on CompleteMultipartUpload, so
// a reader finds the whole archive or none; a failed upload is aborted, leaving no parts behind.
// One part is held in memory while it is sent.
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { type ArchiveStat, type ArchiveStore, type ByteRange, checkArchiveKey } from './archive-store.ts';
import { rangeOf } from './first-bytes.ts';
import { type S3Location, createS3Client, isMissing, parseS3Url } from './s3-blob-store.ts';

/**
 * 16 MiB parts: S3 takes at most 10,000 parts, so an archive may reach 160 GiB; every part but the
 * last must be at least 5 MiB.
 */
const DEFAULT_PART_SIZE = 16 * 1024 * 1024;

/** The stream cut into parts of `size` bytes (the last one shorter). */
async function* parts(body: Readable, size: number): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    let rest = chunk as Buffer;
    while (length + rest.length >= size) {
      const take = size - length;
      held.push(rest.subarray(0, take));
      yield Buffer.concat(held);
      held = [];
      length = 0;
      rest = rest.subarray(take);
    }
    if (rest.length > 0) {
      held.push(rest);
      length += rest.length;
    }
  }
  if (length > 0) yield Buffer.concat(held);
}

export class S3ArchiveStore implements ArchiveStore {
  readonly bucket: string;
  private readonly client: S3Client;
  private readonly location: S3Location;
  private readonly partSize: number;

  constructor(location: S3Location, client: S3Client, options: { partSize?: number } = {}) {
    this.location = location;
    this.client = client;
    this.bucket = location.bucket;
    this.partSize = options.partSize ?? DEFAULT_PART_SIZE;
  }

  static fromUrl(url: string, options: { partSize?: number } = {}): S3ArchiveStore {
    const location = parseS3Url(url);
    return new S3ArchiveStore(location, createS3Client(location), options);
  }

  private keyOf(key: string): string {
    checkArchiveKey(key);
    return this.location.prefix ? `${this.location.prefix}/${key}` : key;
  }

  objectName(key: string): string {
    return this.keyOf(key);
  }

  async put(key: string, body: Readable): Promise<ArchiveStat> {
    const Bucket = this.location.bucket;
    const Key = this.keyOf(key);
    let UploadId: string | undefined;
    try {
      ({ UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType: 'application/zip' })));
      const done: { ETag: string; PartNumber: number }[] = [];
      for await (const part of parts(body, this.partSize)) {
        const PartNumber = done.length + 1;
        const answer = await this.client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: part, ContentLength: part.length }));
        done.push({ ETag: answer.ETag!, PartNumber });
      }
      if (done.length === 0) {
        // S3 completes no upload without a part; an empty archive is one empty part.
        const answer = await this.client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: Buffer.alloc(0), ContentLength: 0 }));
        done.push({ ETag: answer.ETag!, PartNumber: 1 });
      }
      await this.client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: done } }));
    } catch (error) {
      // The writer of the stream learns that nobody reads it any more.
      body.destroy(error instanceof Error ? error : undefined);
      if (UploadId) await this.client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => undefined);
      throw error;
    }
    return (await this.stat(key))!;
  }

  async read(key: string, range?: ByteRange, etag?: string): Promise<Readable> {
    const answer = await this.client.send(
      new GetObjectCommand({
        Bucket: this.location.bucket,
        Key: this.keyOf(key),
        ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        ...(etag ? { IfMatch: etag } : {}),
      }),
    );
    if (!answer.Body) throw new Error(`archive ${key} has no body`);
    const body = answer.Body as Readable;
    // Not every S3-compatible server honours If-Match on a GET (s3rver does not): the answer's own tag decides.
    if (etag !== undefined && answer.ETag !== undefined && answer.ETag !== etag) {
      body.destroy();
      throw new Error(`archive ${key} changed since its entity tag was read`);
    }
    return range ? rangeOf(body, answer.ContentLength, range) : body;
  }

  async stat(key: string): Promise<ArchiveStat | null> {
    try {
      const answer = await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(key) }));
      return { size: answer.ContentLength ?? 0, etag: answer.ETag ?? `"${answer.LastModified?.getTime() ?? 0}"` };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(key) }));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
