// Images: rows, size counters of their dataset and project, descriptions.
import { type Kysely, sql } from 'kysely';
import { isoNow } from '../clock.ts';
import { insertRows } from '../db/bulk-insert.ts';
import { isPostgres } from '../db/dialect.ts';
import { addTotalsOfImages } from '../db/migrations/0037_stats_totals.ts';
import type { Database, ImageRow } from '../db/types.ts';
import { type EncodedSnapshot, encodeContent } from '../formats/annotation-snapshot.ts';
import type { ImageSummary, ObjectBoxes } from '../formats/object-summary.ts';
import { refreshAnnotationHashes, saveSnapshots } from './annotation-contents.repository.ts';
import { type ClassIdCache, insertSummaryRows, summarise } from './image-summary.repository.ts';

export interface NewImageInput {
  datasetId: number;
  projectId: number;
  name: string;
  hash: string;
  size: number;
  width: number;
  height: number;
  description?: string;
  objectsJson?: string;
  /** images.object_tag_values: the objects' tag values by object id (1..n here), or null. */
  objectTagValues?: string | null;
  /**
   * What the write derives from the annotation above, when it was made already (an import's
   * annotation threads make it): the snapshot of its content, and its objects' boxes.
   */
  derived?: { content: EncodedSnapshot; boxes: ObjectBoxes };
}

/** Adds `delta` bytes to a dataset and its project. Call inside the transaction that changes images. */
export async function addToSizes(db: Kysely<Database>, datasetId: number, projectId: number, delta: number): Promise<void> {
  if (delta === 0) return;
  const now = isoNow();
  await db.updateTable('datasets').set({ size: sql`size + ${delta}`, updated_at: now }).where('id', '=', datasetId).execute();
  await db.updateTable('projects').set({ size: sql`size + ${delta}`, updated_at: now }).where('id', '=', projectId).execute();
}

const toRow = (image: NewImageInput, now: string, summary: ImageSummary, content: EncodedSnapshot) => ({
  dataset_id: image.datasetId,
  project_id: image.projectId,
  name: image.name,
  hash: image.hash,
  size: image.size,
  width: image.width,
  height: image.height,
  description: image.description ?? '',
  objects_json: image.objectsJson ?? '[]',
  object_tag_values: image.objectTagValues ?? null,
  object_count: summary.objects,
  annotation_hash: content.hash,
  created_at: now,
  updated_at: now,
});

/** The snapshot of a new image's annotation content (a new image's objects have the ids 1..n). */
const contentOf = (image: NewImageInput) =>
  image.derived?.content ??
  encodeContent({ description: image.description ?? '', objectsJson: image.objectsJson ?? '[]', objectIds: null, objectTagValues: image.objectTagValues ?? null });

const summaryInput = (image: NewImageInput) => ({
  projectId: image.projectId,
  width: image.width,
  height: image.height,
  objectsJson: image.objectsJson ?? '[]',
  ...(image.derived ? { boxes: image.derived.boxes } : {}),
});

/** Inserts an image row with the summary of its objects and counts its bytes. The blob row of its hash must exist. */
export async function insertImage(db: Kysely<Database>, image: NewImageInput): Promise<number> {
  const now = isoNow();
  const [summary] = await summarise(db, [summaryInput(image)]);
  const content = contentOf(image);
  await saveSnapshots(db, [content]);
  const row = await db
    .insertInto('images')
    .values(toRow(image, now, summary!, content))
    .returning('id')
    .executeTakeFirstOrThrow();
  await insertSummaryRows(db, [{ id: row.id, projectId: image.projectId }], [summary!]);
  await addToSizes(db, image.datasetId, image.projectId, image.size);
  return row.id;
}

const IMAGE_COLUMNS = ['dataset_id', 'project_id', 'name', 'hash', 'size', 'width', 'height', 'description', 'objects_json', 'object_tag_values', 'object_count', 'annotation_hash', 'created_at', 'updated_at'] as const;

/**
 * Inserts many image rows, with the summaries of their objects, in one statement per 500 and counts their bytes (one update per dataset and
 * one for the project). Answers the new ids in the order of `list`. The blob rows must exist, and no
 * two images may share a dataset and name.
 */
