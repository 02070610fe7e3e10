// Quality of annotators' work (docs/jobs.md "Quality"): a manager marks images as ground truth; jobs
// may mix hidden copies of them (honeypots) among their images; each honeypot the assignee submits is
// compared with its truth (src/evaluation/honeypot-match.ts), and the project's report adds the
// comparisons up per annotator and class.
import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import type { Context } from '../context.ts';
import type { Database } from '../db/types.ts';
import { type ClassComparison, type QualityObject, compareWithTruth } from '../evaluation/honeypot-match.ts';
import { notFound, validation } from '../errors.ts';
import type { AnnotationObject } from '../formats/canonical.ts';
import { projectClasses } from '../repositories/predictions.repository.ts';
import { findProject } from '../repositories/projects.repository.ts';
import * as quality from '../repositories/quality.repository.ts';
import { type JobCaller, forbidden, mayManageJobs } from './job-access.ts';
import { requireManagersOnlyGroundTruth } from './managers-only.service.ts';

/** The most honeypots one job holds. */
export const MAX_HONEYPOTS_PER_JOB = 100;
/** The most images one ground-truth request names. */
export const MAX_GROUND_TRUTH_PER_REQUEST = 1000;

async function requireProjectManager(db: Kysely<Database>, caller: JobCaller, projectId: number): Promise<void> {
  if (!(await findProject(db, caller.teamId, projectId))) throw notFound('project', { projectId });
  if (!(await mayManageJobs(db, caller, projectId))) throw forbidden('ground truth and the quality report are for the project’s managers', { projectId });
}

/**
 * Marks images of the project as ground truth, their objects frozen as they are now; an image not of
 * the project (or a honeypot) is a 404, an image outside a managers-only dataset a 400.
 */
export async function markGroundTruth(ctx: Context, caller: JobCaller, projectId: number, imageIds: readonly number[]): Promise<void> {
  const db = ctx.db.kysely;
  await requireProjectManager(db, caller, projectId);
  const ids = [...new Set(imageIds)];
  const found = await quality.visibleImagesOf(db, projectId, ids);
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) throw notFound('image of the project', { projectId, imageIds: missing });
  await requireManagersOnlyGroundTruth(db, projectId, ids);
  await db.transaction().execute((trx) => quality.putGroundTruth(trx, projectId, ids, caller.userId));
}

export async function unmarkGroundTruth(ctx: Context, caller: JobCaller, projectId: number, imageIds: readonly number[]): Promise<void> {
  const db = ctx.db.kysely;
  await requireProjectManager(db, caller, projectId);
  await quality.deleteGroundTruth(db, projectId, [...new Set(imageIds)]);
}

export async function pageOfGroundTruth(ctx: Context, caller: JobCaller, projectId: number, query: { afterId?: number; limit: number }) {
  const db = ctx.db.kysely;
  await requireProjectManager(db, caller, projectId);
  const rows = await quality.listGroundTruth(db, projectId, { afterId: query.afterId, limit: query.limit + 1 });
  const items = rows.slice(0, query.limit);
  return { items, nextAfterId: rows.length > query.limit ? items.at(-1)!.imageId : null };
}

/** Checks a request for `k` honeypots per job before any job is made: the project must have k ground-truth images. */
export async function checkHoneypots(db: Kysely<Database>, projectId: number, k: number): Promise<void> {
  if (k === 0) return;
  const have = (await quality.groundTruthIds(db, projectId)).length;
  if (have < k) throw validation(`the project has ${have} ground-truth image(s): fewer than the ${k} honeypots asked for each job`, { field: 'honeypots', groundTruth: have });
}

/**
 * The job's image ids with `k` honeypots mixed in: copies of k of the project's ground-truth images,
 * drawn at random, each put at a random place among the job's images. Call in the job's transaction.
 */
export async function mixHoneypots(trx: Kysely<Database>, job: { id: number; projectId: number }, imageIds: readonly number[], k: number): Promise<number[]> {
  if (k === 0) return [...imageIds];
  const pool = await quality.groundTruthIds(trx, job.projectId);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  const copies = await quality.insertHoneypots(trx, job, pool.slice(0, k));
  const mixed = [...imageIds];
  for (const id of copies) mixed.splice(randomInt(mixed.length + 1), 0, id);
  // A copy made now would show the job's making as the time it was added, and no upload in its
  // revisions: it takes the past of the ordinary image next to it (before it, or after it when it
  // comes first), the one whose dataset it is shown in (shownDatasetId).
  const isCopy = new Set(copies);
  const neighbours = mixed.flatMap((id, i) => {
    if (!isCopy.has(id)) return [];
    const before = mixed.slice(0, i).findLast((other) => !isCopy.has(other));
    return [{ copyId: id, neighbourId: before ?? mixed.slice(i + 1).find((other) => !isCopy.has(other))! }];
  });
  await quality.takePastOf(trx, neighbours);
  return mixed;
}

