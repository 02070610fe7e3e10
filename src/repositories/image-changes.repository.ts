// Changes to one image as API v2 makes them: rename, describe, move to another dataset, copy, delete.
// The callers run these inside one transaction with the image locked (lockImage).
import { type Kysely, sql } from 'kysely';
import { isoNow } from '../clock.ts';
import { isPostgres } from '../db/dialect.ts';
import type { Database, ImageRow } from '../db/types.ts';
import { renumberObjectTagValues } from '../formats/object-tag-values.ts';
import { refreshAnnotationHashes } from './annotation-contents.repository.ts';
import { rewriteImageSummary } from './image-summary.repository.ts';
import { rewritePredictionAgreement } from './prediction-agreement.repository.ts';
import { addToSizes, insertImage } from './images.repository.ts';
import { countClassTitles } from './stored-objects.ts';

/**
 * The image, if it lies in a project of the team, locked for change on PostgreSQL until the
 * transaction ends, so two edits of it never both win. SQLite has one writer at a time already.
 */
export async function lockImage(db: Kysely<Database>, teamId: number, imageId: number): Promise<ImageRow | undefined> {
  let query = db
    .selectFrom('images')
    .innerJoin('projects', 'projects.id', 'images.project_id')
    .selectAll('images')
    .where('images.id', '=', imageId)
    .where('projects.team_id', '=', teamId);
  if (isPostgres(db)) query = query.forUpdate('images');
  return query.executeTakeFirst();
}

export async function updateImageFields(db: Kysely<Database>, imageId: number, fields: { name?: string; description?: string }): Promise<void> {
  await db
    .updateTable('images')
    .set({ ...fields, updated_at: isoNow() })
    .where('id', '=', imageId)
    .execute();
  if (fields.description !== undefined) await refreshAnnotationHashes(db, [imageId]);
}

/** What an image's annotation names by title, which its project must have for it to make sense. */
export interface UsedTitles {
  classes: string[];
  /** Image tags (scope `images`) with their values. */
  imageTags: { title: string; value: string | null }[];
  /** Tags of its objects (scope `figures`). */
  objectTags: string[];
}

export async function usedTitles(db: Kysely<Database>, imageId: number): Promise<UsedTitles> {
  const image = await db.selectFrom('images').select('objects_json').where('id', '=', imageId).executeTakeFirstOrThrow();
  const classes = new Map<string, number>();
  countClassTitles(image.objects_json, classes);
  const imageTags = await db
    .selectFrom('image_tags')
    .innerJoin('project_tags', 'project_tags.id', 'image_tags.tag_id')
    .select(['project_tags.title', 'image_tags.value'])
    .where('image_tags.image_id', '=', imageId)
    .orderBy('project_tags.id')
    .execute();
  const objectTags = await db
    .selectFrom('object_tag_refs')
    .innerJoin('project_tags', 'project_tags.id', 'object_tag_refs.tag_id')
    .select('project_tags.title')
    .where('object_tag_refs.image_id', '=', imageId)
    .execute();
  return {
    classes: [...classes.keys()],
    imageTags,
    objectTags: objectTags.map((r) => r.title),
  };
}

/** The ids of the project's classes and tags of these titles, by title; titles it lacks are absent. */
export async function titlesInProject(
  db: Kysely<Database>,
  projectId: number,
  wanted: { classes: string[]; imageTags: string[]; objectTags: string[] },
): Promise<{ classes: Set<string>; imageTags: Map<string, number>; objectTags: Map<string, number> }> {
  // Share-locked on PostgreSQL until the caller's transaction ends, as lockTagsByTitle does: a rename or
  // delete of one of them (holding its row for update) waits for the move or copy and then finds the
  // image in its new project; one committed first is seen here.
  let classQuery = db.selectFrom('classes').select('title').where('project_id', '=', projectId).where('title', 'in', wanted.classes);
  if (isPostgres(db)) classQuery = classQuery.forShare();
  const classes = wanted.classes.length ? await classQuery.execute() : [];
  const tagsOf = async (scope: 'images' | 'figures', titles: string[]) => {
    if (titles.length === 0) return new Map<string, number>();
    let query = db.selectFrom('project_tags').select(['id', 'title']).where('project_id', '=', projectId).where('scope', '=', scope).where('title', 'in', titles);
    if (isPostgres(db)) query = query.forShare();
    const rows = await query.execute();
    return new Map(rows.map((r) => [r.title, r.id]));
  };
  return {
    classes: new Set(classes.map((c) => c.title)),
    imageTags: await tagsOf('images', wanted.imageTags),
    objectTags: await tagsOf('figures', wanted.objectTags),
  };
}

