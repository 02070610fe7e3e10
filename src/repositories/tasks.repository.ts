// The tasks table is the queue and the API resource at once. Every change a worker makes is
// conditional on holding the lease, so a worker that lost its task can no longer write to it.
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { isoNow } from '../clock.ts';
import { isPostgres } from '../db/dialect.ts';
import type { Database, TaskRow } from '../db/types.ts';
import { ENDED_STATUSES, type TaskStatus } from '../tasks/statuses.ts';
import { visibleToMember } from './project-members.repository.ts';

export { ENDED_STATUSES, type TaskStatus };

/** Claims of a task whose worker died; the claim after the last one ends the task as WORKER_LOST. */
export const MAX_ATTEMPTS = 5;

export interface TaskRecord {
  id: number;
  type: string;
  size: string;
  status: TaskStatus;
  meta: Record<string, unknown>;
  startedAt: string | null;
  finishedAt: string | null;
}

/** A stored meta or input document; anything but a JSON object reads as an empty one. */
export function parseDocument(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function toRecord(row: Pick<TaskRow, 'id' | 'type' | 'size' | 'status' | 'meta' | 'started_at' | 'finished_at'>): TaskRecord {
  return {
    id: row.id,
    type: row.type,
    size: String(row.size),
    status: row.status as TaskStatus,
    meta: parseDocument(row.meta),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

const later = (now: string, ms: number): string => new Date(Date.parse(now) + ms).toISOString();

export async function createTask(
  db: Kysely<Database>,
  task: { teamId: number; userId: number | null; type: string; size: number; meta: Record<string, unknown>; input: unknown; projectId?: number | null },
): Promise<number> {
  // The task and its input land together or not at all.
  if (!db.isTransaction) return db.transaction().execute((trx) => createTask(trx, task));
  const row = await db
    .insertInto('tasks')
    .values({
      team_id: task.teamId,
      created_by: task.userId,
      type: task.type,
      status: 'queued',
      size: task.size,
      meta: JSON.stringify(task.meta),
      project_id: task.projectId ?? null,
      created_at: isoNow(),
      stop_requested: 0,
      attempts: 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.insertInto('task_inputs').values({ task_id: row.id, input: JSON.stringify(task.input ?? {}) }).execute();
  return row.id;
}

/** The task's row as it is now, whatever its team (for the worker's own records). */
export async function findTaskRow(db: Kysely<Database>, id: number): Promise<TaskRow | undefined> {
  return db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The input the task was created with. */
export async function loadInput(db: Kysely<Database>, id: number): Promise<Record<string, unknown>> {
  const row = await db.selectFrom('task_inputs').select('input').where('task_id', '=', id).executeTakeFirst();
  return parseDocument(row?.input ?? '{}');
}

const WORKER_LOST_MESSAGE = `the worker running the task stopped answering ${MAX_ATTEMPTS} times`;

/**
 * Takes the oldest task that needs a worker, exclusively across processes: a queued task, or one whose
 * lease expired because its worker died. The claimed row comes back with status `started`, the lease
 * held by `owner` and `attempts` counted; undefined when there is nothing to do.
 *
 * An expired task that was being stopped ends as `stopped`, and one that has used its attempts ends as
 * `error` (WORKER_LOST); the claim then looks for the next task.
 */
export async function claimTask(
  db: Kysely<Database>,
  options: { owner: string; leaseMs: number; now?: string },
): Promise<TaskRow | undefined> {
  for (;;) {
    const row = await claimNext(db, options);
    if (!row) return undefined;
    if (row.lease_owner === options.owner && row.status === 'started') return row;
  }
}

/**
 * One step of claimTask: takes the oldest task that needs a worker and answers it as it is now, either
 * `started` under `owner`'s lease, or ended (`stopped`, or `error` WORKER_LOST); undefined when there
 * is nothing to do.
 */
export async function claimNext(
  db: Kysely<Database>,
  options: { owner: string; leaseMs: number; now?: string },
): Promise<TaskRow | undefined> {
  const postgres = isPostgres(db);
  const workerLostMeta = postgres
    ? sql<string>`cast(cast(meta as jsonb) || jsonb_build_object('error', jsonb_build_object('code', 'WORKER_LOST', 'message', cast(${WORKER_LOST_MESSAGE} as text))) as text)`
    : sql<string>`json_set(meta, '$.error', json_object('code', 'WORKER_LOST', 'message', ${WORKER_LOST_MESSAGE}))`;
  const now = options.now ?? isoNow();
  const expires = later(now, options.leaseMs);
  // What becomes of the chosen row, computed from its values before the update.
  const outcome = sql<string>`case
    when status = 'queued' then 'started'
    when status = 'terminating' then 'stopped'
    when attempts >= ${MAX_ATTEMPTS} then 'error'
    else 'started' end`;
  const claimed = sql<boolean>`(${outcome}) = 'started'`;
  // One statement: PostgreSQL locks the chosen row and lets other claimers skip it; SQLite takes its
  // write lock before reading, so the statement is one short write transaction.
  const row = await db
    .updateTable('tasks')
    .set({
      status: outcome,
      attempts: sql<number>`case when ${claimed} then attempts + 1 else attempts end`,
      lease_owner: sql<string | null>`case when ${claimed} then ${options.owner} else null end`,
      lease_expires_at: sql<string | null>`case when ${claimed} then ${expires} else null end`,
      started_at: sql<string | null>`case when ${claimed} then coalesce(started_at, ${now}) else started_at end`,
      finished_at: sql<string | null>`case when ${claimed} then finished_at else ${now} end`,
      meta: sql<string>`case when (${outcome}) = 'error' then ${workerLostMeta} else meta end`,
    })
    .where('id', '=', (eb) => {
      const candidate = eb
        .selectFrom('tasks')
        .select('id')
        .where((w) =>
          w.or([
            w('status', '=', 'queued'),
            w.and([w('status', 'in', ['started', 'terminating']), w('lease_expires_at', '<', now)]),
          ]),
        )
        .orderBy('id')
        .limit(1);
      return postgres ? candidate.forUpdate().skipLocked() : candidate;
    })
    .returningAll()
    .executeTakeFirst();
  return row;
}

/**
 * Extends the lease (and writes `meta` when given) if `owner` still holds it. Answers false when the
 * lease was lost, else whether a stop was requested.
 */
export async function renewLease(
  db: Kysely<Database>,
  options: { id: number; owner: string; leaseMs: number; meta?: Record<string, unknown>; now?: string },
): Promise<false | { stopRequested: boolean }> {
  const now = options.now ?? isoNow();
  const row = await db
    .updateTable('tasks')
    .set({
      lease_expires_at: later(now, options.leaseMs),
      ...(options.meta ? { meta: JSON.stringify(options.meta) } : {}),
    })
    .where('id', '=', options.id)
    .where('lease_owner', '=', options.owner)
    .returning('stop_requested')
    .executeTakeFirst();
  return row ? { stopRequested: row.stop_requested === 1 } : false;
}

/**
 * Re-asserts `owner`'s unexpired lease inside a transaction. It is a write (of the same value), so it
 * takes SQLite's write lock and PostgreSQL's row lock at once: a claim cannot slip in before commit.
 */
export async function fenceLease(db: Kysely<Database>, options: { id: number; owner: string; now?: string }): Promise<boolean> {
  const row = await db
    .updateTable('tasks')
    .set((eb) => ({ lease_owner: eb.ref('lease_owner') }))
    .where('id', '=', options.id)
    .where('lease_owner', '=', options.owner)
    .where('lease_expires_at', '>', options.now ?? isoNow())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Ends the task with `status` and its final meta if `owner` still holds the lease; answers whether it did. */
export async function finishTask(
  db: Kysely<Database>,
  options: { id: number; owner: string; status: 'finished' | 'error' | 'stopped'; meta: Record<string, unknown> },
): Promise<boolean> {
  const result = await db
    .updateTable('tasks')
    .set({
      status: options.status,
      meta: JSON.stringify(options.meta),
      finished_at: isoNow(),
      lease_owner: null,
      lease_expires_at: null,
    })
    .where('id', '=', options.id)
    .where('lease_owner', '=', options.owner)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Gives the task back to the queue so another worker takes it up at once (a task being stopped ends
 * as `stopped` instead), if `owner` still holds the lease. Answers whether it did.
 */
export async function releaseTask(
  db: Kysely<Database>,
  options: { id: number; owner: string; meta: Record<string, unknown> },
): Promise<boolean> {
  const now = isoNow();
  const result = await db
    .updateTable('tasks')
    .set({
      status: sql<string>`case when stop_requested = 1 then 'stopped' else 'queued' end`,
      finished_at: sql<string | null>`case when stop_requested = 1 then ${now} else finished_at end`,
      meta: JSON.stringify(options.meta),
      lease_owner: null,
      lease_expires_at: null,
    })
    .where('id', '=', options.id)
    .where('lease_owner', '=', options.owner)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Asks the team's task to stop: a queued one stops at once, a started one becomes `terminating` until
 * its worker reaches a checkpoint. Answers the new status, or undefined when the task is missing,
 * another team's, or in a status a stop does not apply to.
 */
export async function requestStop(
  db: Kysely<Database>,
  teamId: number,
  id: number,
): Promise<'stopped' | 'terminating' | undefined> {
  const now = isoNow();
  // One statement, so a worker's claim of a queued task and a stop cannot both win.
  const row = await db
    .updateTable('tasks')
    .set({
      status: sql<string>`case when status = 'queued' then 'stopped' else 'terminating' end`,
      stop_requested: 1,
      finished_at: sql<string | null>`case when status = 'queued' then ${now} else finished_at end`,
    })
    .where('id', '=', id)
    .where('team_id', '=', teamId)
    .where('status', 'in', ['queued', 'started'])
    .returning('status')
    .executeTakeFirst();
  return row?.status as 'stopped' | 'terminating' | undefined;
}

/** The team's tasks (or only task `id`), oldest first, leaving out tasks of the types `exceptTypes`. */
export async function listTasks(db: Kysely<Database>, teamId: number, id?: number, exceptTypes: readonly string[] = [], readerId?: number): Promise<TaskRecord[]> {
  let query = db
    .selectFrom('tasks')
    .select(['id', 'type', 'size', 'status', 'meta', 'started_at', 'finished_at'])
    .where('team_id', '=', teamId);
  if (id !== undefined) query = query.where('id', '=', id);
  if (readerId !== undefined) query = query.where(readableBy(teamId, readerId));
  if (exceptTypes.length > 0) query = query.where('type', 'not in', [...exceptTypes]);
  const rows = await query.orderBy('id').execute();
  return rows.map(toRecord);
}

/** The team's task, or undefined when it is missing or another team's. */
export async function getTask(db: Kysely<Database>, teamId: number, id: number): Promise<TaskRecord | undefined> {
  const [task] = await listTasks(db, teamId, id);
  return task;
}

/**
 * Replaces a task's meta and input, for a task whose meta names its own id: in the transaction that
 * created it, before any worker can claim it.
 */
export async function setMetaAndInput(db: Kysely<Database>, id: number, meta: Record<string, unknown>, input: unknown): Promise<void> {
  await db.updateTable('tasks').set({ meta: JSON.stringify(meta) }).where('id', '=', id).execute();
  await db.updateTable('task_inputs').set({ input: JSON.stringify(input) }).where('task_id', '=', id).execute();
}

/** Removes the team's task and its input; answers whether there was one. */
export async function deleteTask(db: Kysely<Database>, teamId: number, id: number): Promise<boolean> {
  if (!db.isTransaction) return db.transaction().execute((trx) => deleteTask(trx, teamId, id));
  const task = await db.selectFrom('tasks').select('id').where('id', '=', id).where('team_id', '=', teamId).executeTakeFirst();
  if (!task) return false;
  await db.deleteFrom('task_inputs').where('task_id', '=', id).execute();
  await db.deleteFrom('tasks').where('id', '=', id).execute();
  return true;
}

/**
 * Finished exports of before `cutoff` whose archive has not been removed yet (their meta has no
 * `expiredAt`: the meta is JSON text on both databases, so the test is on the text).
 */
export async function exportsToExpire(db: Kysely<Database>, cutoff: string, limit: number): Promise<{ id: number; teamId: number }[]> {
  const rows = await db
    .selectFrom('tasks')
    .select(['id', 'team_id'])
    .where('type', '=', 'export')
    .where('status', '=', 'finished')
    .where('finished_at', '<', cutoff)
    .where('meta', 'not like', '%"expiredAt":%')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, teamId: r.team_id }));
}

/** Merges `patch` into the meta of a task no worker holds (one that has ended). */
export async function mergeEndedMeta(db: Kysely<Database>, id: number, patch: Record<string, unknown>): Promise<void> {
  if (!db.isTransaction) return db.transaction().execute((trx) => mergeEndedMeta(trx, id, patch));
  const row = await db.selectFrom('tasks').select('meta').where('id', '=', id).where('status', 'in', ['finished', 'error', 'stopped']).executeTakeFirst();
  if (!row) return;
  await db.updateTable('tasks').set({ meta: JSON.stringify({ ...parseDocument(row.meta), ...patch }) }).where('id', '=', id).execute();
}

/** A task as listed page by page: the record, when it was created, and the project it works on. */
export interface TaskEntry extends TaskRecord {
  createdAt: string;
  /** Null for work of no single project; the title null once the project is gone. */
  project: { id: number; title: string | null } | null;
}

/** The filters of a tasks list. */
export interface TaskFilter {
  type?: string;
  status?: TaskStatus;
  projectId?: number;
  /** Types left out (housekeeping the caller does not want to see). */
  exceptTypes?: readonly string[];
  /** A plain member's user id: only the tasks they may see (readableBy); none for an owner or admin, who sees all. */
  readerId?: number;
}

/**
 * The tasks a plain member may see: those of a project they have a role in, and those they started
 * themselves of no project that exists (a DTL graph, an upload's thumbnails, a project deleted since).
 * A task names its projects, datasets and progress: a member a project is hidden from sees none of it.
 */
const readableBy =
  (teamId: number, userId: number) =>
  (eb: ExpressionBuilder<Database, 'tasks'>) =>
    eb.or([
      eb(
        'tasks.project_id',
        'in',
        eb
          .selectFrom('projects as p')
          .select('p.id')
          .where('p.team_id', '=', teamId)
          .where((pe) => visibleToMember(pe, userId, 'p.id', 'p.member_default_role')),
      ),
      eb.and([eb('tasks.created_by', '=', userId), eb.not(eb.exists(eb.selectFrom('projects as d').select('d.id').whereRef('d.id', '=', 'tasks.project_id')))]),
    ]);

export interface TaskPageQuery extends TaskFilter {
  /** Only tasks with a smaller id: the last id of the page before (pages go newest first). */
  beforeId?: number;
  limit: number;
}

type EntryRow = Pick<TaskRow, 'id' | 'type' | 'size' | 'status' | 'meta' | 'created_at' | 'started_at' | 'finished_at' | 'project_id'> & { project_title: string | null };

const toEntry = (row: EntryRow): TaskEntry => ({
  ...toRecord(row),
  createdAt: row.created_at,
  project: row.project_id === null ? null : { id: row.project_id, title: row.project_title },
});

/** The team's tasks joined to their project's title (a project of the same team only). */
function selectEntries(db: Kysely<Database>, teamId: number) {
  return db
    .selectFrom('tasks')
    .leftJoin('projects', (join) => join.onRef('projects.id', '=', 'tasks.project_id').on('projects.team_id', '=', teamId))
    .select([
      'tasks.id',
      'tasks.type',
      'tasks.size',
      'tasks.status',
      'tasks.meta',
      'tasks.created_at',
      'tasks.started_at',
      'tasks.finished_at',
      'tasks.project_id',
      'projects.title as project_title',
    ])
    .where('tasks.team_id', '=', teamId);
}

function filtered(select: ReturnType<typeof selectEntries>, teamId: number, filter: TaskFilter): ReturnType<typeof selectEntries> {
  let q = select;
  if (filter.type !== undefined) q = q.where('tasks.type', '=', filter.type);
  if (filter.status !== undefined) q = q.where('tasks.status', '=', filter.status);
  if (filter.projectId !== undefined) q = q.where('tasks.project_id', '=', filter.projectId);
  if (filter.exceptTypes?.length) q = q.where('tasks.type', 'not in', [...filter.exceptTypes]);
  if (filter.readerId !== undefined) q = q.where(readableBy(teamId, filter.readerId));
  return q;
}

/** The team's tasks, newest first, a page at a time by keyset on the id (never an offset). */
export async function listTaskPage(db: Kysely<Database>, teamId: number, query: TaskPageQuery): Promise<TaskEntry[]> {
  let select = filtered(selectEntries(db, teamId), teamId, query);
  if (query.beforeId !== undefined) select = select.where('tasks.id', '<', query.beforeId);
  const rows = await select.orderBy('tasks.id', 'desc').limit(query.limit).execute();
  return rows.map(toEntry);
}

/** How many of the team's tasks match the filters of a page query. */
export async function countTasks(db: Kysely<Database>, teamId: number, filter: TaskFilter): Promise<number> {
  let select = db.selectFrom('tasks').select((eb) => eb.fn.countAll<number | string>().as('n')).where('tasks.team_id', '=', teamId);
  if (filter.type !== undefined) select = select.where('tasks.type', '=', filter.type);
  if (filter.status !== undefined) select = select.where('tasks.status', '=', filter.status);
  if (filter.projectId !== undefined) select = select.where('tasks.project_id', '=', filter.projectId);
  if (filter.exceptTypes?.length) select = select.where('tasks.type', 'not in', [...filter.exceptTypes]);
  if (filter.readerId !== undefined) select = select.where(readableBy(teamId, filter.readerId));
  return Number((await select.executeTakeFirstOrThrow()).n);
}

/**
 * The team's task with its creation time, or undefined when it is missing or another team's. With
 * `lock` (in a transaction), the row is held until it ends: `for update` on PostgreSQL; SQLite's
 * transactions begin holding the write lock.
 */
export async function findTaskEntry(db: Kysely<Database>, teamId: number, id: number, options: { lock?: boolean } = {}): Promise<TaskEntry | undefined> {
  let query = selectEntries(db, teamId).where('tasks.id', '=', id);
  if (options.lock && isPostgres(db)) query = query.forUpdate('tasks');
  const row = await query.executeTakeFirst();
  return row && toEntry(row);
}

/**
 * What a watch of the team's tasks reads each time: the tasks not ended yet, those newer than
 * `afterId`, those named in `ids` (last seen running: read until seen ended), and those that ended at
 * or after `endedSince`; oldest first, at most `limit`.
 */
export async function listWatchedTasks(
  db: Kysely<Database>,
  teamId: number,
  query: { afterId: number; ids: readonly number[]; endedSince?: string; exceptTypes?: readonly string[]; readerId?: number; limit: number },
): Promise<TaskEntry[]> {
  const rows = await filtered(selectEntries(db, teamId), teamId, { exceptTypes: query.exceptTypes, readerId: query.readerId })
    .where((eb) =>
      eb.or([
        eb('tasks.status', 'not in', [...ENDED_STATUSES]),
        eb('tasks.id', '>', query.afterId),
        ...(query.ids.length ? [eb('tasks.id', 'in', [...query.ids])] : []),
        ...(query.endedSince !== undefined ? [eb('tasks.finished_at', '>=', query.endedSince)] : []),
      ]),
    )
    .orderBy('tasks.id')
    .limit(query.limit)
    .execute();
  return rows.map(toEntry);
}

/** The newest id among the team's tasks, 0 when it has none. */
export async function lastTaskId(db: Kysely<Database>, teamId: number): Promise<number> {
  const row = await db.selectFrom('tasks').select((eb) => eb.fn.max('id').as('id')).where('team_id', '=', teamId).executeTakeFirst();
  return Number(row?.id ?? 0);
}

/** The project a task works on (null when none, or the task is gone). */
export async function projectOfTask(db: Kysely<Database>, id: number): Promise<number | null> {
  const row = await db.selectFrom('tasks').select('project_id').where('id', '=', id).executeTakeFirst();
  return row?.project_id ?? null;
}

/**
 * Removes the team's task if it has ended (its input, plan and items go with it by cascade). One
 * statement, so a task cannot be claimed or restarted between the check and the delete.
 */
export async function deleteEndedTask(db: Kysely<Database>, teamId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('tasks').where('id', '=', id).where('team_id', '=', teamId).where('status', 'in', ENDED_STATUSES).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
