// One image through API v2: its metadata, and the changes made to it (rename, description, move to
// another dataset of the team, copy, delete). Each change reads, compares with If-Match and writes in
// one transaction with the image locked, so two concurrent edits never both win.
//
// Moving or copying into another project: objects name their class and tags by title, and the image's
// tags are the project's tags. The target project must have every class and tag the image uses, by
// title; the image's tags are then attached as the target project's tags of those titles. A project
// that lacks any of them refuses the image with 409 CONFLICT, naming what is missing: nothing is made
// up in the target project, whose classes and tags are its owners' to define.
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../db/dialect.ts';
import type { Database, ImageRow } from '../db/types.ts';
import { AppError, conflict, notFound } from '../errors.ts';
import * as changes from '../repositories/image-changes.repository.ts';
import { type ImageMetadata, findImageMetadata } from '../repositories/image-metadata.repository.ts';
import { findDataset } from '../repositories/datasets.repository.ts';
import { findImageByName } from '../repositories/images.repository.ts';
import { annotationTagOf, recordAnnotationChanged } from './annotation-edits.service.ts';
import { type RevisionPolicy, recordChangedStates, recordNewImages, statesBefore } from './annotation-revisions.service.ts';
import { isValidImageName } from './identifiers.ts';
import { checkImagePlacement } from './managers-only.service.ts';
import { checkIfMatch } from './preconditions.ts';

export interface ImageChange {
  name?: string;
  description?: string;
  datasetId?: number;
}

export interface CopyRequest {
  datasetId: number;
  name?: string;
}

export async function describeImage(db: Kysely<Database>, teamId: number, imageId: number): Promise<ImageMetadata> {
  const image = await findImageMetadata(db, teamId, imageId);
  if (!image) throw notFound('image', { imageId });
  return image;
}

function checkName(name: string): void {
  if (!isValidImageName(name)) {
    throw new AppError('VALIDATION', 'name must be a file name: no "/", "\\", control character, "." or ".."', { field: 'name' });
  }
}

/** The image locked and its current representation, checked against If-Match. */
async function lockChecked(trx: Kysely<Database>, teamId: number, imageId: number, ifMatch: string | undefined): Promise<ImageRow> {
  const image = await changes.lockImage(trx, teamId, imageId);
  if (!image) throw notFound('image', { imageId });
  if (ifMatch !== undefined) checkIfMatch(await describeImage(trx, teamId, imageId), ifMatch);
  return image;
}

/** The target dataset of a move or copy, if it is the team's, and the name free in it. */
async function placeFor(trx: Kysely<Database>, teamId: number, datasetId: number, name: string, except?: number) {
  const dataset = await findDataset(trx, teamId, datasetId);
  if (!dataset) throw notFound('dataset', { datasetId });
  const taken = await findImageByName(trx, teamId, datasetId, name);
  if (taken && taken.id !== except) throw nameTaken(name, datasetId);
  return { datasetId, projectId: dataset.project_id, name };
}

const nameTaken = (name: string, datasetId: number): AppError => conflict(`dataset ${datasetId} already has an image named "${name}"`, { field: 'name', datasetId });

/**
 * The image's tags as tags of `projectId`, or a 409 naming the classes and tags that project lacks.
 * Undefined when the project is the image's own: its tags stay as they are.
 */
async function tagsIn(trx: Kysely<Database>, image: ImageRow, projectId: number): Promise<changes.TagPlacement | undefined> {
  if (projectId === image.project_id) return undefined;
  const used = await changes.usedTitles(trx, image.id);
  const found = await changes.titlesInProject(trx, projectId, {
    classes: used.classes,
    imageTags: used.imageTags.map((t) => t.title),
    objectTags: used.objectTags,
  });
  const missing = {
    classes: used.classes.filter((t) => !found.classes.has(t)),
    imageTags: used.imageTags.map((t) => t.title).filter((t) => !found.imageTags.has(t)),
    objectTags: used.objectTags.filter((t) => !found.objectTags.has(t)),
  };
  if (missing.classes.length + missing.imageTags.length + missing.objectTags.length > 0) {
    throw conflict(`project ${projectId} lacks classes or tags the image's annotation uses`, { projectId, missing });
  }
  return {
    imageTags: used.imageTags.map((t) => ({ tagId: found.imageTags.get(t.title)!, value: t.value })),
    objectTagIds: [...new Set(used.objectTags.map((t) => found.objectTags.get(t)!))],
  };
}

/** A unique violation of a name that was free when checked (a concurrent write) is the same 409. */
async function translatingNameRace<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('the dataset already has an image of that name', { field: 'name' });
    throw error;
  }
}

/** Renames, describes and moves the image, in one transaction; answers its new metadata. */
export async function changeImage(
  db: Kysely<Database>,
  teamId: number,
  imageId: number,
  change: ImageChange,
  ifMatch: string | undefined,
  revisions: RevisionPolicy,
): Promise<ImageMetadata> {
  if (change.name !== undefined) checkName(change.name);
  return translatingNameRace(() =>
    db.transaction().execute(async (trx) => {
      const image = await lockChecked(trx, teamId, imageId, ifMatch);
      // The annotation's representation carries the image's name and description: webhooks hear of it.
      const annotationBefore = await annotationTagOf(trx, teamId, imageId);
      // A description is part of the annotation, and so are the image tags a move re-attaches.
      const states = await statesBefore(trx, teamId, [imageId]);
      const name = change.name ?? image.name;
      const datasetId = change.datasetId ?? image.dataset_id;
      if (datasetId !== image.dataset_id) {
        const target = await placeFor(trx, teamId, datasetId, name);
        await checkImagePlacement(trx, image.id, datasetId, 'move');
        await changes.moveImage(trx, image, target, await tagsIn(trx, image, target.projectId));
      } else if (name !== image.name) {
        await placeFor(trx, teamId, datasetId, name, image.id);
      }
      const fields = { ...(name !== image.name ? { name } : {}), ...(change.description !== undefined ? { description: change.description } : {}) };
      if (Object.keys(fields).length > 0) await changes.updateImageFields(trx, image.id, fields);
      await recordChangedStates(trx, revisions, states);
      await recordAnnotationChanged(trx, teamId, imageId, annotationBefore);
      return describeImage(trx, teamId, imageId);
    }),
  );
}

/** A copy in the dataset `datasetId` (the same bytes: no blob is copied); answers its metadata. */
export async function copyImage(db: Kysely<Database>, teamId: number, imageId: number, request: CopyRequest, revisions: RevisionPolicy): Promise<ImageMetadata> {
  if (request.name !== undefined) checkName(request.name);
  return translatingNameRace(() =>
    db.transaction().execute(async (trx) => {
      const image = await changes.lockImage(trx, teamId, imageId);
      if (!image) throw notFound('image', { imageId });
      const target = await placeFor(trx, teamId, request.datasetId, request.name ?? image.name);
      await checkImagePlacement(trx, image.id, request.datasetId, 'copy');
      const copyId = await changes.copyImage(trx, image, target, await tagsIn(trx, image, target.projectId));
      // The copy is a new image: its first revision, as an import's, names no state before.
      await recordNewImages(trx, revisions.author, [{ imageId: copyId, objectsJson: image.objects_json }]);
      return describeImage(trx, teamId, copyId);
    }),
  );
}

/** Deletes the image; its blob stays for the blob sweep, which removes what nothing uses. */
export async function deleteImage(db: Kysely<Database>, teamId: number, imageId: number, ifMatch: string | undefined): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const image = await lockChecked(trx, teamId, imageId, ifMatch);
    await changes.deleteImage(trx, image);
  });
}
