// The stored bytes of a team's images and of their thumbnails, as the file routes serve them. What
// an image is (team, blob) and which thumbnail it has are kept while the database is unchanged
// (StampedCache), so a busy grid costs map lookups, not queries.
import type { Context } from '../context.ts';
import { StampedCache } from '../db/stamped-cache.ts';
import { notFound } from '../errors.ts';
import { type ImageFileRow, findImageFile } from '../repositories/image-files.repository.ts';
import type { ThumbnailRecord } from '../repositories/thumbnails.repository.ts';
import type { ThumbnailSize } from './thumbnails.service.ts';

/** Images and thumbnails kept: a few screens of a grid, about 150 bytes each. */
const KEPT = 20_000;

export class ImageFiles {
  private readonly ctx: Context;
  private readonly images = new StampedCache<ImageFileRow | null>(KEPT);
  private readonly thumbnails = new StampedCache<ThumbnailRecord>(KEPT);

  constructor(ctx: Context) {
    this.ctx = ctx;
  }

  /**
   * The image's blob, when the image is the team's; a kept answer, or a promise of a fresh one.
   * Another team's image is missing, exactly as one that does not exist.
   */
  file(stamp: number | undefined, teamId: number, imageId: number): ImageFileRow | Promise<ImageFileRow> {
    const key = String(imageId);
    const kept = this.images.get(stamp, key);
    if (kept !== undefined) return ofTeam(kept, teamId, imageId);
    return findImageFile(this.ctx.db.kysely, imageId).then((found) => {
      this.images.set(stamp, key, found ?? null);
      return ofTeam(found ?? null, teamId, imageId);
    });
  }

  /** The team's image's thumbnail of `size`, made first when it has none. */
  thumbnail(stamp: number | undefined, teamId: number, imageId: number, size: ThumbnailSize): ThumbnailRecord | Promise<ThumbnailRecord> {
    const file = this.file(stamp, teamId, imageId);
    if (file instanceof Promise) return file.then((found) => this.thumbnailOf(stamp, found.hash, size));
    return this.thumbnailOf(stamp, file.hash, size);
  }

  private thumbnailOf(stamp: number | undefined, hash: string, size: ThumbnailSize): ThumbnailRecord | Promise<ThumbnailRecord> {
    const key = `${size}:${hash}`;
    const kept = this.thumbnails.get(stamp, key);
    if (kept) return kept;
    return this.ctx.thumbnails.thumbnail(hash, size).then((made) => {
      this.thumbnails.set(stamp, key, made);
      return made;
    });
  }
}

function ofTeam(file: ImageFileRow | null, teamId: number, imageId: number): ImageFileRow {
  if (!file || file.teamId !== teamId) throw notFound('image', { imageId });
  return file;
}
