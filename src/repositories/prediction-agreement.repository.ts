// Rows of prediction_agreement: where each model's predictions for an image agree with its annotation
// (src/evaluation/agreement.ts). They are written again, in the writer's transaction, by every write
// of an image's predictions (storePredictions) and of its annotation's objects (writeAnnotation,
// replaceObjectsAndIds, a move to another project); they go with the predictions they describe.
import type { Kysely } from 'kysely';
import { insertRows } from '../db/bulk-insert.ts';
import type { Database } from '../db/types.ts';
import { type ComparedObject, agreementOf } from '../evaluation/agreement.ts';
import type { AnnotationObject } from '../formats/canonical.ts';

const COLUMNS = ['image_id', 'model', 'iou_type', 'iou', 'agree_above', 'agree_upto'] as const;

/** What agreement reads of the image: its project, size and objects. */
export interface AgreementImage {
  project_id: number;
  width: number;
  height: number;
  objects_json: string;
}

/**
 * Computes again how the image's predictions (of `model`, or of every model) agree with its
 * annotation, and writes it in place of what was stored. Call inside the transaction of the write;
 * `written` is the image as that transaction writes it, when its row is written later (annotation saves).
 */
export async function rewritePredictionAgreement(db: Kysely<Database>, imageId: number, model?: string, written?: AgreementImage): Promise<void> {
  let query = db.selectFrom('image_predictions').select(['model', 'objects_json']).where('image_id', '=', imageId);
  if (model !== undefined) query = query.where('model', '=', model);
  const predictions = await query.execute();
  if (predictions.length === 0) return;
  const image = written ?? (await db.selectFrom('images').select(['project_id', 'width', 'height', 'objects_json']).where('id', '=', imageId).executeTakeFirst());
  if (!image) return;
  const classes = await db.selectFrom('classes').select(['id', 'title', 'shape']).where('project_id', '=', image.project_id).execute();
  const byTitle = new Map(classes.map((c) => [c.title, c]));
  const byId = new Map(classes.map((c) => [c.id, c]));
  const truths: ComparedObject[] = [];
  for (const o of JSON.parse(image.objects_json) as AnnotationObject[]) {
    const c = byTitle.get(o.classTitle);
    if (c) truths.push({ classId: c.id, shape: c.shape, geometry: o, crowd: o.tags.includes('iscrowd') });
  }
  let remove = db.deleteFrom('prediction_agreement').where('image_id', '=', imageId);
  if (model !== undefined) remove = remove.where('model', '=', model);
  await remove.execute();
  const rows: unknown[][] = [];
  for (const p of predictions) {
    const objects: ComparedObject[] = [];
    for (const o of JSON.parse(p.objects_json) as (ComparedObject['geometry'] & { classId: number; score: number })[]) {
      const c = byId.get(o.classId);
      if (c) objects.push({ classId: c.id, shape: c.shape, geometry: o, score: o.score });
    }
    for (const a of await agreementOf(image, truths, objects)) rows.push([imageId, p.model, a.iouType, a.iou, a.above, a.upto]);
  }
  await insertRows(db, 'prediction_agreement', COLUMNS, rows);
}

/** Writes the agreement of every stored image and model, a few hundred images at a time (the migration that adds it). */
export async function rewriteAllPredictionAgreement(db: Kysely<Database>): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await db.selectFrom('image_predictions').select('image_id').distinct().where('image_id', '>', after).orderBy('image_id').limit(500).execute();
    if (rows.length === 0) return;
    for (const r of rows) await rewritePredictionAgreement(db, r.image_id);
    after = rows.at(-1)!.image_id;
  }
}
