// The state a client leaves after uploading files, written in bulk straight into the database and
// the blob folder: blob bytes (no fsync), blob rows and the team's staged files. Only what comes
// after the upload is measured, so how the state got there does not matter.
import { createHash, randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Kysely } from 'kysely';
import type { Database } from '../src/db/types.ts';
import { insertStagedFiles } from '../src/repositories/staging.repository.ts';
import { blobKey } from '../src/storage/blob-store.ts';
import { mulberry32 } from '../src/seeded-random.ts';

export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('base64');

/** A small PNG whose bytes differ per index: `base` with a text chunk naming the index. */
export function tinyPng(base: Buffer, index: number): Buffer {
  const data = Buffer.from(`bench\0${index}`, 'latin1');
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(zlib.crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  const iend = base.length - 12;
  return Buffer.concat([base.subarray(0, iend), chunk, base.subarray(iend)]);
}

/** A deterministic generator of numbers in [0, 1): the same seed always gives the same data. */
export const prng = mulberry32;

type StagedRow = Parameters<typeof insertStagedFiles>[1][number];

/**
 * Collects uploaded files and writes them on flush(). The staged files expire in a year, so a cached
 * seed stays usable between runs (uploads normally live 24 hours).
 */
export class UploadedStateWriter {
  private blobs: { hash: string; size: number; media_type: string; width: number | null; height: number | null; created_at: string }[] = [];
  private staged: StagedRow[] = [];
  private writes: Promise<void>[] = [];
  private readonly createdAt: string;
  private readonly expiresAt: string;

  constructor(
    private readonly db: Kysely<Database>,
    /** The folder store's root: DATA_DIR/blobs. */
    private readonly blobsRoot: string,
    private readonly teamId: number,
  ) {
    const now = new Date();
    this.createdAt = now.toISOString();
    this.expiresAt = new Date(now.getTime() + 365 * 24 * 3600_000).toISOString();
  }

  /** An image (with its pixel size) or an annotation or class file of `format`. */
  put(bytes: Buffer, kind: 'image' | 'annotation' | 'class', name: string, size: { width: number; height: number } | null, format = 'supervisely'): { hash: string; fileId: string } {
    const hash = sha256(bytes);
    const target = path.join(this.blobsRoot, 'objects', blobKey(hash));
    this.writes.push(fsp.mkdir(path.dirname(target), { recursive: true }).then(() => fsp.writeFile(target, bytes)));
    const image = kind === 'image';
    this.blobs.push({ hash, size: bytes.length, media_type: image ? 'image/png' : 'application/octet-stream', width: size?.width ?? null, height: size?.height ?? null, created_at: this.createdAt });
    const fileId = `f_bench${randomBytes(12).toString('base64url')}`;
    this.staged.push({ id: fileId, teamId: this.teamId, kind, format, name, hash, size: bytes.length, createdAt: this.createdAt, expiresAt: this.expiresAt });
    return { hash, fileId };
  }

  /** How many files wait for flush(); flushing every few thousand keeps the memory small. */
  get pending(): number {
    return this.staged.length;
  }

  async flush(): Promise<void> {
    await Promise.all(this.writes);
    const { blobs, staged } = this;
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < blobs.length; i += 500) {
        await trx.insertInto('blobs').values(blobs.slice(i, i + 500)).onConflict((oc) => oc.column('hash').doNothing()).execute();
      }
      for (let i = 0; i < staged.length; i += 500) await insertStagedFiles(trx, staged.slice(i, i + 500));
    });
    this.blobs = [];
    this.staged = [];
    this.writes = [];
  }
}
