// Writes the summary of an image's objects (image_classes rows and images.object_count) in the
// transaction that writes the objects. Every write of images.objects_json that can change classes or
// geometry calls one of these: the image inserts (one at a time and in bulk), annotation saves,
// object rewrites (class deletes, v2 edits) and moves to another project. A tag rename rewrites the
// objects' tag titles only, which the summary does not hold.
import type { Kysely } from 'kysely';
import { insertRows } from '../db/bulk-insert.ts';
import type { Database } from '../db/types.ts';
import { AREA_COLUMNS, ASPECT_COLUMNS, type ClassSummary, GRID_COLUMNS, type ImageSummary, type ObjectBoxes, boxesOf, summariseBoxes } from '../formats/object-summary.ts';

export const SUMMARY_COLUMNS = ['image_id', 'class_id', 'project_id', 'objects', 'min_area', 'max_area', 'min_side', 'max_side', ...AREA_COLUMNS, ...ASPECT_COLUMNS, ...GRID_COLUMNS] as (keyof Database['image_classes'] & string)[];
/** Rows per statement: under both dialects' limits on the parameters of one. */
const ROWS_PER_STATEMENT = Math.floor(30_000 / SUMMARY_COLUMNS.length);

/** An image_classes row, its values in SUMMARY_COLUMNS order. */
export const summaryRowOf = (imageId: number, projectId: number, s: ClassSummary): unknown[] => [
  imageId,
  s.classId,
  projectId,
  s.objects,
  s.minArea,
  s.maxArea,
  s.minSide,
  s.maxSide,
  ...s.area,
  ...s.aspect,
  ...s.grid,
];

/** An image whose objects are summarised. */
export interface SummarisedImage {
  id: number;
  projectId: number;
  width: number;
  height: number;
  objectsJson: string;
  /** The boxes of `objectsJson`, when they were read already (an import's threads read them). */
  boxes?: ObjectBoxes;
}

/** The project's class ids by title, as objects name them. */
export async function classIdsByTitle(db: Kysely<Database>, projectId: number): Promise<Map<string, number>> {
  const rows = await db.selectFrom('classes').select(['id', 'title']).where('project_id', '=', projectId).execute();
  return new Map(rows.map((r) => [r.title, r.id]));
}

/** Class ids by title, per project, read once per project for a batch of images. */
export type ClassIdCache = Map<number, Map<string, number>>;

/** The summaries of images about to be written, in their order. */
export async function summarise(db: Kysely<Database>, images: readonly Omit<SummarisedImage, 'id'>[], classIds: ClassIdCache = new Map()): Promise<ImageSummary[]> {
  const summaries: ImageSummary[] = [];
  for (const image of images) {
    let ids = classIds.get(image.projectId);
    if (!ids) {
      ids = await classIdsByTitle(db, image.projectId);
      classIds.set(image.projectId, ids);
    }
    summaries.push(summariseBoxes(image.boxes ?? boxesOf(image.objectsJson), image.width, image.height, ids));
  }
  return summaries;
}

/** Inserts the image_classes rows of images (their ids and projects) with these summaries, in the same order. */
export async function insertSummaryRows(db: Kysely<Database>, images: readonly { id: number; projectId: number }[], summaries: readonly ImageSummary[]): Promise<void> {
  const rows: unknown[][] = [];
  images.forEach((image, i) => {
    for (const c of summaries[i]!.classes) rows.push(summaryRowOf(image.id, image.projectId, c));
  });
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) await insertRows(db, 'image_classes', SUMMARY_COLUMNS, rows.slice(i, i + ROWS_PER_STATEMENT));
}

/** Inserts the image_classes rows of images and answers their object counts, in their order. */
export async function insertSummaries(db: Kysely<Database>, images: readonly SummarisedImage[], classIds: ClassIdCache = new Map()): Promise<number[]> {
  const summaries = await summarise(db, images, classIds);
  await insertSummaryRows(db, images, summaries);
  return summaries.map((s) => s.objects);
}

/** Writes the summary of an image's objects again from its row. Call inside the transaction that changed them. */
export async function rewriteImageSummary(db: Kysely<Database>, imageId: number): Promise<void> {
  const image = await db.selectFrom('images').select(['id', 'project_id', 'width', 'height', 'objects_json']).where('id', '=', imageId).executeTakeFirst();
  await db.deleteFrom('image_classes').where('image_id', '=', imageId).execute();
  if (!image) return;
  const [count] = await insertSummaries(db, [{ id: image.id, projectId: image.project_id, width: image.width, height: image.height, objectsJson: image.objects_json }]);
  await db.updateTable('images').set({ object_count: count! }).where('id', '=', imageId).execute();
}

/** Summarises every image with objects, a thousand at a time (the migration that adds the summary). */
export async function backfillImageSummaries(db: Kysely<Database>): Promise<void> {
  const classIds = new Map<number, Map<string, number>>();
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('images')
      .select(['id', 'project_id', 'width', 'height', 'objects_json'])
      .where('id', '>', after)
      .where('objects_json', '<>', '[]')
      .orderBy('id')
      .limit(1000)
      .execute();
    if (rows.length === 0) return;
    const images = rows.map((r) => ({ id: r.id, projectId: r.project_id, width: r.width, height: r.height, objectsJson: r.objects_json }));
    const counts = await insertSummaries(db, images, classIds);
    for (let i = 0; i < images.length; i += 1) await db.updateTable('images').set({ object_count: counts[i]! }).where('id', '=', images[i]!.id).execute();
    after = rows.at(-1)!.id;
  }
}
