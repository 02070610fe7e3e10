// Jobs, their images and the review's issues and comments (0034_jobs.ts): every query of them.
import type { Kysely, Selectable } from 'kysely';
import { planNameSearch } from '../db/name-search.ts';
import { isPostgres } from '../db/dialect.ts';
import type { Database, JobsTable, ReviewIssuesTable } from '../db/types.ts';
import { type ImageFilter, filteredImages } from './image-metadata.repository.ts';

export type JobStage = 'annotate' | 'review' | 'done';
export type JobImageState = 'new' | 'in_progress' | 'submitted' | 'accepted' | 'rejected';
export const JOB_IMAGE_STATES: readonly JobImageState[] = ['new', 'in_progress', 'submitted', 'accepted', 'rejected'];

export interface JobRecord {
  id: number;
  teamId: number;
  projectId: number;
  title: string;
  stage: JobStage;
  assigneeId: number;
  reviewerId: number | null;
  createdBy: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface JobImageRecord {
  imageId: number;
  position: number;
  state: JobImageState;
  rejections: number;
  timeSpentMs: number;
  lastActiveAt: string | null;
  submittedAt: string | null;
  reviewedAt: string | null;
}

const JOB_COLUMNS = [
  'jobs.id',
  'jobs.team_id',
  'jobs.project_id',
  'jobs.title',
  'jobs.stage',
  'jobs.assignee_id',
  'jobs.reviewer_id',
  'jobs.created_by',
  'jobs.created_at',
  'jobs.updated_at',
] as const;

type JobRow = Selectable<JobsTable>;

const toJob = (r: JobRow): JobRecord => ({
  id: r.id,
  teamId: r.team_id,
  projectId: r.project_id,
  title: r.title,
  stage: r.stage as JobStage,
  assigneeId: r.assignee_id,
  reviewerId: r.reviewer_id,
  createdBy: r.created_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function insertJob(
  db: Kysely<Database>,
  job: { teamId: number; projectId: number; title: string; assigneeId: number; reviewerId: number | null; createdBy: number; at: string },
): Promise<number> {
  const row = await db
    .insertInto('jobs')
    .values({
      team_id: job.teamId,
      project_id: job.projectId,
      title: job.title,
      stage: 'annotate',
      assignee_id: job.assigneeId,
      reviewer_id: job.reviewerId,
      created_by: job.createdBy,
      created_at: job.at,
      updated_at: job.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Rows per insert: well under both databases' bind-parameter limits. */
const IMAGES_PER_INSERT = 500;

export async function insertJobImages(db: Kysely<Database>, jobId: number, imageIds: readonly number[]): Promise<void> {
  for (let from = 0; from < imageIds.length; from += IMAGES_PER_INSERT) {
    const rows = imageIds.slice(from, from + IMAGES_PER_INSERT).map((imageId, i) => ({ job_id: jobId, image_id: imageId, position: from + i, state: 'new' }));
    await db.insertInto('job_images').values(rows).execute();
  }
}

/** The job, if it is the team's; `lock` holds its row to the end of the transaction (PostgreSQL). */
export async function findJob(db: Kysely<Database>, teamId: number, jobId: number, options: { lock?: boolean } = {}): Promise<JobRecord | undefined> {
  let query = db.selectFrom('jobs').select(JOB_COLUMNS).where('jobs.id', '=', jobId).where('jobs.team_id', '=', teamId);
  if (options.lock && isPostgres(db)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && toJob(row);
}

export interface JobListQuery {
  teamId: number;
  projectId?: number;
  /** Jobs this user is the assignee or the reviewer of. */
  userId?: number;
  afterId?: number;
  limit: number;
}

export async function listJobs(db: Kysely<Database>, query: JobListQuery): Promise<JobRecord[]> {
  let select = db.selectFrom('jobs').select(JOB_COLUMNS).where('jobs.team_id', '=', query.teamId);
  if (query.projectId !== undefined) select = select.where('jobs.project_id', '=', query.projectId);
  if (query.userId !== undefined) {
    const userId = query.userId;
    select = select.where((eb) => eb.or([eb('jobs.assignee_id', '=', userId), eb('jobs.reviewer_id', '=', userId)]));
  }
  if (query.afterId !== undefined) select = select.where('jobs.id', '>', query.afterId);
  return (await select.orderBy('jobs.id').limit(query.limit).execute()).map(toJob);
}

export async function updateJob(db: Kysely<Database>, jobId: number, change: { title?: string; stage?: JobStage; assigneeId?: number; reviewerId?: number | null; at: string }): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      updated_at: change.at,
      ...(change.title !== undefined ? { title: change.title } : {}),
      ...(change.stage !== undefined ? { stage: change.stage } : {}),
      ...(change.assigneeId !== undefined ? { assignee_id: change.assigneeId } : {}),
      ...(change.reviewerId !== undefined ? { reviewer_id: change.reviewerId } : {}),
    })
    .where('id', '=', jobId)
    .execute();
}

export async function deleteJob(db: Kysely<Database>, jobId: number): Promise<void> {
  await db.deleteFrom('jobs').where('id', '=', jobId).execute();
}

/** What the progress of a job counts. */
export interface JobFigures {
  images: number;
  states: Record<JobImageState, number>;
  /** Images accepted with no rejection before. */
  acceptedFirstReview: number;
  timeSpentMs: number;
  /** Objects added to the job's images by its assignee since the job was made (from the revisions). */
  objectsMade: number;
}

const emptyStates = (): Record<JobImageState, number> => ({ new: 0, in_progress: 0, submitted: 0, accepted: 0, rejected: 0 });

/** The figures of each job, by job id. */
export async function jobFigures(db: Kysely<Database>, jobIds: readonly number[]): Promise<Map<number, JobFigures>> {
  const figures = new Map<number, JobFigures>(jobIds.map((id) => [id, { images: 0, states: emptyStates(), acceptedFirstReview: 0, timeSpentMs: 0, objectsMade: 0 }]));
  if (jobIds.length === 0) return figures;
  const rows = await db
    .selectFrom('job_images')
    .select((eb) => [
      'job_id',
      'state',
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.sum<number | string | null>(eb.case().when('rejections', '=', 0).then(1).else(0).end()).as('first'),
      eb.fn.sum<number | string | null>('time_spent_ms').as('spent'),
    ])
    .where('job_id', 'in', [...jobIds])
    .groupBy(['job_id', 'state'])
    .execute();
  for (const r of rows) {
    const f = figures.get(r.job_id)!;
    const n = Number(r.n);
    f.images += n;
    f.states[r.state as JobImageState] = n;
    if (r.state === 'accepted') f.acceptedFirstReview = Number(r.first ?? 0);
    f.timeSpentMs += Number(r.spent ?? 0);
  }
  const made = await db
    .selectFrom('job_images')
    .innerJoin('jobs', 'jobs.id', 'job_images.job_id')
    .innerJoin('annotation_revisions', (join) =>
      join
        .onRef('annotation_revisions.image_id', '=', 'job_images.image_id')
        .onRef('annotation_revisions.user_id', '=', 'jobs.assignee_id')
        .onRef('annotation_revisions.created_at', '>=', 'jobs.created_at'),
    )
    .select((eb) => ['job_images.job_id', eb.fn.sum<number | string | null>('annotation_revisions.added').as('added')])
    .where('job_images.job_id', 'in', [...jobIds])
    .groupBy('job_images.job_id')
    .execute();
  for (const r of made) figures.get(r.job_id)!.objectsMade = Number(r.added ?? 0);
  return figures;
}

const JOB_IMAGE_COLUMNS = ['image_id', 'position', 'state', 'rejections', 'time_spent_ms', 'last_active_at', 'submitted_at', 'reviewed_at'] as const;

interface JobImageRow {
  image_id: number;
  position: number;
  state: string;
  rejections: number;
  time_spent_ms: number;
  last_active_at: string | null;
  submitted_at: string | null;
  reviewed_at: string | null;
}

const toJobImage = (r: JobImageRow): JobImageRecord => ({
  imageId: r.image_id,
  position: r.position,
  state: r.state as JobImageState,
  rejections: Number(r.rejections),
  timeSpentMs: Number(r.time_spent_ms),
  lastActiveAt: r.last_active_at,
  submittedAt: r.submitted_at,
  reviewedAt: r.reviewed_at,
});

/** A page of the job's images in position order, after `afterPosition`; of some states only when given. */
export async function listJobImages(db: Kysely<Database>, jobId: number, options: { afterPosition?: number; limit: number; states?: readonly JobImageState[] }): Promise<JobImageRecord[]> {
  let query = db.selectFrom('job_images').select(JOB_IMAGE_COLUMNS).where('job_id', '=', jobId);
  if (options.afterPosition !== undefined) query = query.where('position', '>', options.afterPosition);
  if (options.states) query = query.where('state', 'in', [...options.states]);
  return (await query.orderBy('position').limit(options.limit).execute()).map(toJobImage);
}

export async function findJobImage(db: Kysely<Database>, jobId: number, imageId: number): Promise<JobImageRecord | undefined> {
  const row = await db.selectFrom('job_images').select(JOB_IMAGE_COLUMNS).where('job_id', '=', jobId).where('image_id', '=', imageId).executeTakeFirst();
  return row && toJobImage(row);
}

export async function updateJobImage(
  db: Kysely<Database>,
  jobId: number,
  imageId: number,
  change: { state?: JobImageState; rejections?: number; timeSpentMs?: number; lastActiveAt?: string; submittedAt?: string; reviewedAt?: string },
): Promise<void> {
  await db
    .updateTable('job_images')
    .set({
      ...(change.state !== undefined ? { state: change.state } : {}),
      ...(change.rejections !== undefined ? { rejections: change.rejections } : {}),
      ...(change.timeSpentMs !== undefined ? { time_spent_ms: change.timeSpentMs } : {}),
      ...(change.lastActiveAt !== undefined ? { last_active_at: change.lastActiveAt } : {}),
      ...(change.submittedAt !== undefined ? { submitted_at: change.submittedAt } : {}),
      ...(change.reviewedAt !== undefined ? { reviewed_at: change.reviewedAt } : {}),
    })
    .where('job_id', '=', jobId)
    .where('image_id', '=', imageId)
    .execute();
}

/** Moves every image of the job in one of `from` to `to`; answers their ids. */
export async function moveJobImages(db: Kysely<Database>, jobId: number, from: readonly JobImageState[], to: JobImageState, at: string): Promise<number[]> {
  const rows = await db.selectFrom('job_images').select('image_id').where('job_id', '=', jobId).where('state', 'in', [...from]).orderBy('position').execute();
  if (rows.length === 0) return [];
  await db
    .updateTable('job_images')
    .set({ state: to, ...(to === 'submitted' ? { submitted_at: at } : {}) })
    .where('job_id', '=', jobId)
    .where('state', 'in', [...from])
    .execute();
  return rows.map((r) => r.image_id);
}

export async function countJobImagesByState(db: Kysely<Database>, jobId: number): Promise<Record<JobImageState, number>> {
  const rows = await db.selectFrom('job_images').select((eb) => ['state', eb.fn.countAll<number | string>().as('n')]).where('job_id', '=', jobId).groupBy('state').execute();
  const states = emptyStates();
  for (const r of rows) states[r.state as JobImageState] = Number(r.n);
  return states;
}

/** The open job (annotate or review stage) an image is in, if any. */
export async function openJobOfImage(db: Kysely<Database>, imageId: number): Promise<(JobRecord & { image: JobImageRecord }) | undefined> {
  const row = await db
    .selectFrom('job_images')
    .innerJoin('jobs', 'jobs.id', 'job_images.job_id')
    .select([...JOB_COLUMNS, ...JOB_IMAGE_COLUMNS.map((c) => `job_images.${c}` as const)])
    .where('job_images.image_id', '=', imageId)
    .where('jobs.stage', '<>', 'done')
    .executeTakeFirst();
  return row && { ...toJob(row), image: toJobImage(row) };
}

/** Whether the project has a job in the annotate or review stage. */
export async function hasOpenJob(db: Kysely<Database>, teamId: number, projectId: number): Promise<boolean> {
  const row = await db.selectFrom('jobs').select('id').where('team_id', '=', teamId).where('project_id', '=', projectId).where('stage', '<>', 'done').limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Up to `limit` ids of the images the filter finds that are in no job yet, in id order. */
export async function freeImageIds(db: Kysely<Database>, filter: ImageFilter, limit: number): Promise<number[]> {
  const search = filter.nameContains ? await planNameSearch(db, filter.nameContains) : undefined;
  const rows = await filteredImages(db, filter, search)
    .select('images.id')
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('job_images').select('job_images.image_id').whereRef('job_images.image_id', '=', 'images.id'))))
    .orderBy('images.id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

export interface IssueRecord {
  id: number;
  jobId: number;
  imageId: number;
  x: number | null;
  y: number | null;
  objectId: number | null;
  status: 'open' | 'resolved';
  createdBy: number | null;
  createdAt: string;
  resolvedBy: number | null;
  resolvedAt: string | null;
}

export interface CommentRecord {
  id: number;
  issueId: number;
  userId: number | null;
  body: string;
  createdAt: string;
}

export async function insertIssue(
  db: Kysely<Database>,
  issue: { jobId: number; imageId: number; x: number | null; y: number | null; objectId: number | null; createdBy: number; at: string },
): Promise<number> {
  const row = await db
    .insertInto('review_issues')
    .values({ job_id: issue.jobId, image_id: issue.imageId, x: issue.x, y: issue.y, object_id: issue.objectId, status: 'open', created_by: issue.createdBy, created_at: issue.at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function insertComment(db: Kysely<Database>, comment: { issueId: number; userId: number; body: string; at: string }): Promise<number> {
  const row = await db
    .insertInto('review_comments')
    .values({ issue_id: comment.issueId, user_id: comment.userId, body: comment.body, created_at: comment.at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function countComments(db: Kysely<Database>, issueId: number): Promise<number> {
  const row = await db.selectFrom('review_comments').select((eb) => eb.fn.countAll<number | string>().as('n')).where('issue_id', '=', issueId).executeTakeFirstOrThrow();
  return Number(row.n);
}

type IssueRow = Selectable<ReviewIssuesTable>;

const toIssue = (r: IssueRow): IssueRecord => ({
  id: r.id,
  jobId: r.job_id,
  imageId: r.image_id,
  x: r.x === null ? null : Number(r.x),
  y: r.y === null ? null : Number(r.y),
  objectId: r.object_id,
  status: r.status as 'open' | 'resolved',
  createdBy: r.created_by,
  createdAt: r.created_at,
  resolvedBy: r.resolved_by,
  resolvedAt: r.resolved_at,
});

/** The issue, if its job is the team's. */
export async function findIssue(db: Kysely<Database>, teamId: number, issueId: number): Promise<IssueRecord | undefined> {
  const row = await db
    .selectFrom('review_issues')
    .innerJoin('jobs', 'jobs.id', 'review_issues.job_id')
    .selectAll('review_issues')
    .where('review_issues.id', '=', issueId)
    .where('jobs.team_id', '=', teamId)
    .executeTakeFirst();
  return row && toIssue(row);
}

/** The issues of a job's image (at most `limit`, oldest first), each with its comments. */
export async function listIssues(db: Kysely<Database>, jobId: number, imageId: number, limit: number): Promise<(IssueRecord & { comments: CommentRecord[] })[]> {
  const issues = (await db.selectFrom('review_issues').selectAll().where('job_id', '=', jobId).where('image_id', '=', imageId).orderBy('id').limit(limit).execute()).map(toIssue);
  if (issues.length === 0) return [];
  const comments = await db
    .selectFrom('review_comments')
    .selectAll()
    .where('issue_id', 'in', issues.map((i) => i.id))
    .orderBy('id')
    .execute();
  const byIssue = new Map<number, CommentRecord[]>(issues.map((i) => [i.id, []]));
  for (const c of comments) byIssue.get(c.issue_id)!.push({ id: c.id, issueId: c.issue_id, userId: c.user_id, body: c.body, createdAt: c.created_at });
  return issues.map((i) => ({ ...i, comments: byIssue.get(i.id)! }));
}

export async function countOpenIssues(db: Kysely<Database>, jobId: number, imageId: number): Promise<number> {
  const row = await db
    .selectFrom('review_issues')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('job_id', '=', jobId)
    .where('image_id', '=', imageId)
    .where('status', '=', 'open')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function resolveIssue(db: Kysely<Database>, issueId: number, userId: number, at: string): Promise<void> {
  await db.updateTable('review_issues').set({ status: 'resolved', resolved_by: userId, resolved_at: at }).where('id', '=', issueId).execute();
}

/** The figures of a project's jobs per assignee: images, accepted, accepted on first review, time spent, objects made. */
export async function figuresPerAssignee(
  db: Kysely<Database>,
  projectId: number,
): Promise<{ userId: number; login: string; jobs: number; images: number; accepted: number; acceptedFirstReview: number; timeSpentMs: number; objectsMade: number }[]> {
  const rows = await db
    .selectFrom('jobs')
    .innerJoin('users', 'users.id', 'jobs.assignee_id')
    .innerJoin('job_images', 'job_images.job_id', 'jobs.id')
    .select((eb) => [
      'jobs.assignee_id',
      'users.login',
      eb.fn.count<number | string>('jobs.id').distinct().as('jobs'),
      eb.fn.countAll<number | string>().as('images'),
      eb.fn.sum<number | string | null>(eb.case().when('job_images.state', '=', 'accepted').then(1).else(0).end()).as('accepted'),
      eb.fn.sum<number | string | null>(eb.case().when(eb.and([eb('job_images.state', '=', 'accepted'), eb('job_images.rejections', '=', 0)])).then(1).else(0).end()).as('first'),
      eb.fn.sum<number | string | null>('job_images.time_spent_ms').as('spent'),
    ])
    .where('jobs.project_id', '=', projectId)
    .groupBy(['jobs.assignee_id', 'users.login'])
    .orderBy('jobs.assignee_id')
    .execute();
  const made = await db
    .selectFrom('jobs')
    .innerJoin('job_images', 'job_images.job_id', 'jobs.id')
    .innerJoin('annotation_revisions', (join) =>
      join
        .onRef('annotation_revisions.image_id', '=', 'job_images.image_id')
        .onRef('annotation_revisions.user_id', '=', 'jobs.assignee_id')
        .onRef('annotation_revisions.created_at', '>=', 'jobs.created_at'),
    )
    .select((eb) => ['jobs.assignee_id', eb.fn.sum<number | string | null>('annotation_revisions.added').as('added')])
    .where('jobs.project_id', '=', projectId)
    .groupBy('jobs.assignee_id')
    .execute();
  const madeBy = new Map(made.map((r) => [r.assignee_id, Number(r.added ?? 0)]));
  return rows.map((r) => ({
    userId: r.assignee_id,
    login: r.login,
    jobs: Number(r.jobs),
    images: Number(r.images),
    accepted: Number(r.accepted ?? 0),
    acceptedFirstReview: Number(r.first ?? 0),
    timeSpentMs: Number(r.spent ?? 0),
    objectsMade: madeBy.get(r.assignee_id) ?? 0,
  }));
}

/** Logins of users by id. */
export async function loginsOf(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'login']).where('id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, r.login]));
}

