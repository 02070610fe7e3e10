// What an import writes besides plain image rows: classes, progress items, name conflicts.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import { insertRows } from '../db/bulk-insert.ts';
import { isPostgres } from '../db/dialect.ts';
import type { Database } from '../db/types.ts';
import type { ClassDefinition, ClassShape } from '../formats/canonical.ts';
import { CLASS_PALETTE, TOO_CLOSE, colorDistance, nextClassColor } from '../formats/class-colors.ts';

/** One image of an import's plan, as the worker reads it. */
export interface ImportItem {
  /** dataset id */
  d: number;
  /** image name */
  n: string;
  /** image hash */
  h: string;
  /** hash of the annotation file, if any */
  a: string | null;
  /** path of the image inside the import, for messages */
  p: string;
  /** import/local: the id of the image copied */
  s?: number;
}

/** Items stored in one row of a plan: about a megabyte of JSON. */
export const PLAN_PART_ITEMS = 5000;

/** Stores the plan of import task `taskId`, a part at a time (never all of it as one string). */
export async function insertPlan(db: Kysely<Database>, taskId: number, items: readonly ImportItem[]): Promise<void> {
  for (let part = 0; part * PLAN_PART_ITEMS < items.length; part += 1) {
    const slice = items.slice(part * PLAN_PART_ITEMS, (part + 1) * PLAN_PART_ITEMS);
    await db.insertInto('import_plans').values({ task_id: taskId, part, items: JSON.stringify(slice) }).execute();
  }
}

/** The plan of import task `taskId`, read a part at a time. */
export async function loadPlan(db: Kysely<Database>, taskId: number): Promise<ImportItem[]> {
  const items: ImportItem[] = [];
  for (let part = 0; ; part += 1) {
    const read = await readPlanPart(db, taskId, part);
    if (!read) return items;
    for (const item of read) items.push(item);
  }
}

/** Part `part` of the plan of import task `taskId` (items part × PLAN_PART_ITEMS on), or null past its end. */
export async function readPlanPart(db: Kysely<Database>, taskId: number, part: number): Promise<ImportItem[] | null> {
  const row = await db.selectFrom('import_plans').select('items').where('task_id', '=', taskId).where('part', '=', part).executeTakeFirst();
  return row ? (JSON.parse(row.items) as ImportItem[]) : null;
}

/** The project's classes by title. */
export async function classShapes(db: Kysely<Database>, projectId: number): Promise<Map<string, ClassShape>> {
  const rows = await db.selectFrom('classes').select(['title', 'shape']).where('project_id', '=', projectId).execute();
  return new Map(rows.map((r) => [r.title, r.shape as ClassShape]));
}

/**
 * Adds the classes the project lacks. Answers the titles that exist with another shape (the caller
 * refuses the import for those: objects of one class must keep one geometry).
 */
export async function ensureClasses(db: Kysely<Database>, projectId: number, classes: ClassDefinition[]): Promise<string[]> {
  const rows = await db.selectFrom('classes').select(['title', 'shape', 'color']).where('project_id', '=', projectId).orderBy('id').execute();
  const existing = new Map(rows.map((r) => [r.title, r.shape as ClassShape]));
  // A palette colour the import's plan handed out, before it knew the project, moves on to the next
  // one when a class of the project already looks like it.
  const taken = rows.map((r) => r.color);
  const clashes: string[] = [];
  const now = isoNow();
  for (const c of classes) {
    const shape = existing.get(c.title);
    if (shape === undefined) {
      const color = CLASS_PALETTE.includes(c.color.toLowerCase()) && taken.some((t) => colorDistance(t, c.color) < TOO_CLOSE) ? nextClassColor(taken) : c.color;
      taken.push(color);
      await db.insertInto('classes').values({ project_id: projectId, title: c.title, shape: c.shape, color, created_at: now }).execute();
      existing.set(c.title, c.shape);
    } else if (shape !== c.shape) clashes.push(`${c.title} (${shape} in the project, ${c.shape} in the import)`);
  }
  return clashes;
}

/** The project's tags as `scope:title` → id. */
export async function tagIds(db: Kysely<Database>, projectId: number): Promise<Map<string, number>> {
  const rows = await db.selectFrom('project_tags').select(['id', 'scope', 'title']).where('project_id', '=', projectId).execute();
  return new Map(rows.map((r) => [`${r.scope}:${r.title}`, r.id]));
}

/**
 * The current `scope:title` of each tag id that still exists. On PostgreSQL the rows stay share-locked
 * until the caller's transaction ends, so a rename or delete of one of them waits for it (and then
 * sees, and rewrites, what the transaction wrote). SQLite runs one write transaction at a time anyway.
 */
export async function lockTags(db: Kysely<Database>, ids: number[]): Promise<Map<number, string>> {
  let query = db.selectFrom('project_tags').select(['id', 'scope', 'title']).where('id', 'in', ids);
  if (isPostgres(db)) query = query.forShare();
  const rows = await query.execute();
  return new Map(rows.map((r) => [r.id, `${r.scope}:${r.title}`]));
}

