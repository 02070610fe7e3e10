// One image's annotation as a whole: its stored objects with their stable ids, its image tags, and
// the rows v1 derives from it (image_tags, object_tag_refs), read and written together.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { isoNow } from '../clock.ts';
import { isPostgres, jsonRows, jsonRowsOf } from '../db/dialect.ts';
import type { Database } from '../db/types.ts';
import type { TagValueType } from '../formats/canonical.ts';
import { insertImageTags, insertObjectTagRefs } from './import.repository.ts';
import { inHashOrder, refreshAnnotationHashes, saveSnapshots } from './annotation-contents.repository.ts';
import { SUMMARY_COLUMNS, insertSummaryRows, rewriteImageSummary, summarise, summaryRowOf } from './image-summary.repository.ts';
import type { ImageSummary } from '../formats/object-summary.ts';
import { type EncodedSnapshot, encodeContent } from '../formats/annotation-snapshot.ts';
import { rewritePredictionAgreement } from './prediction-agreement.repository.ts';

/** An image's annotation as stored. */
export interface StoredAnnotation {
  imageId: number;
  projectId: number;
  name: string;
  width: number;
  height: number;
  description: string;
  /** The objects as v1 sends them (images.objects_json). */
  objectsJson: string;
  /** images.object_ids: null means 1..n. */
  objectIds: string | null;
  /** images.next_object_id: null means n + 1. */
  nextObjectId: number | null;
  /** images.object_tag_values: the objects' tag values by object id, null when none has one. */
  objectTagValues: string | null;
  /** The image's tags, in tag id order (the order v1 lists their titles in). */
  tags: { id: number; title: string; value: string | null }[];
}

/** The image's tags as one JSON text of [id, title, value] rows, read in the statement that reads the image. */
function tagRows(db: Kysely<Database>): RawBuilder<string | null> {
  const rows = jsonRowsOf(db, [sql.ref('project_tags.id'), sql.ref('project_tags.title'), sql.ref('image_tags.value')]);
  return sql<string | null>`(select ${rows} from image_tags inner join project_tags on project_tags.id = image_tags.tag_id
    where image_tags.image_id = images.id)`;
}

/**
 * The annotation of the image, if it lies in a project of the team.
 *
 * Read plainly, the image and its tags come from one statement, so from one state of the database
 * even while another request writes them. With `lock` (inside a transaction) the image row is locked
 * for update on PostgreSQL first, so a concurrent writer of the same annotation waits until this
 * transaction ends; the tags are then read by a statement of their own, which sees what that writer
 * committed (the locking statement itself would still see the tags of its own start). SQLite runs one
 * write transaction at a time anyway.
 */
export async function findAnnotation(
  db: Kysely<Database>,
  teamId: number,
  imageId: number,
  options: { lock?: boolean } = {},
): Promise<StoredAnnotation | undefined> {
  const query = db
    .selectFrom('images')
    .innerJoin('projects', 'projects.id', 'images.project_id')
    .select([
      'images.id',
      'images.project_id',
      'images.name',
      'images.width',
      'images.height',
      'images.description',
      'images.objects_json',
      'images.object_ids',
      'images.next_object_id',
      'images.object_tag_values',
    ])
    .where('images.id', '=', imageId)
    .where('projects.team_id', '=', teamId);
  let tags: StoredAnnotation['tags'];
  let row;
  if (options.lock) {
    // Only the image row: locking the project's too would queue every edit of the project behind one.
    row = await (isPostgres(db) ? query.forUpdate('images') : query).executeTakeFirst();
    if (!row) return undefined;
    tags = await db
      .selectFrom('image_tags')
      .innerJoin('project_tags', 'project_tags.id', 'image_tags.tag_id')
      .select(['project_tags.id', 'project_tags.title', 'image_tags.value'])
      .where('image_tags.image_id', '=', imageId)
      .orderBy('project_tags.id')
      .execute();
  } else {
    const found = await query.select(tagRows(db).as('tags_json')).executeTakeFirst();
    if (!found) return undefined;
    row = found;
    tags = jsonRows<[number, string, string | null]>(found.tags_json)
      .map(([id, title, value]) => ({ id, title, value }))
      .sort((a, b) => a.id - b.id);
  }
  return {
    imageId: row.id,
    projectId: row.project_id,
    name: row.name,
    width: row.width,
    height: row.height,
    description: row.description,
    objectsJson: row.objects_json,
    objectIds: row.object_ids,
    nextObjectId: row.next_object_id,
    objectTagValues: row.object_tag_values,
    tags,
  };
}

