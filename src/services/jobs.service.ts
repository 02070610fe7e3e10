// Jobs and review (docs/jobs.md): a job gives a set of images of one project to an assignee to annotate
// and to a reviewer to accept or reject. Every transition is a function here that writes its webhook
// event in the transaction of the change; the audit trail records the request that made it.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import type { Context } from '../context.ts';
import type { Database } from '../db/types.ts';
import { conflict, notFound, validation } from '../errors.ts';
import { findDataset } from '../repositories/datasets.repository.ts';
import * as jobs from '../repositories/jobs.repository.ts';
import type { IssueRecord, JobFigures, JobImageRecord, JobImageState, JobRecord, JobStage } from '../repositories/jobs.repository.ts';
import { findProject } from '../repositories/projects.repository.ts';
import { findUser } from '../repositories/users.repository.ts';
import { type ImageFilterQuery, filterOf } from './image-list.service.ts';
import { type JobCaller, callerOfUser, forbidden, grantJobRoles, mayManageJobs } from './job-access.ts';
import { checkHoneypots, evaluateIfHoneypot, mixHoneypots } from './quality.service.ts';
import { refuseManagersOnlyImages, refuseManagersOnlySplit } from './managers-only.service.ts';
import { honeypotIdsOfJob } from '../repositories/quality.repository.ts';
import type { Page } from './paging.ts';
import { type WebhookEvent, recordEvent } from './webhook-events.ts';

/** The most images one job holds. */
export const MAX_JOB_IMAGES = 10_000;
/** The most jobs one split of a dataset makes. */
export const MAX_SPLIT_JOBS = 100;
/** The most issues one rejection opens. */
export const MAX_ISSUES_PER_REJECTION = 50;
/** The longest comment, in characters. */
export const MAX_COMMENT_LENGTH = 4000;
/** The most comments an issue's thread holds. */
export const MAX_COMMENTS_PER_ISSUE = 1000;
/** The most issues answered for one image of a job. */
export const MAX_ISSUES_LISTED = 1000;
/** A gap between two opens or saves of an image longer than this counts as no time spent (the annotator was away). */
export const IDLE_CAP_MS = 5 * 60 * 1000;

export interface UserRef {
  id: number;
  login: string;
}

export interface JobView {
  id: number;
  projectId: number;
  title: string;
  stage: JobStage;
  assignee: UserRef;
  reviewer: UserRef | null;
  createdAt: string;
  updatedAt: string;
  progress: JobProgress;
}

export interface JobProgress {
  images: number;
  new: number;
  inProgress: number;
  submitted: number;
  accepted: number;
  rejected: number;
  acceptedFirstReview: number;
  timeSpentMs: number;
  objectsMade: number;
}

const progressOf = (f: JobFigures): JobProgress => ({
  images: f.images,
  new: f.states.new,
  inProgress: f.states.in_progress,
  submitted: f.states.submitted,
  accepted: f.states.accepted,
  rejected: f.states.rejected,
  acceptedFirstReview: f.acceptedFirstReview,
  timeSpentMs: f.timeSpentMs,
  objectsMade: f.objectsMade,
});

async function viewsOf(db: Kysely<Database>, records: JobRecord[]): Promise<JobView[]> {
  const figures = await jobs.jobFigures(db, records.map((r) => r.id));
  const logins = await jobs.loginsOf(db, records.flatMap((r) => (r.reviewerId === null ? [r.assigneeId] : [r.assigneeId, r.reviewerId])));
  const ref = (id: number): UserRef => ({ id, login: logins.get(id) ?? '' });
  return records.map((r) => ({
    id: r.id,
    projectId: r.projectId,
    title: r.title,
    stage: r.stage,
    assignee: ref(r.assigneeId),
    reviewer: r.reviewerId === null ? null : ref(r.reviewerId),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    progress: progressOf(figures.get(r.id)!),
  }));
}

async function viewOf(db: Kysely<Database>, record: JobRecord): Promise<JobView> {
  return (await viewsOf(db, [record]))[0]!;
}

