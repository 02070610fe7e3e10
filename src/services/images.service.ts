// Image rules: finding the image a request names, its tags (scope `images`) and its description. A change
// that alters the image's annotation records annotation.updated and a revision in its transaction.
import type { Kysely } from 'kysely';
import type { Database, ImageRow } from '../db/types.ts';
import { notFound, validation } from '../errors.ts';
import * as imageTags from '../repositories/image-tags.repository.ts';
import * as images from '../repositories/images.repository.ts';
import { annotationTagOf, recordAnnotationChanged } from './annotation-edits.service.ts';
import { type RevisionPolicy, recordChangedStates, statesBefore } from './annotation-revisions.service.ts';
import { type TagRef, resolveExistingTags, resolveTag } from './tags.service.ts';

/** How a request names an image: by id, or by name inside a dataset. */
export interface ImageRef {
  imageId?: number;
  imageTitle?: string;
  datasetId?: number;
}

/** A tag named by id or title, as a body gives it: exactly one of the two must be there. */
export interface TagChoice {
  id?: number;
  title?: string;
}

function toTagRef(choice: TagChoice, field?: string): TagRef {
  const hasId = choice.id !== undefined;
  const hasTitle = choice.title !== undefined;
  if (hasId === hasTitle) {
    throw validation(`${field ? `${field}: ` : ''}give exactly one of id or title`, field ? { field } : {});
  }
  return hasId ? { id: choice.id! } : { title: choice.title! };
}

/** The image, or a 404 that reads the same whether it is missing or another team's. */
export async function requireImage(db: Kysely<Database>, teamId: number, ref: ImageRef): Promise<ImageRow> {
  if (ref.imageId !== undefined) {
    if (ref.imageTitle !== undefined || ref.datasetId !== undefined) {
      throw validation('give imageId, or imageTitle with datasetId, not both', { field: 'imageId' });
    }
    const image = await images.findImageById(db, teamId, ref.imageId);
    if (!image) throw notFound('image', { imageId: ref.imageId });
    return image;
  }
  if (ref.imageTitle === undefined) throw validation('give imageId, or imageTitle with datasetId', { field: 'imageId' });
  if (ref.datasetId === undefined) throw validation('imageTitle needs datasetId', { field: 'datasetId' });
  const image = await images.findImageByName(db, teamId, ref.datasetId, ref.imageTitle);
  if (!image) throw notFound('image', { imageTitle: ref.imageTitle, datasetId: ref.datasetId });
  return image;
}

export async function listImageTags(db: Kysely<Database>, teamId: number, ref: ImageRef) {
  const image = await requireImage(db, teamId, ref);
  return imageTags.listImageTags(db, image.id);
}

/** Attaches a tag of the image's project; `create` makes a missing title into a new tag first. */
export async function attachTag(
  db: Kysely<Database>,
  caller: { teamId: number; userId: number },
  ref: ImageRef,
  choice: TagChoice & { create?: boolean },
  revisions: RevisionPolicy,
): Promise<void> {
  const tagRef = toTagRef(choice);
  await db.transaction().execute(async (trx) => {
    const image = await requireImage(trx, caller.teamId, ref);
    const tagId = await resolveTag(trx, image.project_id, 'images', tagRef, choice.create ? caller.userId : undefined);
    const before = await annotationTagOf(trx, caller.teamId, image.id);
    const states = await statesBefore(trx, caller.teamId, [image.id]);
    await imageTags.attachTag(trx, image.id, tagId);
    await recordChangedStates(trx, revisions, states);
    await recordAnnotationChanged(trx, caller.teamId, image.id, before);
  });
}

/**
 * Detaches every tag named. Tags that exist but are not attached are fine; a tag that does not exist
 * in the project is a 404 and then nothing is detached.
 */
export async function detachTags(db: Kysely<Database>, teamId: number, ref: ImageRef, choices: TagChoice[], revisions: RevisionPolicy): Promise<void> {
  const tagRefs = choices.map((choice, index) => toTagRef(choice, `[${index}]`));
  await db.transaction().execute(async (trx) => {
    const image = await requireImage(trx, teamId, ref);
    const tagIds = await resolveExistingTags(trx, image.project_id, 'images', tagRefs);
    const before = await annotationTagOf(trx, teamId, image.id);
    const states = await statesBefore(trx, teamId, [image.id]);
    await imageTags.detachTags(trx, image.id, [...new Set(tagIds)]);
    await recordChangedStates(trx, revisions, states);
    await recordAnnotationChanged(trx, teamId, image.id, before);
  });
}

export async function setDescription(db: Kysely<Database>, teamId: number, ref: ImageRef, value: string, revisions: RevisionPolicy): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const image = await requireImage(trx, teamId, ref);
    const before = await annotationTagOf(trx, teamId, image.id);
    const states = await statesBefore(trx, teamId, [image.id]);
    await images.setDescription(trx, image.id, value);
    await recordChangedStates(trx, revisions, states);
    await recordAnnotationChanged(trx, teamId, image.id, before);
  });
}