export interface AnnotationWrite {
  description: string;
  objectsJson: string;
  objectIds: string | null;
  nextObjectId: number | null;
  /** images.object_tag_values. */
  objectTagValues: string | null;
  /** The image's tags by id, with their values as JSON text. */
  imageTags: { tagId: number; value: string | null }[];
  /** The figure tags the objects use, by id. */
  objectTagIds: number[];
}

/** The image an annotation write is for: what its summary and its predictions' agreement read of it. */
export interface WrittenImage {
  imageId: number;
  projectId: number;
  width: number;
  height: number;
}

/**
 * An annotation write in two steps, both inside one transaction. beginAnnotationWrite writes the rows
 * of the image alone: its tags, the figure tag references a tag rename or delete finds it by, and its
 * predictions' agreement with the new objects. `finish` writes the image row, its object summary
 * (image_classes) and the content's snapshot (with `extraSnapshots`); call it last, just before the
 * commit. It updates the dataset's running totals (migration 0037), rows that every save of the
 * dataset's images updates too: each writer holds them from `finish` to its commit only (on
 * PostgreSQL one statement), so concurrent saves of one dataset queue for that and the commit, not
 * for a whole transaction.
 */
export interface AnnotationWriter {
  finish(extraSnapshots: readonly EncodedSnapshot[]): Promise<void>;
}

/** `classIds`: the ids of the objects' classes by title, held by lockClassesByTitle. */
export async function beginAnnotationWrite(db: Kysely<Database>, image: WrittenImage, write: AnnotationWrite, classIds: ReadonlyMap<string, number>): Promise<AnnotationWriter> {
  const { imageId } = image;
  // The rows are written as the import writes them, a thousand a statement.
  await db.deleteFrom('image_tags').where('image_id', '=', imageId).execute();
  const tagRows = write.imageTags.map((t) => ({ image_id: imageId, tag_id: t.tagId, value: t.value }));
  for (let i = 0; i < tagRows.length; i += 1000) await insertImageTags(db, tagRows.slice(i, i + 1000));
  await db.deleteFrom('object_tag_refs').where('image_id', '=', imageId).execute();
  const refs = write.objectTagIds.map((tagId) => ({ image_id: imageId, tag_id: tagId }));
  for (let i = 0; i < refs.length; i += 1000) await insertObjectTagRefs(db, refs.slice(i, i + 1000));
  const summarised = { projectId: image.projectId, width: image.width, height: image.height, objectsJson: write.objectsJson };
  await rewritePredictionAgreement(db, imageId, undefined, { project_id: image.projectId, width: image.width, height: image.height, objects_json: write.objectsJson });
  const [summary] = await summarise(db, [summarised], new Map([[image.projectId, new Map(classIds)]]));
  const content = encodeContent(write);
  const row = {
    description: write.description,
    objects_json: write.objectsJson,
    object_ids: write.objectIds,
    next_object_id: write.nextObjectId,
    object_tag_values: write.objectTagValues,
    annotation_hash: content.hash,
    object_count: summary!.objects,
  };
  return {
    async finish(extraSnapshots) {
      const snapshots = [content, ...extraSnapshots];
      if (isPostgres(db)) return finishInOneStatement(db, image, summary!, snapshots, row);
      await saveSnapshots(db, snapshots);
      await db.deleteFrom('image_classes').where('image_id', '=', imageId).execute();
      await insertSummaryRows(db, [{ id: imageId, projectId: image.projectId }], [summary!]);
      await db
        .updateTable('images')
        .set({ ...row, updated_at: isoNow() })
        .where('id', '=', imageId)
        .execute();
    },
  };
}

/**
 * PostgreSQL: the end of an annotation write as one statement, so the dataset's running totals its
 * triggers update are held from that statement's end to the commit, with no round trip between.
 * The image's summary is upserted and its classes no longer there deleted (two sets of rows that do
 * not meet, so the order the parts run in does not matter); the triggers fire once per table and
 * event at the statement's end, in the same order for every save.
 */
async function finishInOneStatement(
  db: Kysely<Database>,
  image: WrittenImage,
  summary: ImageSummary,
  snapshots: readonly EncodedSnapshot[],
  row: Record<string, string | number | null>,
): Promise<void> {
  const parts: RawBuilder<unknown>[] = [];
  parts.push(sql`saved as (insert into annotation_snapshots (hash, body, size)
    values ${sql.join(inHashOrder(snapshots).map((s) => sql`(${s.hash}, ${s.body}, ${s.size})`))} on conflict (hash) do nothing)`);
  const classIds = summary.classes.map((c) => c.classId);
  if (summary.classes.length > 0) {
    const columns = sql.join(SUMMARY_COLUMNS.map((c) => sql.id(c)));
    const values = sql.join(summary.classes.map((c) => sql`(${sql.join(summaryRowOf(image.imageId, image.projectId, c))})`));
    const set = sql.join(SUMMARY_COLUMNS.filter((c) => c !== 'image_id' && c !== 'class_id').map((c) => sql`${sql.id(c)} = excluded.${sql.id(c)}`));
    parts.push(sql`summary as (insert into image_classes (${columns}) values ${values} on conflict (image_id, class_id) do update set ${set})`);
  }
  const stale = classIds.length > 0 ? sql` and class_id <> all(${classIds})` : sql``;
  parts.push(sql`gone as (delete from image_classes where image_id = ${image.imageId}${stale})`);
  const set = sql.join(Object.entries({ ...row, updated_at: isoNow() }).map(([column, value]) => sql`${sql.id(column)} = ${value}`));
  await sql`with ${sql.join(parts)} update images set ${set} where id = ${image.imageId}`.execute(db);
}

