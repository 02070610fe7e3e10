// Thumbnails of image blobs, made once: a stored one is read back, a missing one is made with sharp,
// stored in the blob store under the hash of its bytes, then recorded. Calls in this process for the
// same thumbnail while it is being made share that one run; across processes the first record wins
// and a loser's bytes are removed. The 256 px thumbnail brings the image's thumbhash and perceptual
// hashes (for near-duplicates) with it.
import { createHash } from 'node:crypto';
import { Slots } from '../concurrency.ts';
import type { Db } from '../db/create-db.ts';
import { AppError } from '../errors.ts';
import * as thumbnails from '../repositories/thumbnails.repository.ts';
import type { ThumbnailRecord } from '../repositories/thumbnails.repository.ts';
import { loadSharp } from '../sharp.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { renderPerceptualHashes } from './perceptual-hash-render.ts';
import { renderThumbhash, renderThumbnail } from './thumbnail-render.ts';

export const THUMBNAIL_SIZES = [256, 1024] as const;
export type ThumbnailSize = (typeof THUMBNAIL_SIZES)[number];
/** The size made for every image after an import, with the thumbhash and perceptual hashes. */
export const GRID_THUMBNAIL_SIZE: ThumbnailSize = 256;
/**
 * sharp runs at once in a process: each holds a decoded image (up to the pixel limit) and keeps a
 * core busy; requests for many thumbnails wait their turn rather than exhaust memory.
 */
const RENDERS_AT_ONCE = 2;

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64');

export class ThumbnailMaker {
  private readonly db: Db;
  private readonly blobs: BlobStore;
  private readonly maxPixels: number;
  private readonly making = new Map<string, Promise<ThumbnailRecord>>();
  private readonly slots = new Slots(RENDERS_AT_ONCE);
  private renders = 0;

  constructor(db: Db, blobs: BlobStore, maxPixels: number) {
    this.db = db;
    this.blobs = blobs;
    this.maxPixels = maxPixels;
  }

  /** Thumbnails this process has drawn with sharp (not counting thumbhashes). */
  get rendered(): number {
    return this.renders;
  }

  /** The stored thumbnail of the image blob `hash` at `size`, made first when there is none. */
  async thumbnail(hash: string, size: ThumbnailSize): Promise<ThumbnailRecord> {
    return (await thumbnails.findThumbnail(this.db.kysely, hash, size)) ?? this.make(hash, size);
  }

  /** Makes what the blob lacks at `size`: the thumbnail and, at the grid size, the thumbhash and perceptual hashes. */
  make(hash: string, size: ThumbnailSize): Promise<ThumbnailRecord> {
    const id = `${size}:${hash}`;
    let running = this.making.get(id);
    if (!running) {
      running = this.slots.run(() => this.makeNow(hash, size)).finally(() => this.making.delete(id));
      this.making.set(id, running);
    }
    return running;
  }

  private async makeNow(hash: string, size: ThumbnailSize): Promise<ThumbnailRecord> {
    const db = this.db.kysely;
    // Another process, or a run here that ended a moment ago, may have made it.
    const stored = await thumbnails.findThumbnail(db, hash, size);
    const extras = size === GRID_THUMBNAIL_SIZE ? await thumbnails.gridExtrasOf(db, hash) : { thumbhash: '', phash: '' };
    const needsThumbhash = extras.thumbhash === null;
    const needsHashes = extras.phash === null;
    if (stored && !needsThumbhash && !needsHashes) return stored;
    const sharp = await loadSharp();
    let record: ThumbnailRecord;
    let webp: Buffer;
    if (stored) {
      record = stored;
      webp = await this.blobs.readBytes(stored.key);
    } else {
      const image = await this.blobs.readBytes(hash);
      let rendered;
      try {
        rendered = await renderThumbnail(sharp, image, size, this.maxPixels);
      } catch (error) {
        // The decoder's own message (`vipspng: libpng read error`) is for the log, not the client.
        const refused = new AppError('UNSUPPORTED_MEDIA_TYPE', 'the image cannot be decoded to make a thumbnail');
        refused.cause = error;
        throw refused;
      }
      this.renders += 1;
      webp = rendered.webp;
      const key = sha256(webp);
      // Bytes first, row after: a recorded thumbnail always has its bytes.
      await this.blobs.putBytes(key, webp);
      record = await thumbnails.recordThumbnail(db, hash, size, { key, bytes: webp.length, width: rendered.width, height: rendered.height });
      if (record.key !== key && !(await thumbnails.keyInUse(db, key))) await this.blobs.delete(key);
    }
    if (needsThumbhash) await thumbnails.setThumbhash(db, hash, await renderThumbhash(sharp, webp));
    if (needsHashes) await thumbnails.setPerceptualHashes(db, hash, await renderPerceptualHashes(sharp, webp));
    return record;
  }
}