export async function insertImages(db: Kysely<Database>, list: NewImageInput[], classIds: ClassIdCache = new Map()): Promise<number[]> {
  if (list.length === 0) return [];
  // On SQLite the running totals of the images are added at the end, grouped (0044_deferred_totals.ts):
  // that needs a transaction, which takes the deferral back with everything else if a statement fails.
  if (isPostgres(db)) return insertImageRows(db, list, classIds);
  if (!db.isTransaction) return db.transaction().execute((trx) => insertImages(trx, list, classIds));
  await db.insertInto('totals_deferred').values({ id: 1 }).execute();
  const ids = await insertImageRows(db, list, classIds);
  await addTotalsOfImages(db, Math.min(...ids), Math.max(...ids));
  await db.deleteFrom('totals_deferred').execute();
  return ids;
}

async function insertImageRows(db: Kysely<Database>, list: NewImageInput[], classIds: ClassIdCache): Promise<number[]> {
  const now = isoNow();
  const idOf = new Map<string, number>();
  const key = (datasetId: number, name: string) => `${datasetId}/${name}`;
  const summaries = await summarise(db, list.map(summaryInput), classIds);
  const contents = list.map(contentOf);
  await saveSnapshots(db, contents);
  for (let i = 0; i < list.length; i += 500) {
    const values = list.slice(i, i + 500).map((image, j) => {
      const row = toRow(image, now, summaries[i + j]!, contents[i + j]!);
      return IMAGE_COLUMNS.map((column) => row[column]);
    });
    // Neither dialect promises RETURNING rows in VALUES order: match them by dataset and name.
    const rows = await insertRows<'images', { id: number; dataset_id: number; name: string }>(db, 'images', IMAGE_COLUMNS, values, ['id', 'dataset_id', 'name']);
    for (const r of rows) idOf.set(key(r.dataset_id, r.name), r.id);
  }
  const bytes = new Map<string, { datasetId: number; projectId: number; size: number }>();
  for (const image of list) {
    const k = `${image.datasetId}:${image.projectId}`;
    const entry = bytes.get(k);
    if (entry) entry.size += image.size;
    else bytes.set(k, { datasetId: image.datasetId, projectId: image.projectId, size: image.size });
  }
  for (const b of bytes.values()) await addToSizes(db, b.datasetId, b.projectId, b.size);
  const ids = list.map((image) => idOf.get(key(image.datasetId, image.name))!);
  await insertSummaryRows(db, list.map((image, i) => ({ id: ids[i]!, projectId: image.projectId })), summaries);
  return ids;
}

/** The image with this id, if it lies in a project of the team. */
export async function findImageById(db: Kysely<Database>, teamId: number, imageId: number): Promise<ImageRow | undefined> {
  return db
    .selectFrom('images')
    .innerJoin('projects', 'projects.id', 'images.project_id')
    .selectAll('images')
    .where('images.id', '=', imageId)
    .where('projects.team_id', '=', teamId)
    .executeTakeFirst();
}

/** The image named `name` in the dataset, if the dataset lies in a project of the team. */
export async function findImageByName(
  db: Kysely<Database>,
  teamId: number,
  datasetId: number,
  name: string,
): Promise<ImageRow | undefined> {
  return db
    .selectFrom('images')
    .innerJoin('projects', 'projects.id', 'images.project_id')
    .selectAll('images')
    .where('images.dataset_id', '=', datasetId)
    .where('images.name', '=', name)
    .where('projects.team_id', '=', teamId)
    .executeTakeFirst();
}

export async function setDescription(db: Kysely<Database>, imageId: number, description: string): Promise<void> {
  await db.updateTable('images').set({ description, updated_at: isoNow() }).where('id', '=', imageId).execute();
  await refreshAnnotationHashes(db, [imageId]);
}

export interface NewBlob {
  hash: string;
  size: number;
  mediaType: string;
  width: number | null;
  height: number | null;
}

/** Registers the blob of `hash` if it is new. */
export async function ensureBlob(db: Kysely<Database>, blob: NewBlob): Promise<void> {
  await ensureBlobs(db, [blob]);
}

/** Registers the blobs of these hashes that are new, in one statement per 1000. */
export async function ensureBlobs(
  db: Kysely<Database>,
  blobs: NewBlob[],
): Promise<void> {
  const now = isoNow();
  for (let i = 0; i < blobs.length; i += 1000) {
    await db
      .insertInto('blobs')
      .values(blobs.slice(i, i + 1000).map((b) => ({ hash: b.hash, size: b.size, media_type: b.mediaType, width: b.width, height: b.height, created_at: now })))
      .onConflict((oc) => oc.column('hash').doNothing())
      .execute();
  }
}
