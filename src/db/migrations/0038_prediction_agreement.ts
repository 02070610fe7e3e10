// Where each image's predictions of a model agree with its annotation, so that the gallery can list
// the images a model disagrees with at any score threshold without matching objects as it lists. Ten
// IoU thresholds by two IoU types make 20 rows per image and model, each an interval of score
// thresholds (src/evaluation/agreement.ts); they are written in the transaction of every write of the
// predictions or of the annotation's objects, and go with the predictions they describe.
import type { Kysely } from 'kysely';
import { rewriteAllPredictionAgreement } from '../../repositories/prediction-agreement.repository.ts';
import { isPostgres, notNull } from '../dialect.ts';
import type { Database } from '../types.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('prediction_agreement')
    .addColumn('image_id', 'integer', notNull)
    .addColumn('model', 'text', notNull)
    .addColumn('iou_type', 'text', notNull)
    .addColumn('iou', 'integer', notNull)
    .addColumn('agree_above', 'double precision', notNull)
    .addColumn('agree_upto', 'double precision', notNull)
    .addPrimaryKeyConstraint('prediction_agreement_pk', ['image_id', 'model', 'iou_type', 'iou'])
    .addForeignKeyConstraint('prediction_agreement_predictions_fk', ['image_id', 'model'], 'image_predictions', ['image_id', 'model'], (c) => c.onDelete('cascade'))
    .execute();
  if (isPostgres(db)) await notifyChangesOf(db, 'prediction_agreement');
  await rewriteAllPredictionAgreement(db as Kysely<Database>);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('prediction_agreement').execute();
}
