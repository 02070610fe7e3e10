// Project tags, one scope at a time, and the images whose stored objects use a figure tag.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import { isPostgres } from '../db/dialect.ts';
import type { Database, ProjectTagRow } from '../db/types.ts';
import type { TagValueType } from '../formats/canonical.ts';
import { removeTagFromValues, renameTagInValues } from '../formats/object-tag-values.ts';
import { refreshAnnotationHashes } from './annotation-contents.repository.ts';
import type { DatasetReader } from './hidden-datasets.ts';

/** `images` tags go on whole images, `figures` tags on the objects inside an annotation. */
export type TagScope = 'images' | 'figures';

export interface ProjectTagRecord {
  id: number;
  projectId: number;
  title: string;
  createdBy: number | null;
  hotkey: string;
  createdAt: string;
  updatedAt: string;
}

export interface NewTag {
  projectId: number;
  scope: TagScope;
  title: string;
  hotkey: string;
  /** `none` when not given. */
  valueType?: TagValueType;
  /** A oneof_string tag's possible values. */
  values?: readonly string[];
  createdBy: number;
}

const valuesText = (values: readonly string[] | undefined): string | null => (values && values.length ? JSON.stringify(values) : null);

const toRecord = (r: ProjectTagRow): ProjectTagRecord => ({
  id: r.id,
  projectId: r.project_id,
  title: r.title,
  createdBy: r.created_by,
  hotkey: r.hotkey,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function listTags(db: Kysely<Database>, projectId: number, scope: TagScope): Promise<ProjectTagRecord[]> {
  const rows = await db
    .selectFrom('project_tags')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('scope', '=', scope)
    .orderBy('id')
    .execute();
  return rows.map(toRecord);
}

/**
 * The tag, if it is the project's and of that scope. With `lock` (inside a transaction) the row is
 * locked for change on PostgreSQL first, so a writer holding it (an import batch) finishes before the
 * caller reads what depends on it.
 */
export async function findTag(
  db: Kysely<Database>,
  projectId: number,
  scope: TagScope,
  tagId: number,
  options: { lock?: boolean } = {},
): Promise<ProjectTagRow | undefined> {
  let query = db.selectFrom('project_tags').selectAll().where('id', '=', tagId).where('project_id', '=', projectId).where('scope', '=', scope);
  if (options.lock && isPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findTagByTitle(
  db: Kysely<Database>,
  projectId: number,
  scope: TagScope,
  title: string,
): Promise<ProjectTagRow | undefined> {
  return db
    .selectFrom('project_tags')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('scope', '=', scope)
    .where('title', '=', title)
    .executeTakeFirst();
}

/** The tags of the project and scope among `ids` and `titles` (either may be empty). */
export async function findTagsByIdOrTitle(
  db: Kysely<Database>,
  projectId: number,
  scope: TagScope,
  ids: number[],
  titles: string[],
): Promise<Pick<ProjectTagRow, 'id' | 'title'>[]> {
  if (ids.length === 0 && titles.length === 0) return [];
  return db
    .selectFrom('project_tags')
    .select(['id', 'title'])
    .where('project_id', '=', projectId)
    .where('scope', '=', scope)
    .where((eb) => {
      const either = [];
      if (ids.length) either.push(eb('id', 'in', ids));
      if (titles.length) either.push(eb('title', 'in', titles));
      return eb.or(either);
    })
    .execute();
}

/** Inserts the tag; a title already used in the project and scope raises the unique violation. */
export async function insertTag(db: Kysely<Database>, tag: NewTag): Promise<number> {
  const now = isoNow();
  const row = await db
    .insertInto('project_tags')
    .values({
      project_id: tag.projectId,
      scope: tag.scope,
      title: tag.title,
      hotkey: tag.hotkey,
      value_type: tag.valueType,
      possible_values: valuesText(tag.values),
      created_by: tag.createdBy,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * The id of the tag with this title, inserting it first if there is none. Two callers racing to
 * create the same title both end with the one row the unique constraint let through.
 */
export async function ensureTag(db: Kysely<Database>, tag: NewTag): Promise<{ id: number; created: boolean }> {
  const now = isoNow();
  const inserted = await db
    .insertInto('project_tags')
    .values({
      project_id: tag.projectId,
      scope: tag.scope,
      title: tag.title,
      hotkey: tag.hotkey,
      value_type: tag.valueType ?? 'none',
      possible_values: valuesText(tag.values),
      created_by: tag.createdBy,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['project_id', 'scope', 'title']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { id: inserted.id, created: true };
  const existing = await findTagByTitle(db, tag.projectId, tag.scope, tag.title);
  if (!existing) throw new Error(`tag "${tag.title}" neither inserted nor found`);
  return { id: existing.id, created: false };
}

/** Sets title, hotkey and value type; a title already used in the project and scope raises the unique violation. */
export async function updateTag(
  db: Kysely<Database>,
  tagId: number,
  change: { title: string; hotkey: string; valueType: TagValueType; values: readonly string[] | null },
): Promise<void> {
  await db
    .updateTable('project_tags')
    .set({ title: change.title, hotkey: change.hotkey, value_type: change.valueType, possible_values: valuesText(change.values ?? undefined), updated_at: isoNow() })
    .where('id', '=', tagId)
    .execute();
}

/** Deletes the tag; its image attachments and object references go with it by cascade. */
export async function deleteTag(db: Kysely<Database>, tagId: number): Promise<void> {
  await db.deleteFrom('project_tags').where('id', '=', tagId).execute();
}

/** Up to `limit` images the image tag is attached to, by id. */
export async function imagesCarryingTag(db: Kysely<Database>, tagId: number, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('image_tags').select('image_id').where('tag_id', '=', tagId).orderBy('image_id').limit(limit).execute();
  return rows.map((r) => r.image_id);
}

/** Every image that uses the tag: carries it (an image tag), or has objects that do (a figure tag); by id. */
export async function imagesUsingTag(db: Kysely<Database>, tagId: number, scope: TagScope): Promise<number[]> {
  const rows =
    scope === 'images'
      ? await db.selectFrom('image_tags').select('image_id').where('tag_id', '=', tagId).orderBy('image_id').execute()
      : await db.selectFrom('object_tag_refs').select('image_id').where('tag_id', '=', tagId).orderBy('image_id').execute();
  return rows.map((r) => r.image_id);
}

/**
 * Renames the figure tag `from` to `to` in the stored object tag values of the images whose objects
 * use the tag (so the values follow the rename the objects' titles get). Call inside the rename's
 * transaction.
 */
export async function renameObjectTagValues(db: Kysely<Database>, tagId: number, from: string, to: string): Promise<void> {
  const rows = await db
    .selectFrom('object_tag_refs')
    .innerJoin('images', 'images.id', 'object_tag_refs.image_id')
    .select(['images.id', 'images.object_tag_values'])
    .where('object_tag_refs.tag_id', '=', tagId)
    .where('images.object_tag_values', 'is not', null)
    .execute();
  for (const row of rows) {
    const next = renameTagInValues(row.object_tag_values!, from, to);
    if (next === row.object_tag_values) continue;
    await db.updateTable('images').set({ object_tag_values: next }).where('id', '=', row.id).execute();
    await refreshAnnotationHashes(db, [row.id]);
  }
}

/**
 * Takes the figure tag `title` out of the stored object tag values of the images whose objects use
 * the tag (its delete takes the title out of the objects). Call inside the delete's transaction.
 */
export async function removeObjectTagValues(db: Kysely<Database>, tagId: number, title: string): Promise<void> {
  const rows = await db
    .selectFrom('object_tag_refs')
    .innerJoin('images', 'images.id', 'object_tag_refs.image_id')
    .select(['images.id', 'images.object_tag_values'])
    .where('object_tag_refs.tag_id', '=', tagId)
    .where('images.object_tag_values', 'is not', null)
    .execute();
  for (const row of rows) {
    const next = removeTagFromValues(row.object_tag_values!, title);
    if (next === row.object_tag_values) continue;
    await db.updateTable('images').set({ object_tag_values: next }).where('id', '=', row.id).execute();
    await refreshAnnotationHashes(db, [row.id]);
  }
}

/** How many images carry the image tag, and with each value how many (values as stored, JSON text). */
export async function imageTagUsage(db: Kysely<Database>, tagId: number, options: { visibleTo?: DatasetReader } = {}): Promise<{ images: number; values: Map<string, number> }> {
  let query = db.selectFrom('image_tags').where('image_tags.tag_id', '=', tagId);
  if (options.visibleTo) query = query.where('image_tags.image_id', 'not in', unseenImages(db, options.visibleTo));
  const rows = await query
    .select((eb) => ['image_tags.value', eb.fn.countAll().as('n')])
    .groupBy('image_tags.value')
    .execute();
  const values = new Map<string, number>();
  let images = 0;
  for (const r of rows) {
    images += Number(r.n);
    if (r.value !== null) values.set(r.value, Number(r.n));
  }
  return { images, values };
}

/**
 * The images a usage count leaves out (docs/jobs.md "Quality"): the honeypot copies in jobs, and for
 * anybody but a manager the images of managers-only datasets.
 */
const unseenImages = (db: Kysely<Database>, reader: DatasetReader) => {
  const copies = db.selectFrom('honeypots').select('honeypots.image_id as id');
  if (reader === 'manager') return copies;
  return copies.union(db.selectFrom('images').select('images.id as id').where('images.dataset_id', 'in', db.selectFrom('datasets').select('datasets.id').where('datasets.managers_only', '=', 1)));
};

/** The images whose objects use the figure tag, with their stored objects and object tag values. */
export async function imagesUsingFigureTagWithValues(db: Kysely<Database>, tagId: number, options: { visibleTo?: DatasetReader } = {}): Promise<{ objectsJson: string; objectTagValues: string | null }[]> {
  let query = db
    .selectFrom('object_tag_refs')
    .innerJoin('images', 'images.id', 'object_tag_refs.image_id')
    .select(['images.objects_json', 'images.object_tag_values'])
    .where('object_tag_refs.tag_id', '=', tagId);
  if (options.visibleTo) query = query.where('object_tag_refs.image_id', 'not in', unseenImages(db, options.visibleTo));
  const rows = await query.execute();
  return rows.map((r) => ({ objectsJson: r.objects_json, objectTagValues: r.object_tag_values }));
}

/** The images whose objects use the figure tag, with their stored objects. */
export async function imagesUsingFigureTag(db: Kysely<Database>, tagId: number): Promise<{ id: number; objectsJson: string }[]> {
  const rows = await db
    .selectFrom('object_tag_refs')
    .innerJoin('images', 'images.id', 'object_tag_refs.image_id')
    .select(['images.id', 'images.objects_json'])
    .where('object_tag_refs.tag_id', '=', tagId)
    .orderBy('images.id')
    .execute();
  return rows.map((r) => ({ id: r.id, objectsJson: r.objects_json }));
}

export async function objectsJsonOf(db: Kysely<Database>, imageId: number): Promise<string | undefined> {
  const row = await db.selectFrom('images').select('objects_json').where('id', '=', imageId).executeTakeFirst();
  return row?.objects_json;
}

/**
 * Replaces the stored objects only if they still read `expected`, and answers whether it did. Another
 * writer may have changed them since they were read (PostgreSQL reads committed data only): the
 * caller reads again and retries instead of overwriting that change.
 */
export async function replaceObjectsJson(
  db: Kysely<Database>,
  imageId: number,
  expected: string,
  next: string,
): Promise<boolean> {
  const result = await db
    .updateTable('images')
    .set({ objects_json: next, updated_at: isoNow() })
    .where('id', '=', imageId)
    .where('objects_json', '=', expected)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return false;
  await refreshAnnotationHashes(db, [imageId]);
  return true;
}

/** A project tag as API v2 shows it, both scopes in one list. */
export interface TagResource {
  id: number;
  projectId: number;
  scope: TagScope;
  title: string;
  hotkey: string;
  valueType: TagValueType;
  /** A oneof_string tag's possible values, as Supervisely's meta.json lists them; absent for the other types. */
  values?: string[];
  createdBy: number | null;
  createdAt: string;
  updatedAt: string;
}

export const toTagResource = (r: ProjectTagRow): TagResource => ({
  id: r.id,
  projectId: r.project_id,
  scope: r.scope as TagScope,
  title: r.title,
  hotkey: r.hotkey,
  valueType: r.value_type as TagValueType,
  ...(r.possible_values !== null ? { values: JSON.parse(r.possible_values) as string[] } : {}),
  createdBy: r.created_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The tag, of either scope, if it lies in a project of the team. */
export async function findTagOfTeam(db: Kysely<Database>, teamId: number, tagId: number): Promise<ProjectTagRow | undefined> {
  return db
    .selectFrom('project_tags')
    .innerJoin('projects', 'projects.id', 'project_tags.project_id')
    .selectAll('project_tags')
    .where('project_tags.id', '=', tagId)
    .where('projects.team_id', '=', teamId)
    .executeTakeFirst();
}

export interface TagPageQuery {
  projectId: number;
  /** Only tags of this scope; both when not given. */
  scope?: TagScope;
  afterId?: number;
  limit: number;
}

/** Up to `limit` of the project's tags after `afterId`, in id order. */
export async function pageTags(db: Kysely<Database>, query: TagPageQuery): Promise<ProjectTagRow[]> {
  let select = db.selectFrom('project_tags').selectAll().where('project_id', '=', query.projectId);
  if (query.scope !== undefined) select = select.where('scope', '=', query.scope);
  if (query.afterId !== undefined) select = select.where('id', '>', query.afterId);
  return select.orderBy('id').limit(query.limit).execute();
}

export async function countTags(db: Kysely<Database>, query: Omit<TagPageQuery, 'afterId' | 'limit'>): Promise<number> {
  let select = db.selectFrom('project_tags').select((eb) => eb.fn.countAll().as('n')).where('project_id', '=', query.projectId);
  if (query.scope !== undefined) select = select.where('scope', '=', query.scope);
  const row = await select.executeTakeFirstOrThrow();
  return Number(row.n);
}