async function requireJob(db: Kysely<Database>, teamId: number, jobId: number, lock = false): Promise<JobRecord> {
  const job = await jobs.findJob(db, teamId, jobId, { lock });
  if (!job) throw notFound('job', { jobId });
  return job;
}

async function requireJobImage(db: Kysely<Database>, job: JobRecord, imageId: number): Promise<JobImageRecord> {
  const image = await jobs.findJobImage(db, job.id, imageId);
  if (!image) throw notFound('image of the job', { jobId: job.id, imageId });
  return image;
}

/** A user of the team who is not disabled, for an assignee or a reviewer. */
async function requireWorker(db: Kysely<Database>, teamId: number, userId: number, field: string): Promise<void> {
  const user = await findUser(db, teamId, userId);
  if (!user || user.disabledAt !== null) throw notFound('user', { [field]: userId });
}

async function requireManager(db: Kysely<Database>, caller: JobCaller, projectId: number): Promise<void> {
  if (!(await mayManageJobs(db, caller, projectId))) throw forbidden('managing jobs needs a manager of the project', { projectId });
}

/** The caller is the assignee, or a manager standing in. */
async function requireAssignee(db: Kysely<Database>, caller: JobCaller, job: JobRecord): Promise<void> {
  if (caller.userId !== job.assigneeId && !(await mayManageJobs(db, caller, job.projectId))) {
    throw forbidden('only the job’s assignee (or a manager) may do this', { jobId: job.id, assigneeId: job.assigneeId });
  }
}

async function requireReviewer(db: Kysely<Database>, caller: JobCaller, job: JobRecord): Promise<void> {
  if (caller.userId !== job.reviewerId && !(await mayManageJobs(db, caller, job.projectId))) {
    throw forbidden('only the job’s reviewer (or a manager) may do this', { jobId: job.id, reviewerId: job.reviewerId });
  }
}

async function event(trx: Kysely<Database>, job: JobRecord, type: WebhookEvent, data: Record<string, unknown>): Promise<void> {
  await recordEvent(trx, job.teamId, type, { jobId: job.id, projectId: job.projectId, ...data });
}

async function setStage(trx: Kysely<Database>, job: JobRecord, to: JobStage, at: string): Promise<void> {
  if (job.stage === to) return;
  await jobs.updateJob(trx, job.id, { stage: to, at });
  await event(trx, job, 'job.stage_changed', { from: job.stage, to });
  job.stage = to;
}

async function setImageState(trx: Kysely<Database>, job: JobRecord, image: JobImageRecord, to: JobImageState, change: Parameters<typeof jobs.updateJobImage>[3] = {}): Promise<void> {
  await jobs.updateJobImage(trx, job.id, image.imageId, { ...change, state: to });
  if (image.state !== to) await event(trx, job, 'job.image_changed', { imageId: image.imageId, from: image.state, to });
}

export interface NewJob {
  title: string;
  assigneeId: number;
  reviewerId?: number | null;
  /** How many honeypots (hidden copies of ground-truth images) to mix into the job. */
  honeypots?: number;
}

async function makeJob(ctx: Context, caller: JobCaller, projectId: number, job: NewJob, imageIds: number[], at: string): Promise<JobRecord> {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const id = await jobs.insertJob(trx, { teamId: caller.teamId, projectId, title: job.title, assigneeId: job.assigneeId, reviewerId: job.reviewerId ?? null, createdBy: caller.userId, at });
    await jobs.insertJobImages(trx, id, await mixHoneypots(trx, { id, projectId }, imageIds, job.honeypots ?? 0));
    await grantJobRoles(trx, caller.teamId, projectId, job);
    const record = (await jobs.findJob(trx, caller.teamId, id))!;
    await event(trx, record, 'job.created', { assigneeId: job.assigneeId, reviewerId: job.reviewerId ?? null, images: imageIds.length });
    return record;
  });
}