/** The objects as compared: those of the project's classes, with their class's shape. */
function comparedObjects(objectsJson: string, shapes: Map<string, string>): QualityObject[] {
  const out: QualityObject[] = [];
  for (const o of JSON.parse(objectsJson) as AnnotationObject[]) {
    const shape = shapes.get(o.classTitle);
    if (shape !== undefined) out.push({ classTitle: o.classTitle, shape, geometry: o });
  }
  return out;
}

/**
 * If the image is a honeypot, compares its objects with its truth and stores the result for the
 * assignee (a resubmission replaces it). Call in the transaction of the submission.
 */
export async function evaluateIfHoneypot(trx: Kysely<Database>, imageId: number, assigneeId: number): Promise<void> {
  const honeypot = await quality.findHoneypot(trx, imageId);
  if (!honeypot) return;
  const image = await trx.selectFrom('images').select(['width', 'height', 'objects_json']).where('id', '=', imageId).executeTakeFirstOrThrow();
  const shapes = new Map((await projectClasses(trx, honeypot.projectId)).map((c) => [c.title, c.shape]));
  const result = await compareWithTruth(image, comparedObjects(honeypot.truthJson, shapes), comparedObjects(image.objects_json, shapes));
  await quality.saveHoneypotResult(trx, imageId, { assigneeId, resultJson: JSON.stringify(result), at: isoNow() });
}

/** Precision, recall and mean IoU of a set of comparisons. */
export interface Figures {
  truths: number;
  answers: number;
  matched: number;
  /** matched / answers; null with no answer. */
  precision: number | null;
  /** matched / truths; null with no truth. */
  recall: number | null;
  /** The mean IoU of the matched pairs; null with none. */
  meanIou: number | null;
}

class Tally {
  truths = 0;
  answers = 0;
  matched = 0;
  iouSum = 0;
  add(c: ClassComparison): void {
    this.truths += c.truths;
    this.answers += c.answers;
    this.matched += c.matches.length;
    for (const m of c.matches) this.iouSum += m.iou;
  }
  figures(): Figures {
    return {
      truths: this.truths,
      answers: this.answers,
      matched: this.matched,
      precision: this.answers === 0 ? null : this.matched / this.answers,
      recall: this.truths === 0 ? null : this.matched / this.truths,
      meanIou: this.matched === 0 ? null : this.iouSum / this.matched,
    };
  }
}

/** One honeypot in the report: its figures and its comparison class by class. */
export interface HoneypotItem extends Figures {
  imageId: number;
  jobId: number | null;
  sourceImageId: number;
  name: string;
  evaluatedAt: string;
  classes: ClassComparison[];
}

/** The project's quality report: per annotator, their figures overall and per class, and each honeypot they submitted. */
export async function qualityReport(ctx: Context, caller: JobCaller, projectId: number) {
  const db = ctx.db.kysely;
  await requireProjectManager(db, caller, projectId);
  const rows = await quality.evaluatedHoneypots(db, projectId);
  const annotators = new Map<number, { login: string; all: Tally; classes: Map<string, { honeypots: number; tally: Tally }>; honeypots: HoneypotItem[] }>();
  for (const row of rows) {
    let a = annotators.get(row.assigneeId);
    if (!a) annotators.set(row.assigneeId, (a = { login: row.login, all: new Tally(), classes: new Map(), honeypots: [] }));
    const comparisons = JSON.parse(row.resultJson) as ClassComparison[];
    const own = new Tally();
    for (const c of comparisons) {
      a.all.add(c);
      own.add(c);
      let k = a.classes.get(c.classTitle);
      if (!k) a.classes.set(c.classTitle, (k = { honeypots: 0, tally: new Tally() }));
      k.honeypots += 1;
      k.tally.add(c);
    }
    a.honeypots.push({ imageId: row.imageId, jobId: row.jobId, sourceImageId: row.sourceImageId, name: row.name, evaluatedAt: row.evaluatedAt, ...own.figures(), classes: comparisons });
  }
  return {
    projectId,
    matchIou: 0.5,
    annotators: [...annotators].map(([userId, a]) => ({
      userId,
      login: a.login,
      honeypots: a.honeypots.length,
      ...a.all.figures(),
      classes: [...a.classes].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([classTitle, k]) => ({ classTitle, honeypots: k.honeypots, ...k.tally.figures() })),
      items: a.honeypots,
    })),
  };
}
