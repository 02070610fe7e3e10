// Which datasets and images named by id lie in managers-only datasets (docs/jobs.md "Ground truth"):
// the access hook answers them as missing to anybody who does not manage their project.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';

export interface ManagersOnlyHit {
  id: number;
  projectId: number;
}

/** Of these dataset or image ids of the team, those in a managers-only dataset, with their project. */
export async function inManagersOnlyDatasets(db: Kysely<Database>, teamId: number, kind: 'dataset' | 'image', ids: readonly number[]): Promise<ManagersOnlyHit[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const datasets = db
    .selectFrom('datasets as d')
    .innerJoin('projects as p', 'p.id', 'd.project_id')
    .where('p.team_id', '=', teamId)
    .where('d.managers_only', '=', 1);
  if (kind === 'dataset') return datasets.select(['d.id as id', 'd.project_id as projectId']).where('d.id', 'in', unique).orderBy('d.id').execute();
  return datasets.innerJoin('images as i', 'i.dataset_id', 'd.id').select(['i.id as id', 'd.project_id as projectId']).where('i.id', 'in', unique).orderBy('i.id').execute();
}

/** Whether the dataset is a managers-only one. */
export async function isManagersOnly(db: Kysely<Database>, datasetId: number): Promise<boolean> {
  const row = await db.selectFrom('datasets').select('managers_only').where('id', '=', datasetId).executeTakeFirst();
  return row?.managers_only === 1;
}

/** Up to `limit` images of the dataset that `list` names: those in a job, or its ground truth; in id order. */
export async function datasetImagesListed(db: Kysely<Database>, list: 'job_images' | 'ground_truth', datasetId: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('images')
    .select('id')
    .where('dataset_id', '=', datasetId)
    // Probed by each image's id (both lists have an index on it), not read whole.
    .where((eb) => eb.exists(eb.selectFrom(list).select('image_id').whereRef('image_id', '=', 'images.id')))
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Of these images of the project, those outside managers-only datasets, in id order. */
export async function outsideManagersOnly(db: Kysely<Database>, projectId: number, imageIds: readonly number[]): Promise<number[]> {
  if (imageIds.length === 0) return [];
  const rows = await db
    .selectFrom('images')
    .innerJoin('datasets', 'datasets.id', 'images.dataset_id')
    .select('images.id')
    .where('images.project_id', '=', projectId)
    .where('datasets.managers_only', '=', 0)
    .where('images.id', 'in', [...new Set(imageIds)])
    .orderBy('images.id')
    .execute();
  return rows.map((r) => r.id);
}

/** Whether the image is ground truth, and whether it is in a job. */
export async function imageFacts(db: Kysely<Database>, imageId: number): Promise<{ groundTruth: boolean; inJob: boolean }> {
  const [truth, job] = await Promise.all([
    db.selectFrom('ground_truth').select('image_id').where('image_id', '=', imageId).executeTakeFirst(),
    db.selectFrom('job_images').select('job_id').where('image_id', '=', imageId).limit(1).executeTakeFirst(),
  ]);
  return { groundTruth: truth !== undefined, inJob: job !== undefined };
}