async function checkPeople(db: Kysely<Database>, teamId: number, assigneeIds: readonly number[], reviewerId: number | null | undefined): Promise<void> {
  for (const id of new Set(assigneeIds)) await requireWorker(db, teamId, id, 'assigneeId');
  if (reviewerId !== undefined && reviewerId !== null) await requireWorker(db, teamId, reviewerId, 'reviewerId');
}

/**
 * A job of the project's images that the filter finds (the filter of GET /v2/images) and that are in
 * no job yet, in id order.
 */
export async function createJobFromFilter(ctx: Context, caller: JobCaller, projectId: number, body: NewJob & { filter: Omit<ImageFilterQuery, 'projectId'> }): Promise<JobView> {
  const db = ctx.db.kysely;
  if (!(await findProject(db, caller.teamId, projectId))) throw notFound('project', { projectId });
  await requireManager(db, caller, projectId);
  await checkPeople(db, caller.teamId, [body.assigneeId], body.reviewerId);
  await checkHoneypots(db, projectId, body.honeypots ?? 0);
  const { filter } = body;
  if (filter.datasetId !== undefined) {
    const dataset = await findDataset(db, caller.teamId, filter.datasetId);
    if (!dataset || dataset.project_id !== projectId) throw notFound('dataset', { datasetId: filter.datasetId });
  }
  // Read as the manager sees the gallery, so that a filter taking images of a managers-only dataset is
  // refused rather than quietly narrowed.
  const imageFilter = await filterOf(db, caller.teamId, filter.datasetId !== undefined ? filter : { ...filter, projectId }, 'manager');
  const imageIds = await jobs.freeImageIds(db, imageFilter, MAX_JOB_IMAGES + 1);
  if (imageIds.length === 0) throw validation('the filter finds no image that is in no job yet', { field: 'filter' });
  if (imageIds.length > MAX_JOB_IMAGES) throw validation(`the filter finds more than ${MAX_JOB_IMAGES} images; narrow it`, { field: 'filter', limit: MAX_JOB_IMAGES });
  await refuseManagersOnlyImages(db, caller.teamId, imageIds, 'filter');
  return viewOf(db, await makeJob(ctx, caller, projectId, body, imageIds, isoNow()));
}

/**
 * Splits a dataset into jobs: one per assignee (in the order given), each of the next `imagesPerJob`
 * images of the dataset that are in no job yet, in id order. A job that would get no image is not made.
 */
export async function splitDataset(
  ctx: Context,
  caller: JobCaller,
  datasetId: number,
  body: { title?: string; imagesPerJob: number; assigneeIds: number[]; reviewerId?: number | null; honeypots?: number },
): Promise<JobView[]> {
  const db = ctx.db.kysely;
  const dataset = await findDataset(db, caller.teamId, datasetId);
  if (!dataset) throw notFound('dataset', { datasetId });
  await requireManager(db, caller, dataset.project_id);
  refuseManagersOnlySplit(dataset);
  await checkPeople(db, caller.teamId, body.assigneeIds, body.reviewerId);
  await checkHoneypots(db, dataset.project_id, body.honeypots ?? 0);
  const wanted = body.imagesPerJob * body.assigneeIds.length;
  const imageIds = await jobs.freeImageIds(db, { datasetId }, wanted);
  if (imageIds.length === 0) throw validation('the dataset has no image that is in no job yet', { field: 'datasetId' });
  const title = body.title ?? dataset.title;
  const at = isoNow();
  const made: JobRecord[] = [];
  const n = body.assigneeIds.length;
  for (const [i, assigneeId] of body.assigneeIds.entries()) {
    const part = imageIds.slice(i * body.imagesPerJob, (i + 1) * body.imagesPerJob);
    if (part.length === 0) break;
    made.push(await makeJob(ctx, caller, dataset.project_id, { title: `${title} ${i + 1}/${n}`, assigneeId, reviewerId: body.reviewerId ?? null, honeypots: body.honeypots ?? 0 }, part, at));
  }
  return viewsOf(db, made);
}

export async function describeJob(ctx: Context, teamId: number, jobId: number): Promise<JobView> {
  return viewOf(ctx.db.kysely, await requireJob(ctx.db.kysely, teamId, jobId));
}

