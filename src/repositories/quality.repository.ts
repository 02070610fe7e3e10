// Ground truth and honeypots (0039_job_quality.ts): every query of them.
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { isoNow } from '../clock.ts';
import type { Database } from '../db/types.ts';
import { insertImage } from './images.repository.ts';

export interface GroundTruthRecord {
  imageId: number;
  name: string;
  datasetId: number;
  objects: number;
  createdAt: string;
}

/** Marks images as ground truth, freezing their objects and size as they are now (marking again freezes again). */
export async function putGroundTruth(db: Kysely<Database>, projectId: number, imageIds: readonly number[], userId: number | null): Promise<void> {
  const at = isoNow();
  const images = await db.selectFrom('images').select(['id', 'width', 'height', 'objects_json']).where('project_id', '=', projectId).where('id', 'in', [...imageIds]).execute();
  await db.deleteFrom('ground_truth').where('image_id', 'in', [...imageIds]).execute();
  if (images.length === 0) return;
  await db
    .insertInto('ground_truth')
    .values(images.map((i) => ({ image_id: i.id, project_id: projectId, width: i.width, height: i.height, objects_json: i.objects_json, created_by: userId, created_at: at })))
    .execute();
}

export async function deleteGroundTruth(db: Kysely<Database>, projectId: number, imageIds: readonly number[]): Promise<void> {
  await db.deleteFrom('ground_truth').where('project_id', '=', projectId).where('image_id', 'in', [...imageIds]).execute();
}

/** The project's ground-truth images in image id order, after `afterId`. */
export async function listGroundTruth(db: Kysely<Database>, projectId: number, options: { afterId?: number; limit: number }): Promise<GroundTruthRecord[]> {
  let query = db
    .selectFrom('ground_truth')
    .innerJoin('images', 'images.id', 'ground_truth.image_id')
    .select(['ground_truth.image_id', 'images.name', 'images.dataset_id', 'ground_truth.objects_json', 'ground_truth.created_at'])
    .where('ground_truth.project_id', '=', projectId);
  if (options.afterId !== undefined) query = query.where('ground_truth.image_id', '>', options.afterId);
  const rows = await query.orderBy('ground_truth.image_id').limit(options.limit).execute();
  return rows.map((r) => ({ imageId: r.image_id, name: r.name, datasetId: r.dataset_id, objects: (JSON.parse(r.objects_json) as unknown[]).length, createdAt: r.created_at }));
}

/**
 * The ground-truth images honeypots are drawn from: those in managers-only datasets. Ground truth
 * marked before the rule (in an ordinary dataset, where annotators could find it) is left out until
 * its dataset is made managers-only.
 */
export async function groundTruthIds(db: Kysely<Database>, projectId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('ground_truth')
    .innerJoin('images', 'images.id', 'ground_truth.image_id')
    .innerJoin('datasets', 'datasets.id', 'images.dataset_id')
    .select('ground_truth.image_id')
    .where('ground_truth.project_id', '=', projectId)
    .where('datasets.managers_only', '=', 1)
    .orderBy('ground_truth.image_id')
    .execute();
  return rows.map((r) => r.image_id);
}

