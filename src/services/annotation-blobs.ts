// Annotation blobs made at planning (one Supervisely annotation per image of a COCO, VOC or YOLO
// import), stored and staged for the team a batch at a time, so an import of any size holds two
// batches of them in memory at most: one being stored, the next one filling. A batch ends at a count
// of blobs or of bytes, whichever comes first: images of a hundred objects make 20 KiB annotations,
// and 2,000 of those held twice were 80 MB of the server's memory.
import { createHash, randomBytes } from 'node:crypto';
import { mapLimited } from '../concurrency.ts';
import type { Context } from '../context.ts';
import * as images from '../repositories/images.repository.ts';
import * as staging from '../repositories/staging.repository.ts';

/**
 * Blobs per batch: one transaction each, so few commits (each may end in a WAL checkpoint on
 * SQLite), while a batch of ~2 KiB annotations stays a few MB.
 */
const BATCH_SIZE = 2000;
/** Bytes of annotations per batch at most (a batch has at least one blob, whatever its size). */
const BATCH_BYTES = 8 * 1024 * 1024;
/** Blob writes in flight: each one ends in an fsync, which waits on the disk rather than the CPU. */
const WRITES_IN_FLIGHT = 32;

export class AnnotationBlobWriter {
  private batch = new Map<string, { bytes: Buffer; path: string }>();
  private batchBytes = 0;
  /** The batch being stored: the next one fills meanwhile, so reading and writing overlap. */
  private storing: Promise<void> = Promise.resolve();

  private readonly batchSize: number;
  private readonly maxBatchBytes: number;

  constructor(
    private readonly ctx: Context,
    private readonly teamId: number,
    options: { batchSize?: number; batchBytes?: number } = {},
  ) {
    this.batchSize = options.batchSize ?? BATCH_SIZE;
    this.maxBatchBytes = options.batchBytes ?? BATCH_BYTES;
  }

  /** Queues the annotation of the image at `imagePath`; answers its hash. */
  async add(bytes: Buffer, imagePath: string): Promise<string> {
    const hash = createHash('sha256').update(bytes).digest('base64');
    if (!this.batch.has(hash)) this.batchBytes += bytes.length;
    this.batch.set(hash, { bytes, path: `${imagePath}.json` });
    if (this.batch.size >= this.batchSize || this.batchBytes >= this.maxBatchBytes) await this.startBatch();
    return hash;
  }

  /** Stores what is queued; answers when every batch is stored. */
  async flush(): Promise<void> {
    await this.startBatch();
    await this.storing;
  }

  private async startBatch(): Promise<void> {
    const entries = [...this.batch];
    this.batch = new Map();
    this.batchBytes = 0;
    await this.storing;
    if (entries.length === 0) return;
    this.storing = store(this.ctx, this.teamId, entries);
    // Awaited by the next batch or flush(); until then a failure must not count as unhandled.
    this.storing.catch(() => {});
  }
}

/** Stores the blobs and stages them for the team, so they live as long as an upload. */
async function store(ctx: Context, teamId: number, entries: [string, { bytes: Buffer; path: string }][]): Promise<void> {
  const known = await staging.blobsByHash(ctx.db.kysely, entries.map(([hash]) => hash));
  const todo = entries.filter(([hash]) => !known.has(hash));
  // Bytes first, rows after: a blob row always has its bytes in the store.
  await mapLimited(todo, WRITES_IN_FLIGHT, ([hash, b]) => ctx.blobs.putBytes(hash, b.bytes));
  const now = new Date();
  const createdAt = now.toISOString();
  const expiresAt = new Date(now.getTime() + ctx.config.limits.stagedFileTtlMs).toISOString();
  // One draw of randomness for the batch's file ids rather than one per file.
  const random = randomBytes(16 * entries.length);
  await ctx.db.kysely.transaction().execute(async (trx) => {
    await images.ensureBlobs(trx, entries.map(([hash, b]) => ({ hash, size: b.bytes.length, mediaType: 'application/json', width: null, height: null })));
    for (let i = 0; i < entries.length; i += 1000) {
      await staging.insertStagedFiles(
        trx,
        entries.slice(i, i + 1000).map(([hash, b], j) => ({
          id: `f_${random.subarray(16 * (i + j), 16 * (i + j + 1)).toString('base64url')}`,
          teamId,
          kind: 'annotation',
          format: 'supervisely',
          name: b.path,
          hash,
          size: b.bytes.length,
          createdAt,
          expiresAt,
        })),
      );
    }
  });
}