/** A tag an annotation write names: its id, and what its values may be (a oneof_string tag's list, or null). */
export interface LockedTag {
  id: number;
  title: string;
  valueType: TagValueType;
  values: string[] | null;
}

/**
 * The ids of the project's tags of `scope` with these titles, by title. On PostgreSQL the rows found
 * stay share-locked until the caller's transaction ends, as importRepo.lockTags does for an import
 * batch: a rename or delete of one of them waits for the annotation write, then finds the image
 * through the references it wrote. A rename committed first is seen: its tag no longer has the title.
 */
export async function lockTagsByTitle(db: Kysely<Database>, projectId: number, scope: 'images' | 'figures', titles: readonly string[]): Promise<Map<string, LockedTag>> {
  const ids = new Map<string, LockedTag>();
  for (let i = 0; i < titles.length; i += 1000) {
    let query = db
      .selectFrom('project_tags')
      .select(['id', 'title', 'value_type', 'possible_values'])
      .where('project_id', '=', projectId)
      .where('scope', '=', scope)
      .where('title', 'in', titles.slice(i, i + 1000));
    if (isPostgres(db)) query = query.forShare();
    for (const row of await query.execute()) {
      const values = row.possible_values === null ? null : (JSON.parse(row.possible_values) as string[]);
      ids.set(row.title, { id: row.id, title: row.title, valueType: row.value_type as TagValueType, values });
    }
  }
  return ids;
}

/**
 * The project's classes of these titles, as lockTagsByTitle holds tags: share-locked on PostgreSQL
 * until the caller's transaction ends, so a rename or delete of one of them (which holds the class row
 * for update) waits for the annotation write and then finds the image, and a rename committed first
 * is seen: its class no longer has the title. SQLite runs one write transaction at a time anyway.
 * Answers their ids by title.
 */
export async function lockClassesByTitle(db: Kysely<Database>, projectId: number, titles: readonly string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (let i = 0; i < titles.length; i += 1000) {
    let query = db.selectFrom('classes').select(['id', 'title']).where('project_id', '=', projectId).where('title', 'in', titles.slice(i, i + 1000));
    if (isPostgres(db)) query = query.forShare();
    for (const row of await query.execute()) found.set(row.title, row.id);
  }
  return found;
}

/** The stored ids of the image's objects (images.object_ids, null for 1..n) and the next id. */
export async function findObjectIds(db: Kysely<Database>, imageId: number): Promise<{ objectIds: string | null; nextObjectId: number | null } | undefined> {
  const row = await db.selectFrom('images').select(['object_ids', 'next_object_id']).where('id', '=', imageId).executeTakeFirst();
  return row && { objectIds: row.object_ids, nextObjectId: row.next_object_id };
}

/**
 * Replaces the image's objects and their ids only if both still read as `expected`, and answers
 * whether it did: another writer may have changed either since they were read (an edit may give the
 * same objects other ids), and the caller then reads again and retries.
 */
export async function replaceObjectsAndIds(
  db: Kysely<Database>,
  imageId: number,
  expected: { objectsJson: string; objectIds: string | null },
  next: { objectsJson: string; objectIds: string | null; nextObjectId: number | null },
): Promise<boolean> {
  let update = db
    .updateTable('images')
    .set({ objects_json: next.objectsJson, object_ids: next.objectIds, next_object_id: next.nextObjectId, updated_at: isoNow() })
    .where('id', '=', imageId)
    .where('objects_json', '=', expected.objectsJson);
  update = expected.objectIds === null ? update.where('object_ids', 'is', null) : update.where('object_ids', '=', expected.objectIds);
  const result = await update.executeTakeFirst();
  if (result.numUpdatedRows === 0n) return false;
  await rewriteImageSummary(db, imageId);
  await refreshAnnotationHashes(db, [imageId]);
  await rewritePredictionAgreement(db, imageId);
  return true;
}
