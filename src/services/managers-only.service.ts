// The rules of managers-only datasets (docs/jobs.md "Ground truth"): ground truth lives there, so an
// annotator cannot find the source of a honeypot; and nothing of them goes into a job, whose assignee
// and reviewer could not see it.
import type { Kysely } from 'kysely';
import type { Database, DatasetRow } from '../db/types.ts';
import { conflict, validation } from '../errors.ts';
import { datasetImagesListed, imageFacts, inManagersOnlyDatasets, isManagersOnly, outsideManagersOnly } from '../repositories/managers-only.repository.ts';

/** How many ids a refusal names at most. */
const NAMED = 20;

/**
 * Refuses to change whether the dataset is managers-only when that would break a rule: its images in
 * a job would vanish from their assignee's sight, and its ground truth would be in view of everybody.
 */
export async function checkManagersOnlyChange(db: Kysely<Database>, dataset: DatasetRow, managersOnly: boolean): Promise<void> {
  if ((dataset.managers_only === 1) === managersOnly) return;
  if (managersOnly) {
    const inJobs = await datasetImagesListed(db, 'job_images', dataset.id, NAMED);
    if (inJobs.length > 0) {
      throw conflict(`images of dataset ${dataset.id} are in jobs, whose assignees could not see them in a managers-only dataset: delete those jobs first`, { datasetId: dataset.id, imageIds: inJobs });
    }
  } else {
    const truth = await datasetImagesListed(db, 'ground_truth', dataset.id, NAMED);
    if (truth.length > 0) {
      throw conflict(`dataset ${dataset.id} holds ground truth, which lives in managers-only datasets: unmark it first`, { datasetId: dataset.id, imageIds: truth });
    }
  }
}

/** Ground truth must lie in managers-only datasets: a 400 naming the images that do not, and nothing is marked. */
export async function requireManagersOnlyGroundTruth(db: Kysely<Database>, projectId: number, imageIds: readonly number[]): Promise<void> {
  const outside = await outsideManagersOnly(db, projectId, imageIds);
  if (outside.length > 0) {
    throw validation(`ground truth lives in managers-only datasets: image ${outside.join(', ')} is in an ordinary dataset, which every role of the project sees`, {
      field: 'imageIds',
      imageIds: outside,
    });
  }
}

/** A job's own images must not be of managers-only datasets: its assignee could not see them (400). */
export async function refuseManagersOnlyImages(db: Kysely<Database>, teamId: number, imageIds: readonly number[], field: string): Promise<void> {
  const hits = await inManagersOnlyDatasets(db, teamId, 'image', imageIds);
  if (hits.length === 0) return;
  const named = hits.slice(0, NAMED).map((h) => h.id);
  throw validation(`image ${named.join(', ')} is in a managers-only dataset, whose images no job may hold (its assignee could not see them): narrow the filter`, { field, imageIds: named });
}

/** Splitting a managers-only dataset into jobs is refused (400), as its images cannot be in a job. */
export function refuseManagersOnlySplit(dataset: DatasetRow): void {
  if (dataset.managers_only === 1) {
    throw validation(`dataset ${dataset.id} is managers-only, and no job may hold its images (its assignee could not see them)`, { field: 'datasetId', datasetId: dataset.id });
  }
}

/**
 * A move or copy of an image into another dataset keeps to the rules: ground truth (or a copy of its
 * bytes and name) goes into no ordinary dataset, where an annotator would find what a honeypot copies;
 * an image in a job moves into no managers-only dataset, where its assignee could not see it (409).
 */
export async function checkImagePlacement(db: Kysely<Database>, imageId: number, targetDatasetId: number, how: 'move' | 'copy'): Promise<void> {
  const facts = await imageFacts(db, imageId);
  if (!facts.groundTruth && !(how === 'move' && facts.inJob)) return;
  const managersOnly = await isManagersOnly(db, targetDatasetId);
  if (facts.groundTruth && !managersOnly) {
    throw conflict(`image ${imageId} is ground truth, which lives in managers-only datasets: dataset ${targetDatasetId} is an ordinary one, which every role sees`, { imageId, datasetId: targetDatasetId });
  }
  if (how === 'move' && facts.inJob && managersOnly) {
    throw conflict(`image ${imageId} is in a job, whose assignee could not see it in managers-only dataset ${targetDatasetId}`, { imageId, datasetId: targetDatasetId });
  }
}
