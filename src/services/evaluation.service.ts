// A model's predictions evaluated against the annotations of a project or one of its datasets, as
// COCOeval would evaluate the same objects written as COCO files (see src/evaluation/coco-eval.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { notFound, validation } from '../errors.ts';
import type { AnnotationObject } from '../formats/canonical.ts';
import { type EvalObject, type IouType, cocoEvaluate } from '../evaluation/coco-eval.ts';
import { EVALUATED_SHAPES, boxOf, maskOf } from '../evaluation/object-geometry.ts';
import type { Rle } from '../evaluation/rle.ts';
import { findDataset } from '../repositories/datasets.repository.ts';
import { countProjectImages, imagesForEvaluation, projectClasses } from '../repositories/predictions.repository.ts';
import type { PredictionObject } from './prediction-objects.ts';
import { hiddenDatasetIdsOf } from '../repositories/hidden-datasets.ts';
import { type Caller, readerOf } from './project-access.ts';
import { requireProject } from './projects.service.ts';

/** Images one evaluation reads: a larger project is evaluated a dataset at a time. */
export const MAX_EVALUATED_IMAGES = 20_000;
/** Images the answer lists, worst first. */
export const WORST_IMAGES = 100;

export interface EvaluationRequest {
  projectId: number;
  model: string;
  iouType: IouType;
  datasetId?: number;
}

const orNull = (v: number): number | null => (v === -1 ? null : v);

export async function evaluateModel(db: Kysely<Database>, caller: Caller, request: EvaluationRequest) {
  const teamId = caller.teamId;
  await requireProject(db, teamId, request.projectId);
  // The answer names its worst images: those of datasets the caller may not see (a job's honeypots,
  // managers-only datasets for anybody but a manager) are not evaluated.
  const unseen = await hiddenDatasetIdsOf(db, request.projectId, await readerOf(db, caller, request.projectId));
  if (request.datasetId !== undefined) {
    const dataset = await findDataset(db, teamId, request.datasetId);
    if (!dataset || dataset.project_id !== request.projectId) throw notFound('dataset', { datasetId: request.datasetId });
  }
  const count = await countProjectImages(db, request.projectId, request.datasetId, unseen);
  if (count > MAX_EVALUATED_IMAGES) {
    throw validation(`the evaluation reads at most ${MAX_EVALUATED_IMAGES} images; this has ${count}: evaluate one dataset at a time`, { field: 'datasetId' });
  }
  const classes = (await projectClasses(db, request.projectId)).filter((c) => EVALUATED_SHAPES.has(c.shape));
  const byTitle = new Map(classes.map((c) => [c.title, c]));
  const byId = new Map(classes.map((c) => [c.id, c]));
  const images = await imagesForEvaluation(db, request.projectId, request.model, request.datasetId, unseen);

  const truths: EvalObject[] = [];
  const detections: EvalObject[] = [];
  const counts = new Map<number, { truths: number; detections: number }>(classes.map((c) => [c.id, { truths: 0, detections: 0 }]));
  let predicted = 0;
  for (const image of images) {
    const add = async (list: EvalObject[], shape: string, classId: number, o: Parameters<typeof boxOf>[1], extra: Partial<EvalObject>) => {
      const mask: Rle | undefined = request.iouType === 'segm' ? await maskOf(shape, o, image.height, image.width) : undefined;
      list.push({ imageId: image.id, categoryId: classId, bbox: request.iouType === 'bbox' ? await boxOf(shape, o, image.height, image.width) : [], ...(mask ? { mask: () => mask } : {}), ...extra });
    };
    for (const o of JSON.parse(image.objectsJson) as AnnotationObject[]) {
      const c = byTitle.get(o.classTitle);
      if (!c) continue;
      await add(truths, c.shape, c.id, o, { crowd: o.tags.includes('iscrowd') });
      counts.get(c.id)!.truths++;
    }
    if (image.predictionsJson === null) continue;
    predicted++;
    for (const p of JSON.parse(image.predictionsJson) as PredictionObject[]) {
      const c = byId.get(p.classId);
      if (!c) continue;
      await add(detections, c.shape, c.id, p, { score: p.score });
      counts.get(c.id)!.detections++;
    }
  }
  if (predicted === 0) throw notFound('predictions', { model: request.model, projectId: request.projectId });

  const result = cocoEvaluate({ iouType: request.iouType, imageIds: images.map((i) => i.id), categoryIds: classes.map((c) => c.id), truths, detections });
  const byImage = new Map(images.map((i) => [i.id, i]));
  const worst = [...result.images]
    .filter((i) => i.falsePositives + i.falseNegatives > 0)
    .sort((a, b) => b.falsePositives + b.falseNegatives - (a.falsePositives + a.falseNegatives) || a.imageId - b.imageId)
    .slice(0, WORST_IMAGES)
    .map((i) => ({ ...i, name: byImage.get(i.imageId)!.name, datasetId: byImage.get(i.imageId)!.datasetId }));
  return {
    projectId: request.projectId,
    datasetId: request.datasetId ?? null,
    model: request.model,
    iouType: request.iouType,
    imageCount: images.length,
    predictedImageCount: predicted,
    ap: orNull(result.ap),
    ap50: orNull(result.ap50),
    ap75: orNull(result.ap75),
    ar100: orNull(result.ar100),
    classes: result.classes.map((c) => ({
      classId: c.categoryId,
      title: byId.get(c.categoryId)!.title,
      truths: counts.get(c.categoryId)!.truths,
      detections: counts.get(c.categoryId)!.detections,
      ap: c.ap,
      ap50: c.ap50,
      ap75: c.ap75,
    })),
    curve: {
      recall: result.curve.recall,
      precision50: result.curve.precision50.map(orNull),
      precision75: result.curve.precision75.map(orNull),
      precision: result.curve.precision.map(orNull),
    },
    worstImages: worst,
  };
}
