// Blob store on S3-compatible storage (AWS SDK v3). A PutObject is atomic: readers see the whole
// object or none.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { ByteRange } from './archive-store.ts';
import { type BlobStore, blobKey } from './blob-store.ts';
import { rangeOf } from './first-bytes.ts';
import { isConnectionFault, s3RequestHandler } from './s3-connections.ts';

export interface S3Location {
  bucket: string;
  prefix: string;
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
  /** Static credentials from the URL; undefined means the SDK's default chain (environment, profile, role). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}

/**
 * Reads a STORAGE_URL:
 * `s3://bucket/optional/prefix?endpoint=http://127.0.0.1:9000&region=us-east-1&accessKeyId=…&secretAccessKey=…`.
 * Every query parameter is optional: `region` defaults to us-east-1; `forcePathStyle` defaults to true
 * with an `endpoint` and false without; `accessKeyId` and `secretAccessKey` come as a pair, and
 * without them the SDK's default credential chain applies.
 */
export function parseS3Url(url: string): S3Location {
  const parsed = new URL(url);
  if (parsed.protocol !== 's3:' || !parsed.hostname) throw new Error('STORAGE_URL must look like s3://bucket?endpoint=…');
  const query = parsed.searchParams;
  const endpoint = query.get('endpoint') ?? undefined;
  const accessKeyId = query.get('accessKeyId');
  const secretAccessKey = query.get('secretAccessKey');
  if ((accessKeyId === null) !== (secretAccessKey === null)) {
    throw new Error('STORAGE_URL must give accessKeyId and secretAccessKey together');
  }
  const pathStyle = query.get('forcePathStyle');
  return {
    bucket: parsed.hostname,
    prefix: decodeURIComponent(parsed.pathname.replace(/^\/+|\/+$/g, '')),
    endpoint,
    region: query.get('region') ?? 'us-east-1',
    // A custom endpoint (MinIO, s3rver, …) rarely serves virtual-hosted bucket names.
    forcePathStyle: pathStyle === null ? endpoint !== undefined : pathStyle !== 'false',
    credentials: accessKeyId !== null && secretAccessKey !== null ? { accessKeyId, secretAccessKey } : undefined,
  };
}

/** The client of a location, as every store on S3 builds it. */
export function createS3Client(location: S3Location): S3Client {
  return new S3Client({
    region: location.region,
    endpoint: location.endpoint,
    forcePathStyle: location.forcePathStyle,
    credentials: location.credentials,
    // Plain (not aws-chunked) uploads: some S3-compatible servers store chunk framing otherwise.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: s3RequestHandler,
  });
}

/** Sends of one file before its upload fails; only a lost connection earns another. */
const PUT_FILE_ATTEMPTS = 3;

export const isMissing = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly location: S3Location;

  constructor(location: S3Location, client: S3Client) {
    this.location = location;
    this.client = client;
  }

  static fromUrl(url: string): S3BlobStore {
    const location = parseS3Url(url);
    return new S3BlobStore(location, createS3Client(location));
  }

  private keyOf(hash: string): string {
    const key = blobKey(hash);
    return this.location.prefix ? `${this.location.prefix}/${key}` : key;
  }

  async putFile(hash: string, localPath: string): Promise<void> {
    const key = this.keyOf(hash);
    const { size } = await fsp.stat(localPath);
    // The SDK cannot replay a stream body, so it never retries one: a request whose connection is
    // lost fails at once. The client's idle timeout (s3-connections.ts) keeps it off connections the
    // server is closing; for a connection lost all the same, the file is sent again from a fresh stream.
    for (let attempt = 1; ; attempt += 1) {
      const body = fs.createReadStream(localPath);
      try {
        await this.client.send(
          new PutObjectCommand({
            Bucket: this.location.bucket,
            Key: key,
            Body: body,
            ContentLength: size,
          }),
        );
        return;
      } catch (error) {
        if (attempt >= PUT_FILE_ATTEMPTS || !isConnectionFault(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      } finally {
        // A stream whose request failed is left unread, holding its file open for good.
        body.destroy();
      }
    }
  }

  /** The bytes are sent away; a local flush would only cost disk time. */
  readonly adoptsLocalFiles = false;

  async adoptFile(hash: string, localPath: string): Promise<void> {
    await this.putFile(hash, localPath);
    await fsp.rm(localPath, { force: true });
  }

  /** Unlike a stream, a Buffer body is one the SDK itself sends again when its connection is lost. */
  async putBytes(hash: string, bytes: Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(hash), Body: bytes }));
  }

  async read(hash: string, range?: ByteRange): Promise<Readable> {
    const answer = await this.client.send(
      new GetObjectCommand({
        Bucket: this.location.bucket,
        Key: this.keyOf(hash),
        ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }),
    );
    if (!answer.Body) throw new Error(`blob ${hash} has no body`);
    const body = answer.Body as Readable;
    return range ? rangeOf(body, answer.ContentLength, range) : body;
  }

  async readBytes(hash: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.read(hash)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  readSmall(blobs: readonly { hash: string; size: number }[]): Promise<Buffer>[] {
    return blobs.map((blob) => this.readBytes(blob.hash));
  }

  async has(hash: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(hash) }));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async delete(hash: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(hash) }));
  }

  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.location.bucket }));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

