// The images of a data layer (of a project, or of a version) as DtlItems, a page at a time, in
// dataset order then id order. Pixels
// are read and decoded only when a layer asks for them.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.ts';
import { readMaskSize } from '../../formats/supervisely/bitmap.ts';
import type { CanonicalObject } from '../../formats/canonical.ts';
import type { ExportRecord } from '../../formats/writer.ts';
import * as exportRepo from '../../repositories/export.repository.ts';
import * as versionExport from '../../repositories/version-export.repository.ts';
import { loadSharp } from '../../sharp.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { DtlImage, DtlItem, RawImage } from '../../dtl/item.ts';
import type { DataSource } from '../../dtl/validate.ts';

/** A stored image whose pixels are decoded on first use and kept. */
export function storedImage(blobs: BlobStore, hash: string): DtlImage {
  let decoding: Promise<RawImage> | undefined;
  return {
    hash,
    raw: () =>
      (decoding ??= (async () => {
        const sharp = await loadSharp();
        const bytes = await blobs.readBytes(hash);
        const { data, info } = await sharp(bytes).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
        if (info.channels === 3 || info.channels === 4) return { data, width: info.width, height: info.height, channels: info.channels };
        const rgb = await sharp(bytes).toColourspace('srgb').removeAlpha().raw().toBuffer({ resolveWithObject: true });
        return { data: rgb.data, width: rgb.info.width, height: rgb.info.height, channels: 3 };
      })()),
  };
}

/** The record as an item; a bitmap gets the size of its mask. */
export function recordItem(record: ExportRecord, project: string, blobs: BlobStore): DtlItem {
  const objects: CanonicalObject[] = record.objects.map((o) => ({
    classTitle: o.classTitle,
    description: o.description,
    tags: o.tags,
    bitmap: o.bitmap && { ...o.bitmap, ...readMaskSize(o.bitmap.data) },
    points: o.points,
  }));
  return {
    name: record.name,
    dataset: `${project}__${record.dataset}`,
    source: { project, dataset: record.dataset },
    annotation: { description: record.description, tags: record.tags, size: { width: record.width, height: record.height }, objects },
    image: storedImage(blobs, record.hash),
  };
}

export interface SourcePage {
  items: DtlItem[];
  /** The stored byte size of each image's blob, by hash. */
  sizes: Map<string, number>;
}

/**
 * The page's items one by one, each let go by the page as it is handed out: an item keeps its pixels
 * once they are decoded, and a page must not hold the pixels of all its images until its end.
 */
export function* takeItems(page: SourcePage): Generator<DtlItem> {
  for (let item = page.items.shift(); item !== undefined; item = page.items.shift()) yield item;
}

/** The data layer's images, a page at a time. */
export async function* sourcePages(db: Kysely<Database>, blobs: BlobStore, source: DataSource, pageSize: number): AsyncGenerator<SourcePage> {
  const version = source.version;
  for (const dataset of source.datasets) {
    for (let after = 0; ; ) {
      const page = version
        ? await versionExport.versionImagePage(db, version.id, { column: version.column, value: dataset.title }, after, pageSize)
        : await exportRepo.imagePage(db, dataset, after, pageSize);
      if (page.length === 0) break;
      const items: DtlItem[] = [];
      const sizes = new Map<string, number>();
      for (const { record, size } of page) {
        sizes.set(record.hash, size);
        try {
          items.push(recordItem(record, source.project, blobs));
        } catch (error) {
          // A bitmap that is no mask: the image fails as any layer's failure would.
          items.push(failedItem(record, source.project, error));
        }
      }
      yield { items, sizes };
      after = page[page.length - 1]!.id;
    }
  }
}

/** An item that fails when it is run, for an image that cannot be read as an item. */
function failedItem(record: ExportRecord, project: string, error: unknown): DtlItem {
  const failing = (): never => {
    throw error;
  };
  return {
    name: record.name,
    dataset: `${project}__${record.dataset}`,
    source: { project, dataset: record.dataset },
    get annotation() {
      return failing();
    },
    image: { hash: record.hash, raw: failing },
  };
}