/** A page of the team's jobs: of a project, or those the user is the assignee or reviewer of. */
export async function pageOfJobs(ctx: Context, query: { teamId: number; projectId?: number; userId?: number; afterId?: number; limit: number }): Promise<Page<JobView>> {
  const db = ctx.db.kysely;
  if (query.projectId !== undefined && !(await findProject(db, query.teamId, query.projectId))) throw notFound('project', { projectId: query.projectId });
  const rows = await jobs.listJobs(db, { ...query, limit: query.limit + 1 });
  const kept = rows.slice(0, query.limit);
  return { items: await viewsOf(db, kept), nextAfterId: rows.length > query.limit ? kept.at(-1)!.id : null };
}

export async function changeJob(ctx: Context, caller: JobCaller, jobId: number, change: { title?: string; assigneeId?: number; reviewerId?: number | null }): Promise<JobView> {
  const db = ctx.db.kysely;
  const job = await requireJob(db, caller.teamId, jobId);
  await requireManager(db, caller, job.projectId);
  await checkPeople(db, caller.teamId, change.assigneeId === undefined ? [] : [change.assigneeId], change.reviewerId);
  return db.transaction().execute(async (trx) => {
    await jobs.updateJob(trx, jobId, { ...change, at: isoNow() });
    await grantJobRoles(trx, caller.teamId, job.projectId, change);
    return viewOf(trx, (await jobs.findJob(trx, caller.teamId, jobId))!);
  });
}

export async function removeJob(ctx: Context, caller: JobCaller, jobId: number): Promise<void> {
  const db = ctx.db.kysely;
  const job = await requireJob(db, caller.teamId, jobId);
  await requireManager(db, caller, job.projectId);
  await db.transaction().execute(async (trx) => {
    await jobs.deleteJob(trx, jobId);
    await event(trx, job, 'job.deleted', {});
  });
}

export async function pageOfJobImages(ctx: Context, teamId: number, jobId: number, query: { afterPosition?: number; limit: number; state?: JobImageState }): Promise<{ items: JobImageRecord[]; nextAfter: number | null }> {
  const db = ctx.db.kysely;
  await requireJob(db, teamId, jobId);
  const rows = await jobs.listJobImages(db, jobId, { afterPosition: query.afterPosition, limit: query.limit + 1, ...(query.state ? { states: [query.state] } : {}) });
  const items = rows.slice(0, query.limit);
  return { items, nextAfter: rows.length > query.limit ? items.at(-1)!.position : null };
}

/** The states an annotator's queue walks, and a reviewer's. */
const ANNOTATE_QUEUE: readonly JobImageState[] = ['new', 'in_progress', 'rejected'];
const REVIEW_QUEUE: readonly JobImageState[] = ['submitted'];

export type Queue = 'annotate' | 'review';

/**
 * The next image of a queue, after `afterImageId` when given (so a reviewer can pass one by), else
 * the first; the queue is the caller's: review for the reviewer, annotate for anybody else, unless named.
 */
export async function nextImage(ctx: Context, caller: JobCaller, jobId: number, queue: Queue | undefined, afterImageId: number | undefined): Promise<{ queue: Queue; image: JobImageRecord | null; remaining: number }> {
  const db = ctx.db.kysely;
  const job = await requireJob(db, caller.teamId, jobId);
  const chosen = queue ?? (caller.userId === job.reviewerId && caller.userId !== job.assigneeId ? 'review' : 'annotate');
  const states = chosen === 'review' ? REVIEW_QUEUE : ANNOTATE_QUEUE;
  let afterPosition: number | undefined;
  if (afterImageId !== undefined) afterPosition = (await requireJobImage(db, job, afterImageId)).position;
  const counts = await jobs.countJobImagesByState(db, jobId);
  const remaining = states.reduce((n, s) => n + counts[s], 0);
  const [image] = await jobs.listJobImages(db, jobId, { afterPosition, limit: 1, states });
  const first = image ?? (afterPosition !== undefined ? (await jobs.listJobImages(db, jobId, { limit: 1, states }))[0] : undefined);
  return { queue: chosen, image: first ?? null, remaining };
}