/** Where an image's tags go in its new place: the tag ids of its new project, by title. */
export interface TagPlacement {
  imageTags: { tagId: number; value: string | null }[];
  objectTagIds: number[];
}

async function replaceTags(db: Kysely<Database>, imageId: number, tags: TagPlacement): Promise<void> {
  await db.deleteFrom('image_tags').where('image_id', '=', imageId).execute();
  await db.deleteFrom('object_tag_refs').where('image_id', '=', imageId).execute();
  if (tags.imageTags.length) {
    await db
      .insertInto('image_tags')
      .values(tags.imageTags.map((t) => ({ image_id: imageId, tag_id: t.tagId, value: t.value })))
      .execute();
  }
  if (tags.objectTagIds.length) {
    await db
      .insertInto('object_tag_refs')
      .values(tags.objectTagIds.map((tagId) => ({ image_id: imageId, tag_id: tagId })))
      .execute();
  }
}

/**
 * Moves the image into another dataset (and maybe project) under `name`, carrying its bytes from the
 * old dataset's and project's sizes to the new ones'. `tags`, when the project changes, re-attaches
 * its tags as the new project's.
 */
export async function moveImage(
  db: Kysely<Database>,
  image: ImageRow,
  target: { datasetId: number; projectId: number; name: string },
  tags: TagPlacement | undefined,
): Promise<void> {
  await db
    .updateTable('images')
    .set({ dataset_id: target.datasetId, project_id: target.projectId, name: target.name, updated_at: isoNow() })
    .where('id', '=', image.id)
    .execute();
  // Another project has other class ids for the same titles.
  if (target.projectId !== image.project_id) {
    await rewriteImageSummary(db, image.id);
    await rewritePredictionAgreement(db, image.id);
  }
  const size = Number(image.size);
  await addToSizes(db, image.dataset_id, image.project_id, -size);
  await addToSizes(db, target.datasetId, target.projectId, size);
  if (tags) await replaceTags(db, image.id, tags);
}

/** A new image of the same bytes, annotation and tags in another place; answers its id. */
export async function copyImage(
  db: Kysely<Database>,
  image: ImageRow,
  target: { datasetId: number; projectId: number; name: string },
  tags: TagPlacement | undefined,
): Promise<number> {
  const id = await insertImage(db, {
    datasetId: target.datasetId,
    projectId: target.projectId,
    name: target.name,
    hash: image.hash,
    size: Number(image.size),
    width: image.width,
    height: image.height,
    description: image.description,
    objectsJson: image.objects_json,
    // The copy's objects are numbered 1..n: their tag values follow them from the source's ids.
    objectTagValues: image.object_ids === null ? image.object_tag_values : renumberObjectTagValues(image.object_tag_values, JSON.parse(image.object_ids) as number[]),
  });
  if (tags) {
    await replaceTags(db, id, tags);
  } else {
    await sql`insert into image_tags (image_id, tag_id, value) select ${id}, tag_id, value from image_tags where image_id = ${image.id}`.execute(db);
    await sql`insert into object_tag_refs (image_id, tag_id) select ${id}, tag_id from object_tag_refs where image_id = ${image.id}`.execute(db);
  }
  return id;
}

/** Deletes the image (its tags go with it) and takes its bytes off its dataset and project. */
export async function deleteImage(db: Kysely<Database>, image: ImageRow): Promise<void> {
  await db.deleteFrom('images').where('id', '=', image.id).execute();
  await addToSizes(db, image.dataset_id, image.project_id, -Number(image.size));
}
