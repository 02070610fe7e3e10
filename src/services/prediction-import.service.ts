// Predictions imported from model output files onto a project's images: a COCO results list, YOLO
// label files with a confidence column, Supervisely annotations whose objects carry a score. Files
// are matched to images by name (or a COCO image id); each matched image's predictions of the model
// are replaced, all in one transaction. What cannot be used is skipped and reported, as imports do.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { AppError, notFound, validation } from '../errors.ts';
import { stemOf } from '../formats/archive-names.ts';
import { type FileObject, type FileWarning, readCocoResults, readSuperviselyPredictions, readYoloPredictions } from '../formats/prediction-files.ts';
import { findDataset } from '../repositories/datasets.repository.ts';
import { projectClasses, projectImagesByName } from '../repositories/predictions.repository.ts';
import { readPredictions } from './prediction-objects.ts';
import { requireProject } from './projects.service.ts';
import { storePredictions } from './predictions.service.ts';

export const MAX_IMPORT_WARNINGS = 100;

export interface PredictionImport {
  model: string;
  format: 'coco' | 'yolo' | 'supervisely';
  datasetId?: number;
  /** coco: the results list, and the ground truth's images and categories to match by name. */
  results?: unknown[];
  images?: { id: number | string; file_name: string }[];
  categories?: { id: number; name: string }[];
  /** yolo: the class names by index, and the label files by path. */
  names?: string[];
  labels?: Record<string, string>;
  /** supervisely: annotations by image name (`img.jpg` or `img.jpg.json`). */
  annotations?: Record<string, unknown>;
}

type ProjectImage = { id: number; name: string; width: number; height: number };

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

export async function importPredictions(db: Kysely<Database>, teamId: number, projectId: number, request: PredictionImport) {
  await requireProject(db, teamId, projectId);
  if (request.datasetId !== undefined) {
    const dataset = await findDataset(db, teamId, request.datasetId);
    if (!dataset || dataset.project_id !== projectId) throw notFound('dataset', { datasetId: request.datasetId });
  }
  const images = await projectImagesByName(db, projectId, request.datasetId);
  const classes = await projectClasses(db, projectId);
  const warnings: FileWarning[] = [];
  // A name two datasets share cannot be told apart: such images are matched only within a dataset.
  const byName = new Map<string, ProjectImage | null>();
  const byStem = new Map<string, ProjectImage | null>();
  for (const image of images) {
    byName.set(image.name, byName.has(image.name) ? null : image);
    const stem = stemOf(image.name);
    byStem.set(stem, byStem.has(stem) ? null : image);
  }
  const byId = new Map(images.map((i) => [i.id, i]));
  const matched = new Map<number, { image: ProjectImage; objects: FileObject[]; at: string }>();
  const match = (image: ProjectImage | null | undefined, key: string, objects: FileObject[], at: string) => {
    if (image === null) return warnings.push({ at, message: `${JSON.stringify(key)} names several images of the project; give datasetId` });
    if (!image) return warnings.push({ at, message: `no image of the project is named ${JSON.stringify(key)}` });
    const entry = matched.get(image.id) ?? { image, objects: [], at };
    entry.objects.push(...objects);
    matched.set(image.id, entry);
  };

  if (request.format === 'coco') {
    if (!request.results) throw validation('a COCO import of predictions needs `results`, the results list', { pointer: '/results' });
    const names = request.images ? new Map(request.images.map((i) => [String(i.id), baseName(i.file_name)])) : undefined;
    const titles = request.categories ? new Map(request.categories.map((c) => [c.id, c.name])) : undefined;
    const imageOf = (key: number | string): ProjectImage | null | undefined => (names ? byName.get(names.get(String(key)) ?? '') : byId.get(Number(key)));
    const category = (id: number) => {
      if (!titles) return { classId: id };
      const title = titles.get(id);
      return title === undefined ? undefined : { classTitle: title };
    };
    const read = readCocoResults(request.results, category, (key) => imageOf(key) ?? undefined, warnings);
    for (const [key, objects] of read) match(imageOf(key), names?.get(String(key)) ?? String(key), objects, `/results (image_id ${JSON.stringify(key)})`);
  } else if (request.format === 'yolo') {
    if (!request.names || !request.labels) throw validation('a YOLO import of predictions needs `names` and `labels`', { pointer: request.names ? '/labels' : '/names' });
    for (const [path, text] of Object.entries(request.labels)) {
      const at = `/labels/${path.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      const image = byStem.get(stemOf(baseName(path)));
      if (!image) {
        match(image, stemOf(baseName(path)), [], at);
        continue;
      }
      match(image, path, readYoloPredictions(text, at, request.names, image.width, image.height, warnings), at);
    }
  } else {
    if (!request.annotations) throw validation('a Supervisely import of predictions needs `annotations`', { pointer: '/annotations' });
    for (const [name, annotation] of Object.entries(request.annotations)) {
      const imageName = baseName(name).replace(/\.json$/i, '');
      const at = `/annotations/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      match(byName.get(imageName), imageName, readSuperviselyPredictions(annotation, at, warnings), at);
    }
  }

  let objectCount = 0;
  const written: number[] = [];
  await db.transaction().execute(async (trx) => {
    for (const { image, objects, at } of matched.values()) {
      // An object the project cannot hold is skipped, the image's others kept.
      const kept = objects.filter((o, i) => {
        try {
          readPredictions([o], classes, image);
          return true;
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          warnings.push({ at: `${at} (${image.name}, object ${i})`, message: `${error.message}; it is ignored` });
          return false;
        }
      });
      await storePredictions(trx, { id: image.id, projectId }, request.model, readPredictions(kept, classes, image));
      objectCount += kept.length;
      written.push(image.id);
    }
  });
  return {
    model: request.model,
    images: written.length,
    objects: objectCount,
    warnings: warnings.slice(0, MAX_IMPORT_WARNINGS),
    moreWarnings: Math.max(0, warnings.length - MAX_IMPORT_WARNINGS),
  };
}