/** Time spent on an image: the gap since the assignee's last open or save, unless it passes the idle cap. */
function spentAfter(image: JobImageRecord, at: string): number {
  if (image.lastActiveAt === null) return image.timeSpentMs;
  const gap = Date.parse(at) - Date.parse(image.lastActiveAt);
  return image.timeSpentMs + (gap > 0 && gap <= IDLE_CAP_MS ? gap : 0);
}

/** The assignee worked on the image (opened or saved it): time spent, and new → in_progress. */
async function touch(trx: Kysely<Database>, job: JobRecord, image: JobImageRecord, at: string): Promise<void> {
  const change = { timeSpentMs: spentAfter(image, at), lastActiveAt: at };
  if (image.state === 'new') await setImageState(trx, job, image, 'in_progress', change);
  else await jobs.updateJobImage(trx, job.id, image.imageId, change);
}

/** The assignee (or a manager) opens an image of the job: the assignee's open starts its clock. */
export async function openImage(ctx: Context, caller: JobCaller, jobId: number, imageId: number): Promise<JobImageRecord> {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const job = await requireJob(trx, caller.teamId, jobId, true);
    const image = await requireJobImage(trx, job, imageId);
    await requireAssignee(trx, caller, job);
    if (job.stage === 'annotate' && caller.userId === job.assigneeId) await touch(trx, job, image, isoNow());
    return (await jobs.findJobImage(trx, jobId, imageId))!;
  });
}

/** After a review: a review stage with no submitted image left goes back to annotate if any is rejected, or is done when all are accepted. */
async function afterReview(trx: Kysely<Database>, job: JobRecord, at: string): Promise<void> {
  const counts = await jobs.countJobImagesByState(trx, job.id);
  const images = Object.values(counts).reduce((a, b) => a + b, 0);
  if (counts.accepted === images) await setStage(trx, job, 'done', at);
  else if (job.stage === 'review' && counts.submitted === 0) await setStage(trx, job, 'annotate', at);
}

function checkOpen(job: JobRecord): void {
  if (job.stage === 'done') throw conflict('the job is done', { jobId: job.id, stage: job.stage });
}

async function checkIssuesResolved(trx: Kysely<Database>, job: JobRecord, imageId: number): Promise<void> {
  const open = await jobs.countOpenIssues(trx, job.id, imageId);
  if (open > 0) throw conflict(`the image has ${open} open issue(s): resolve them before submitting it again`, { jobId: job.id, imageId, openIssues: open });
}

/** The assignee submits one image for review. */
export async function submitImage(ctx: Context, caller: JobCaller, jobId: number, imageId: number): Promise<JobImageRecord> {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const job = await requireJob(trx, caller.teamId, jobId, true);
    const image = await requireJobImage(trx, job, imageId);
    await requireAssignee(trx, caller, job);
    checkOpen(job);
    if (!ANNOTATE_QUEUE.includes(image.state)) throw conflict(`the image is ${image.state}, not to be submitted`, { jobId, imageId, state: image.state });
    if (image.state === 'rejected') await checkIssuesResolved(trx, job, imageId);
    await setImageState(trx, job, image, 'submitted', { submittedAt: isoNow() });
    await evaluateIfHoneypot(trx, imageId, job.assigneeId);
    return (await jobs.findJobImage(trx, jobId, imageId))!;
  });
}