export async function doneItems(db: Kysely<Database>, taskId: number): Promise<Set<number>> {
  const rows = await db.selectFrom('import_items').select('item').where('task_id', '=', taskId).execute();
  return new Set(rows.map((r) => r.item));
}

export async function markItem(db: Kysely<Database>, taskId: number, item: number, imageId: number | null): Promise<void> {
  await db.insertInto('import_items').values({ task_id: taskId, item, image_id: imageId }).execute();
}

export async function countImported(db: Kysely<Database>, taskId: number): Promise<number> {
  const row = await db
    .selectFrom('import_items')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('task_id', '=', taskId)
    .where('image_id', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findImageByName(db: Kysely<Database>, datasetId: number, name: string) {
  return db.selectFrom('images').select(['id', 'size']).where('dataset_id', '=', datasetId).where('name', '=', name).executeTakeFirst();
}

/** `name (1).ext`, `name (2).ext`, … : the first that the dataset does not have. */
export async function freeName(db: Kysely<Database>, datasetId: number, name: string): Promise<string> {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 1; ; n += 1) {
    const candidate = `${stem} (${n})${ext}`;
    if (!(await findImageByName(db, datasetId, candidate))) return candidate;
  }
}

export async function deleteImage(db: Kysely<Database>, imageId: number): Promise<void> {
  await db.deleteFrom('images').where('id', '=', imageId).execute();
}

export async function insertImageTags(db: Kysely<Database>, rows: { image_id: number; tag_id: number; value: string | null }[]): Promise<void> {
  if (rows.length) await db.insertInto('image_tags').values(rows).onConflict((oc) => oc.columns(['image_id', 'tag_id']).doNothing()).execute();
}

export async function insertObjectTagRefs(db: Kysely<Database>, rows: { image_id: number; tag_id: number }[]): Promise<void> {
  if (rows.length) await db.insertInto('object_tag_refs').values(rows).onConflict((oc) => oc.columns(['image_id', 'tag_id']).doNothing()).execute();
}

export async function classDefinitions(db: Kysely<Database>, projectId: number): Promise<ClassDefinition[]> {
  const rows = await db.selectFrom('classes').select(['title', 'shape', 'color']).where('project_id', '=', projectId).orderBy('id').execute();
  return rows.map((r) => ({ title: r.title, shape: r.shape as ClassShape, color: r.color }));
}

export async function tagDefinitions(db: Kysely<Database>, projectId: number) {
  const rows = await db.selectFrom('project_tags').select(['scope', 'title', 'hotkey']).where('project_id', '=', projectId).orderBy('id').execute();
  return rows.map((r) => ({ scope: r.scope as 'images' | 'figures', title: r.title, hotkey: r.hotkey }));
}

/** Id, dataset, name, hash and size of every image of the datasets, in id order. */
export async function imagesOfDatasets(db: Kysely<Database>, datasetIds: number[]) {
  return db
    .selectFrom('images')
    .select(['id', 'dataset_id', 'name', 'hash', 'size'])
    .where('dataset_id', 'in', datasetIds)
    .orderBy('id')
    .execute();
}

/** What a copy of each image needs: its row, its image tags and the figure tags its objects use. */
export async function imagesToCopy(db: Kysely<Database>, imageIds: number[]) {
  const rows = await db
    .selectFrom('images')
    .select(['id', 'size', 'width', 'height', 'description', 'objects_json', 'object_ids', 'object_tag_values'])
    .where('id', 'in', imageIds)
    .execute();
  const imageTags = await db
    .selectFrom('image_tags')
    .innerJoin('project_tags', 'project_tags.id', 'image_tags.tag_id')
    .select(['image_tags.image_id', 'project_tags.title', 'image_tags.value'])
    .where('image_tags.image_id', 'in', imageIds)
    .orderBy('project_tags.id')
    .execute();
  const objectTags = await db
    .selectFrom('object_tag_refs')
    .innerJoin('project_tags', 'project_tags.id', 'object_tag_refs.tag_id')
    .select(['object_tag_refs.image_id', 'project_tags.title'])
    .where('object_tag_refs.image_id', 'in', imageIds)
    .execute();
  return { rows, imageTags, objectTags };
}

/** Marks many items of the task done in one statement (`imageId` null: skipped or failed). */
export async function markItems(db: Kysely<Database>, taskId: number, items: { item: number; imageId: number | null }[]): Promise<void> {
  for (let i = 0; i < items.length; i += 1000) {
    await insertRows(db, 'import_items', ['task_id', 'item', 'image_id'], items.slice(i, i + 1000).map((r) => [taskId, r.item, r.imageId]));
  }
}

/** Of `names`, those the dataset already has, with the id and size of the image. */
export async function findImagesByNames(db: Kysely<Database>, datasetId: number, names: string[]): Promise<Map<string, { id: number; size: number }>> {
  const found = new Map<string, { id: number; size: number }>();
  for (let i = 0; i < names.length; i += 1000) {
    const rows = await db
      .selectFrom('images')
      .select(['id', 'name', 'size'])
      .where('dataset_id', '=', datasetId)
      .where('name', 'in', names.slice(i, i + 1000))
      .execute();
    for (const r of rows) found.set(r.name, { id: r.id, size: Number(r.size) });
  }
  return found;
}
