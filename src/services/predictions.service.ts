// Predictions of models beside an image's annotation: read, replaced one model at a time, deleted.
// They never touch the annotation; accepting one is the client's edit of the annotation.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import type { Database } from '../db/types.ts';
import { notFound, validation } from '../errors.ts';
import { rewritePredictionAgreement } from '../repositories/prediction-agreement.repository.ts';
import { countModels, deletePredictions, findPredictions, findTeamImage, projectClasses, replacePredictions, projectModels } from '../repositories/predictions.repository.ts';
import { hiddenDatasetIdsOf } from '../repositories/hidden-datasets.ts';
import { type Caller, readerOf } from './project-access.ts';
import { requireProject } from './projects.service.ts';
import { type PredictionInput, type PredictionObject, type ProjectClass, readPredictions } from './prediction-objects.ts';

/** Models one image may have predictions of: far more than a review compares. */
export const MAX_MODELS_PER_IMAGE = 50;

export interface ModelPredictions {
  model: string;
  updatedAt: string;
  objects: (PredictionObject & { index: number })[];
}

async function requireImage(db: Kysely<Database>, teamId: number, imageId: number) {
  const image = await findTeamImage(db, teamId, imageId);
  if (!image) throw notFound('image', { imageId });
  return image;
}

/** Stored objects as answered: the class title as the project names the class now, an index each. */
function answerOf(stored: { model: string; updatedAt: string; objectsJson: string }, classes: readonly ProjectClass[]): ModelPredictions {
  const titles = new Map(classes.map((c) => [c.id, c.title]));
  const objects = (JSON.parse(stored.objectsJson) as PredictionObject[]).map((o, index) => ({ ...o, classTitle: titles.get(o.classId) ?? o.classTitle, index }));
  return { model: stored.model, updatedAt: stored.updatedAt, objects };
}

/** The image's predictions, every model's or one model's. */
export async function getPredictions(db: Kysely<Database>, teamId: number, imageId: number, model?: string): Promise<{ imageId: number; models: ModelPredictions[] }> {
  const image = await requireImage(db, teamId, imageId);
  const [stored, classes] = await Promise.all([findPredictions(db, imageId, model), projectClasses(db, image.projectId)]);
  return { imageId, models: stored.map((s) => answerOf(s, classes)) };
}

/** Writes checked predictions of a model for an image (the API's PUT and imports). */
export async function storePredictions(
  db: Kysely<Database>,
  image: { id: number; projectId: number },
  model: string,
  objects: readonly PredictionObject[],
): Promise<string> {
  const now = isoNow();
  // Highest score first: a reader that stops at a threshold reads a prefix.
  const sorted = [...objects].sort((a, b) => b.score - a.score);
  const objectsJson = JSON.stringify(sorted);
  await replacePredictions(db, {
    imageId: image.id,
    projectId: image.projectId,
    model,
    objectsJson,
    objectCount: sorted.length,
    maxScore: sorted[0]?.score ?? 0,
    now,
  });
  await rewritePredictionAgreement(db, image.id, model);
  return now;
}

/** Replaces one model's predictions for an image; answers them as GET does. */
export async function putPredictions(
  db: Kysely<Database>,
  teamId: number,
  imageId: number,
  body: { model: string; objects: PredictionInput[] },
): Promise<ModelPredictions> {
  const image = await requireImage(db, teamId, imageId);
  const classes = await projectClasses(db, image.projectId);
  const objects = readPredictions(body.objects, classes, image);
  return db.transaction().execute(async (trx) => {
    const existing = await findPredictions(trx, imageId, body.model);
    if (existing.length === 0 && (await countModels(trx, imageId)) >= MAX_MODELS_PER_IMAGE) {
      throw validation(`an image keeps the predictions of at most ${MAX_MODELS_PER_IMAGE} models; delete one first`, { pointer: '/model' });
    }
    await storePredictions(trx, image, body.model, objects);
    const [stored] = await findPredictions(trx, imageId, body.model);
    return answerOf(stored!, classes);
  });
}

/** Deletes one model's predictions for the image, or all of them; a model it has none of is a 404. */
export async function removePredictions(db: Kysely<Database>, teamId: number, imageId: number, model?: string): Promise<void> {
  await requireImage(db, teamId, imageId);
  const deleted = await deletePredictions(db, imageId, model);
  if (model !== undefined && deleted === 0) throw notFound('predictions', { imageId, model });
}

/** The models with predictions in a project of the team, each with the images and objects it covers. */
/** The models with predictions in the project, counting the images the caller sees (hidden-datasets.ts). */
export async function listProjectModels(db: Kysely<Database>, caller: Caller, projectId: number): Promise<{ model: string; images: number; objects: number }[]> {
  await requireProject(db, caller.teamId, projectId);
  return projectModels(db, projectId, await hiddenDatasetIdsOf(db, projectId, await readerOf(db, caller, projectId)));
}