/** The assignee submits the whole job: every image not submitted or accepted yet is submitted, and the job goes to review. */
export async function submitJob(ctx: Context, caller: JobCaller, jobId: number): Promise<JobView> {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const job = await requireJob(trx, caller.teamId, jobId, true);
    await requireAssignee(trx, caller, job);
    if (job.stage !== 'annotate') throw conflict(`the job is in the ${job.stage} stage, not annotate`, { jobId, stage: job.stage });
    const at = isoNow();
    for (const image of await jobs.listJobImages(trx, jobId, { limit: MAX_JOB_IMAGES, states: ['rejected'] })) await checkIssuesResolved(trx, job, image.imageId);
    const honeypots = await honeypotIdsOfJob(trx, jobId);
    for (const state of ANNOTATE_QUEUE) {
      const moved = await jobs.moveJobImages(trx, jobId, [state], 'submitted', at);
      for (const imageId of moved) {
        await event(trx, job, 'job.image_changed', { imageId, from: state, to: 'submitted' });
        if (honeypots.has(imageId)) await evaluateIfHoneypot(trx, imageId, job.assigneeId);
      }
    }
    const counts = await jobs.countJobImagesByState(trx, jobId);
    await setStage(trx, job, counts.submitted > 0 ? 'review' : 'done', at);
    return viewOf(trx, job);
  });
}

async function reviewable(trx: Kysely<Database>, caller: JobCaller, jobId: number, imageId: number): Promise<{ job: JobRecord; image: JobImageRecord }> {
  const job = await requireJob(trx, caller.teamId, jobId, true);
  const image = await requireJobImage(trx, job, imageId);
  await requireReviewer(trx, caller, job);
  checkOpen(job);
  if (image.state !== 'submitted') throw conflict(`the image is ${image.state}: only a submitted image is reviewed`, { jobId, imageId, state: image.state });
  return { job, image };
}

/** The reviewer accepts a submitted image. */
export async function acceptImage(ctx: Context, caller: JobCaller, jobId: number, imageId: number): Promise<JobImageRecord> {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const { job, image } = await reviewable(trx, caller, jobId, imageId);
    const at = isoNow();
    await setImageState(trx, job, image, 'accepted', { reviewedAt: at });
    await afterReview(trx, job, at);
    return (await jobs.findJobImage(trx, jobId, imageId))!;
  });
}

export interface NewIssue {
  x?: number;
  y?: number;
  objectId?: number;
  comment: string;
}

/** The reviewer rejects a submitted image with its issues, each pinned to a point or an object and opening its thread with a comment. */
export async function rejectImage(ctx: Context, caller: JobCaller, jobId: number, imageId: number, issues: readonly NewIssue[]): Promise<JobImageRecord> {
  issues.forEach((issue, i) => {
    const point = issue.x !== undefined || issue.y !== undefined;
    if (point && (issue.x === undefined || issue.y === undefined)) throw validation('a point needs both x and y', { pointer: `/issues/${i}` });
    if (point === (issue.objectId !== undefined)) throw validation('pin an issue to a point (x, y) or to an object (objectId), one of the two', { pointer: `/issues/${i}` });
  });
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const { job, image } = await reviewable(trx, caller, jobId, imageId);
    const at = isoNow();
    await setImageState(trx, job, image, 'rejected', { reviewedAt: at, rejections: image.rejections + 1 });
    for (const issue of issues) {
      const issueId = await jobs.insertIssue(trx, { jobId, imageId, x: issue.x ?? null, y: issue.y ?? null, objectId: issue.objectId ?? null, createdBy: caller.userId, at });
      await jobs.insertComment(trx, { issueId, userId: caller.userId, body: issue.comment, at });
      await event(trx, job, 'job.issue_opened', { imageId, issueId });
    }
    await afterReview(trx, job, at);
    return (await jobs.findJobImage(trx, jobId, imageId))!;
  });
}

export async function imageIssues(ctx: Context, teamId: number, jobId: number, imageId: number): Promise<Awaited<ReturnType<typeof jobs.listIssues>>> {
  const db = ctx.db.kysely;
  const job = await requireJob(db, teamId, jobId);
  await requireJobImage(db, job, imageId);
  return jobs.listIssues(db, jobId, imageId, MAX_ISSUES_LISTED);
}

async function requireIssue(trx: Kysely<Database>, teamId: number, issueId: number): Promise<{ issue: IssueRecord; job: JobRecord }> {
  const issue = await jobs.findIssue(trx, teamId, issueId);
  if (!issue) throw notFound('issue', { issueId });
  return { issue, job: await requireJob(trx, teamId, issue.jobId, true) };
}