/** Of these images, the ids that are images of the project outside hidden datasets. */
export async function visibleImagesOf(db: Kysely<Database>, projectId: number, imageIds: readonly number[]): Promise<Set<number>> {
  const rows = await db
    .selectFrom('images')
    .innerJoin('datasets', 'datasets.id', 'images.dataset_id')
    .select('images.id')
    .where('images.project_id', '=', projectId)
    .where('datasets.hidden', '=', 0)
    .where('images.id', 'in', [...imageIds])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * Copies ground-truth images into a new hidden dataset of the job, each with an empty annotation and
 * no tags, and records each copy as a honeypot with its truth. Answers the copies' ids, in the order of
 * `sourceIds`. The copies' bytes are the sources' blobs and are not added to the project's size.
 */
export async function insertHoneypots(db: Kysely<Database>, job: { id: number; projectId: number }, sourceIds: readonly number[]): Promise<number[]> {
  const at = isoNow();
  const dataset = await db
    .insertInto('datasets')
    .values({ project_id: job.projectId, title: `honeypots of job ${job.id} ${randomUUID()}`, size: 0, hidden: 1, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  const sources = await db
    .selectFrom('ground_truth')
    .innerJoin('images', 'images.id', 'ground_truth.image_id')
    .select(['images.id', 'images.name', 'images.hash', 'images.size', 'images.width', 'images.height', 'ground_truth.objects_json'])
    .where('ground_truth.image_id', 'in', [...sourceIds])
    .execute();
  const byId = new Map(sources.map((s) => [s.id, s]));
  const ids: number[] = [];
  for (const sourceId of sourceIds) {
    const s = byId.get(sourceId)!;
    const size = Number(s.size);
    const id = await insertImage(db, { datasetId: dataset.id, projectId: job.projectId, name: s.name, hash: s.hash, size, width: s.width, height: s.height });
    await db.insertInto('honeypots').values({ image_id: id, project_id: job.projectId, job_id: job.id, source_image_id: sourceId, truth_json: s.objects_json }).execute();
    ids.push(id);
  }
  // insertImage counted the copies' bytes in the project and the dataset: a honeypot adds nothing to either.
  const bytes = sources.length === 0 ? 0 : sourceIds.reduce((n, id) => n + Number(byId.get(id)!.size), 0);
  await db.updateTable('projects').set({ size: sql`size - ${bytes}` }).where('id', '=', job.projectId).execute();
  await db.updateTable('datasets').set({ size: 0 }).where('id', '=', dataset.id).execute();
  return ids;
}

/**
 * Gives each copy what the ordinary image next to it shows of its past: its created and updated
 * times, and its first revision when that is an upload's (no state before it), as the copy's own.
 */
export async function takePastOf(db: Kysely<Database>, pairs: readonly { copyId: number; neighbourId: number }[]): Promise<void> {
  if (pairs.length === 0) return;
  const neighbourIds = pairs.map((p) => p.neighbourId);
  const times = new Map((await db.selectFrom('images').select(['id', 'created_at', 'updated_at']).where('id', 'in', neighbourIds).execute()).map((r) => [r.id, r]));
  const firsts = await db
    .selectFrom('annotation_revisions')
    .selectAll()
    .where('id', 'in', db.selectFrom('annotation_revisions').select((eb) => eb.fn.min('id').as('id')).where('image_id', 'in', neighbourIds).groupBy('image_id'))
    .execute();
  const firstOf = new Map(firsts.map((r) => [r.image_id, r]));
  for (const { copyId, neighbourId } of pairs) {
    const t = times.get(neighbourId)!;
    await db.updateTable('images').set({ created_at: t.created_at, updated_at: t.updated_at }).where('id', '=', copyId).execute();
    const first = firstOf.get(neighbourId);
    // Only an upload's: a later revision names the neighbour's own states, which a restore would bring.
    if (!first || first.before_hash !== null) continue;
    await db
      .insertInto('annotation_revisions')
      .values({ image_id: copyId, team_id: first.team_id, key_id: first.key_id, user_id: first.user_id, task_id: first.task_id, created_at: first.created_at, before_hash: null, added: 0, removed: 0, changed: 0 })
      .execute();
  }
}

export interface HoneypotRecord {
  imageId: number;
  projectId: number;
  jobId: number | null;
  sourceImageId: number;
  truthJson: string;
}

export async function findHoneypot(db: Kysely<Database>, imageId: number): Promise<HoneypotRecord | undefined> {
  const r = await db.selectFrom('honeypots').select(['image_id', 'project_id', 'job_id', 'source_image_id', 'truth_json']).where('image_id', '=', imageId).executeTakeFirst();
  return r && { imageId: r.image_id, projectId: r.project_id, jobId: r.job_id, sourceImageId: r.source_image_id, truthJson: r.truth_json };
}

export async function saveHoneypotResult(db: Kysely<Database>, imageId: number, result: { assigneeId: number; resultJson: string; at: string }): Promise<void> {
  await db.updateTable('honeypots').set({ assignee_id: result.assigneeId, result_json: result.resultJson, evaluated_at: result.at }).where('image_id', '=', imageId).execute();
}

export interface EvaluatedHoneypot {
  imageId: number;
  jobId: number | null;
  sourceImageId: number;
  name: string;
  assigneeId: number;
  login: string;
  resultJson: string;
  evaluatedAt: string;
}

/** The project's evaluated honeypots, by assignee and image id. */
export async function evaluatedHoneypots(db: Kysely<Database>, projectId: number): Promise<EvaluatedHoneypot[]> {
  const rows = await db
    .selectFrom('honeypots')
    .innerJoin('images', 'images.id', 'honeypots.image_id')
    .innerJoin('users', 'users.id', 'honeypots.assignee_id')
    .select(['honeypots.image_id', 'honeypots.job_id', 'honeypots.source_image_id', 'images.name', 'honeypots.assignee_id', 'users.login', 'honeypots.result_json', 'honeypots.evaluated_at'])
    .where('honeypots.project_id', '=', projectId)
    .where('honeypots.result_json', 'is not', null)
    .orderBy('honeypots.assignee_id')
    .orderBy('honeypots.image_id')
    .execute();
  return rows.map((r) => ({
    imageId: r.image_id,
    jobId: r.job_id,
    sourceImageId: r.source_image_id,
    name: r.name,
    assigneeId: r.assignee_id!,
    login: r.login,
    resultJson: r.result_json!,
    evaluatedAt: r.evaluated_at!,
  }));
}

/** The ids of the job's honeypots. */
export async function honeypotIdsOfJob(db: Kysely<Database>, jobId: number): Promise<Set<number>> {
  return new Set((await db.selectFrom('honeypots').select('image_id').where('job_id', '=', jobId).execute()).map((r) => r.image_id));
}
