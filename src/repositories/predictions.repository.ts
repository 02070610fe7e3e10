// Rows of image_predictions: one model's predictions for one image, replaced whole.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';

export interface StoredPredictions {
  imageId: number;
  model: string;
  objectsJson: string;
  updatedAt: string;
}

export interface PredictionsWrite {
  imageId: number;
  projectId: number;
  model: string;
  objectsJson: string;
  objectCount: number;
  maxScore: number;
  now: string;
}

/** The image's predictions, by model name; one model's only when `model` is given. */
export async function findPredictions(db: Kysely<Database>, imageId: number, model?: string): Promise<StoredPredictions[]> {
  let query = db.selectFrom('image_predictions').select(['image_id', 'model', 'objects_json', 'updated_at']).where('image_id', '=', imageId);
  if (model !== undefined) query = query.where('model', '=', model);
  const rows = await query.orderBy('model').execute();
  return rows.map((r) => ({ imageId: r.image_id, model: r.model, objectsJson: r.objects_json, updatedAt: r.updated_at }));
}

/** How many models have predictions for the image. */
export async function countModels(db: Kysely<Database>, imageId: number): Promise<number> {
  const row = await db.selectFrom('image_predictions').select((eb) => eb.fn.countAll<number | string>().as('n')).where('image_id', '=', imageId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Writes one model's predictions for an image in place of those it had. */
export async function replacePredictions(db: Kysely<Database>, write: PredictionsWrite): Promise<void> {
  const values = {
    objects_json: write.objectsJson,
    object_count: write.objectCount,
    max_score: write.maxScore,
    project_id: write.projectId,
    updated_at: write.now,
  };
  await db
    .insertInto('image_predictions')
    .values({ image_id: write.imageId, model: write.model, created_at: write.now, ...values })
    .onConflict((oc) => oc.columns(['image_id', 'model']).doUpdateSet(values))
    .execute();
}

/** Deletes the image's predictions of one model, or of every model; answers how many models lost theirs. */
export async function deletePredictions(db: Kysely<Database>, imageId: number, model?: string): Promise<number> {
  let query = db.deleteFrom('image_predictions').where('image_id', '=', imageId);
  if (model !== undefined) query = query.where('model', '=', model);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The model names with predictions in a project, with how many images each covers. */
export async function projectModels(db: Kysely<Database>, projectId: number, unseenDatasetIds: readonly number[] = []): Promise<{ model: string; images: number; objects: number }[]> {
  let query = db
    .selectFrom('image_predictions')
    .select((eb) => ['model', eb.fn.countAll<number | string>().as('images'), eb.fn.sum<number | string>('object_count').as('objects')])
    .where('project_id', '=', projectId);
  if (unseenDatasetIds.length > 0) query = query.where('image_id', 'not in', db.selectFrom('images').select('images.id').where('images.dataset_id', 'in', [...unseenDatasetIds]));
  const rows = await query
    .groupBy('model')
    .orderBy('model')
    .execute();
  return rows.map((r) => ({ model: r.model, images: Number(r.images), objects: Number(r.objects ?? 0) }));
}

/** The image, if it lies in a project of the team, with what predictions are checked against. */
export async function findTeamImage(
  db: Kysely<Database>,
  teamId: number,
  imageId: number,
): Promise<{ id: number; projectId: number; width: number; height: number } | undefined> {
  const row = await db
    .selectFrom('images')
    .innerJoin('projects', 'projects.id', 'images.project_id')
    .select(['images.id', 'images.project_id', 'images.width', 'images.height'])
    .where('images.id', '=', imageId)
    .where('projects.team_id', '=', teamId)
    .executeTakeFirst();
  return row && { id: row.id, projectId: row.project_id, width: row.width, height: row.height };
}

/** The project's classes: id, title and shape. */
export async function projectClasses(db: Kysely<Database>, projectId: number): Promise<{ id: number; title: string; shape: string }[]> {
  return db.selectFrom('classes').select(['id', 'title', 'shape']).where('project_id', '=', projectId).orderBy('id').execute();
}

/** An image as an evaluation reads it: its annotation and one model's predictions (null: none stored). */
export interface EvaluatedImage {
  id: number;
  name: string;
  datasetId: number;
  width: number;
  height: number;
  objectsJson: string;
  predictionsJson: string | null;
}

/** The images of a project (of one dataset, when given), by id, with the model's predictions. */
export async function imagesForEvaluation(db: Kysely<Database>, projectId: number, model: string, datasetId?: number, unseenDatasetIds: readonly number[] = []): Promise<EvaluatedImage[]> {
  let query = db
    .selectFrom('images')
    .leftJoin('image_predictions', (join) => join.onRef('image_predictions.image_id', '=', 'images.id').on('image_predictions.model', '=', model))
    .select(['images.id', 'images.name', 'images.dataset_id', 'images.width', 'images.height', 'images.objects_json', 'image_predictions.objects_json as predictions_json'])
    .where('images.project_id', '=', projectId);
  if (datasetId !== undefined) query = query.where('images.dataset_id', '=', datasetId);
  if (unseenDatasetIds.length > 0) query = query.where('images.dataset_id', 'not in', [...unseenDatasetIds]);
  const rows = await query.orderBy('images.id').execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    datasetId: r.dataset_id,
    width: r.width,
    height: r.height,
    objectsJson: r.objects_json,
    predictionsJson: r.predictions_json,
  }));
}

/** How many images of the project (of the dataset) there are. */
export async function countProjectImages(db: Kysely<Database>, projectId: number, datasetId?: number, unseenDatasetIds: readonly number[] = []): Promise<number> {
  let query = db.selectFrom('images').select((eb) => eb.fn.countAll<number | string>().as('n')).where('project_id', '=', projectId);
  if (datasetId !== undefined) query = query.where('dataset_id', '=', datasetId);
  if (unseenDatasetIds.length > 0) query = query.where('dataset_id', 'not in', [...unseenDatasetIds]);
  return Number((await query.executeTakeFirst())?.n ?? 0);
}

/** The images of a project (of one dataset) by name, with their sizes, to match files to. */
export async function projectImagesByName(
  db: Kysely<Database>,
  projectId: number,
  datasetId?: number,
): Promise<{ id: number; name: string; width: number; height: number }[]> {
  let query = db.selectFrom('images').select(['id', 'name', 'width', 'height']).where('project_id', '=', projectId);
  if (datasetId !== undefined) query = query.where('dataset_id', '=', datasetId);
  return query.orderBy('id').execute();
}