/** A comment on an issue's thread, by its job's assignee, its reviewer or a manager. */
export async function addComment(ctx: Context, caller: JobCaller, issueId: number, body: string): Promise<{ id: number; issueId: number; userId: number; body: string; createdAt: string }> {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const { job } = await requireIssue(trx, caller.teamId, issueId);
    if (caller.userId !== job.assigneeId && caller.userId !== job.reviewerId && !(await mayManageJobs(trx, caller, job.projectId))) {
      throw forbidden('only the job’s assignee, its reviewer or a manager may comment', { issueId });
    }
    if ((await jobs.countComments(trx, issueId)) >= MAX_COMMENTS_PER_ISSUE) throw conflict(`an issue holds at most ${MAX_COMMENTS_PER_ISSUE} comments`, { issueId });
    const at = isoNow();
    const id = await jobs.insertComment(trx, { issueId, userId: caller.userId, body, at });
    await event(trx, job, 'job.comment_added', { issueId, commentId: id });
    return { id, issueId, userId: caller.userId, body, createdAt: at };
  });
}

/** The assignee (or a manager) resolves an open issue, with a last comment when given. */
export async function resolveIssue(ctx: Context, caller: JobCaller, issueId: number, comment: string | undefined): Promise<IssueRecord> {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const { issue, job } = await requireIssue(trx, caller.teamId, issueId);
    await requireAssignee(trx, caller, job);
    if (issue.status !== 'open') throw conflict('the issue is resolved already', { issueId });
    const at = isoNow();
    if (comment !== undefined) await jobs.insertComment(trx, { issueId, userId: caller.userId, body: comment, at });
    await jobs.resolveIssue(trx, issueId, caller.userId, at);
    await event(trx, job, 'job.issue_resolved', { imageId: issue.imageId, issueId });
    return (await jobs.findIssue(trx, caller.teamId, issueId))!;
  });
}

/** The figures of a project's jobs per assignee. */
export async function projectFigures(ctx: Context, teamId: number, projectId: number): Promise<Awaited<ReturnType<typeof jobs.figuresPerAssignee>>> {
  if (!(await findProject(ctx.db.kysely, teamId, projectId))) throw notFound('project', { projectId });
  return jobs.figuresPerAssignee(ctx.db.kysely, projectId);
}

/**
 * The rule of annotation writes (v2 PUT, PATCH and restore, in their transaction): an image of a job
 * in the annotate stage is changed only by the job's assignee, in the review stage only by its
 * reviewer, and by a manager at any time. A write by the assignee counts as work on the image (time
 * spent). Writes of tasks (imports, DTL) name no user and are not held here.
 */
export async function checkAnnotationTurn(trx: Kysely<Database>, author: { teamId: number; userId: number | null }, imageId: number): Promise<void> {
  if (author.userId === null) return;
  const job = await jobs.openJobOfImage(trx, imageId);
  if (!job) return;
  const turn = job.stage === 'annotate' ? job.assigneeId : job.reviewerId;
  if (author.userId !== turn && !(await mayManageJobs(trx, await callerOfUser(trx, author.teamId, author.userId), job.projectId))) {
    throw forbidden(`the image is in job ${job.id}, in its ${job.stage} stage: only its ${job.stage === 'annotate' ? 'assignee' : 'reviewer'} or a manager may change its annotation`, {
      jobId: job.id,
      stage: job.stage,
    });
  }
  if (job.stage === 'annotate' && author.userId === job.assigneeId) await touch(trx, job, job.image, isoNow());
}

/** The rule of an import into an existing project (v1's only way to write objects): while the project has an open job, only a manager may. */
export async function checkImportIntoProject(db: Kysely<Database>, caller: JobCaller, projectId: number): Promise<void> {
  if (!(await jobs.hasOpenJob(db, caller.teamId, projectId))) return;
  if (!(await mayManageJobs(db, caller, projectId))) {
    throw forbidden('the project has jobs in progress: only a manager may import into it', { projectId });
  }
}
