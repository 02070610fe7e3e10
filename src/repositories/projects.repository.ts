// Projects, with their classes and tags, always scoped to a team.
import { type Kysely, sql } from 'kysely';
import { isoNow } from '../clock.ts';
import type { ClassShape } from '../formats/canonical.ts';
import { isPostgres } from '../db/dialect.ts';
import { jsonArrayLength, startsWithText } from '../db/json-text.ts';
import type { Database, ProjectRow } from '../db/types.ts';
import { type ManagedProjects, shownDatasets } from './hidden-datasets.ts';
import { visibleToMember } from './project-members.repository.ts';

/** The role in a new project of the team's members who have none of their own (docs/accounts.md#project-roles). */
export const NEW_PROJECT_MEMBER_ROLE = 'viewer';

export interface ProjectRecord {
  id: number;
  title: string;
  size: string;
  createdAt: string;
  updatedAt: string;
  classes: { id: number; title: string; shape: ClassShape; color: string }[];
  tags: { id: number; title: string }[];
}

/** A class (kind 1) or a tag (kind 2) of a listed project. */
interface PartRow {
  kind: number;
  id: number;
  project_id: number;
  title: string;
  shape: string | null;
  color: string | null;
}

/**
 * The team's projects (or the one with `projectId`) in id order, each with its classes and tags in id
 * order. Classes and tags come in one union query, so a listing costs two round trips, not three.
 */
export async function listProjects(db: Kysely<Database>, teamId: number, projectId?: number, visibleTo?: number): Promise<ProjectRecord[]> {
  let query = db.selectFrom('projects').selectAll().where('team_id', '=', teamId);
  if (projectId !== undefined) query = query.where('id', '=', projectId);
  if (visibleTo !== undefined) query = query.where((eb) => visibleToMember(eb, visibleTo, 'projects.id', 'projects.member_default_role'));
  const projects = await query.orderBy('id').execute();
  if (projects.length === 0) return [];
  const ids = projects.map((p) => p.id);
  const none = sql<null>`null`;
  const parts = await db
    .selectFrom('classes')
    .select([sql<number>`1`.as('kind'), 'id', 'project_id', 'title', 'shape', 'color'])
    .where('project_id', 'in', ids)
    .$castTo<PartRow>()
    .unionAll(
      db
        .selectFrom('project_tags')
        .select([sql<number>`2`.as('kind'), 'id', 'project_id', 'title', none.as('shape'), none.as('color')])
        .where('project_id', 'in', ids)
        .$castTo<PartRow>(),
    )
    .execute();
  // Ordered here rather than in SQL: an ORDER BY over a compound select costs SQLite a temporary b-tree
  // per branch.
  parts.sort((a, b) => a.kind - b.kind || a.id - b.id);

  const byId = new Map<number, ProjectRecord>();
  const records = projects.map((p) => {
    const record: ProjectRecord = {
      id: p.id,
      title: p.title,
      size: String(p.size),
      createdAt: p.created_at,
      updatedAt: p.updated_at,
      classes: [],
      tags: [],
    };
    byId.set(p.id, record);
    return record;
  });
  for (const part of parts) {
    const record = byId.get(part.project_id)!;
    if (part.kind === 1) record.classes.push({ id: part.id, title: part.title, shape: part.shape as ClassShape, color: part.color! });
    else record.tags.push({ id: part.id, title: part.title });
  }
  return records;
}

/** The project if the team owns it. */
export async function findProject(db: Kysely<Database>, teamId: number, projectId: number): Promise<ProjectRow | undefined> {
  return db.selectFrom('projects').selectAll().where('id', '=', projectId).where('team_id', '=', teamId).executeTakeFirst();
}

export async function insertProject(db: Kysely<Database>, teamId: number, title: string): Promise<number> {
  const now = isoNow();
  const row = await db
    .insertInto('projects')
    .values({ team_id: teamId, title, size: 0, created_at: now, updated_at: now, member_default_role: NEW_PROJECT_MEMBER_ROLE })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Deletes the project and, through the foreign keys, everything in it. Answers whether it existed. */
export async function deleteProject(db: Kysely<Database>, teamId: number, projectId: number): Promise<boolean> {
  const result = await db.deleteFrom('projects').where('id', '=', projectId).where('team_id', '=', teamId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function touchProject(db: Kysely<Database>, projectId: number): Promise<void> {
  await db.updateTable('projects').set({ updated_at: isoNow() }).where('id', '=', projectId).execute();
}

/** A project as API v2 shows it: its size a number of bytes. */
export interface ProjectResource {
  id: number;
  title: string;
  description: string;
  size: number;
  createdAt: string;
  updatedAt: string;
}

export const toProjectResource = (r: ProjectRow): ProjectResource => ({
  id: r.id,
  title: r.title,
  description: r.description,
  size: Number(r.size),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * The project if the team owns it. With `lock` (inside a transaction) PostgreSQL locks the row until
 * commit, so a read-compare-write on it cannot interleave with another; SQLite's writer lock does that
 * already.
 */
export async function findProjectRow(
  db: Kysely<Database>,
  teamId: number,
  projectId: number,
  options: { lock?: boolean } = {},
): Promise<ProjectRow | undefined> {
  let query = db.selectFrom('projects').selectAll().where('id', '=', projectId).where('team_id', '=', teamId);
  if (options.lock && isPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function insertDescribedProject(db: Kysely<Database>, teamId: number, title: string, description: string): Promise<number> {
  const now = isoNow();
  const row = await db
    .insertInto('projects')
    .values({ team_id: teamId, title, description, size: 0, created_at: now, updated_at: now, member_default_role: NEW_PROJECT_MEMBER_ROLE })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateProject(db: Kysely<Database>, projectId: number, change: { title?: string; description?: string }): Promise<void> {
  await db.updateTable('projects').set({ ...change, updated_at: isoNow() }).where('id', '=', projectId).execute();
}

export interface ProjectPageQuery {
  teamId: number;
  /** Only projects whose title starts with this. */
  titlePrefix?: string;
  /** Only projects after this id. */
  afterId?: number;
  limit: number;
  /** Only projects this plain member has a role in. */
  visibleTo?: number;
}

/** Up to `limit` of the team's projects in id order. */
export async function pageProjects(db: Kysely<Database>, query: ProjectPageQuery): Promise<ProjectRow[]> {
  let select = db.selectFrom('projects').selectAll().where('team_id', '=', query.teamId);
  if (query.titlePrefix !== undefined) select = select.where(startsWithText('title', query.titlePrefix));
  if (query.visibleTo !== undefined) select = select.where((eb) => visibleToMember(eb, query.visibleTo!, 'projects.id', 'projects.member_default_role'));
  if (query.afterId !== undefined) select = select.where('id', '>', query.afterId);
  return select.orderBy('id').limit(query.limit).execute();
}

/** How many of the team's projects the filter of `query` lets through (its cursor aside). */
export async function countProjects(db: Kysely<Database>, query: Omit<ProjectPageQuery, 'afterId' | 'limit'>): Promise<number> {
  let select = db.selectFrom('projects').select((eb) => eb.fn.countAll().as('n')).where('team_id', '=', query.teamId);
  if (query.titlePrefix !== undefined) select = select.where(startsWithText('title', query.titlePrefix));
  if (query.visibleTo !== undefined) select = select.where((eb) => visibleToMember(eb, query.visibleTo!, 'projects.id', 'projects.member_default_role'));
  const row = await select.executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface ProjectCounts {
  datasets: number;
  images: number;
  /** Annotation objects over all its images. */
  objects: number;
}

/**
 * What each of the projects holds, by project id, as a caller who manages `managed` sees it (no hidden
 * dataset; managers-only ones of those projects only); a project with nothing has zeros.
 */
export async function countProjectContents(db: Kysely<Database>, projectIds: number[], managed: ManagedProjects): Promise<Map<number, ProjectCounts>> {
  const counts = new Map<number, ProjectCounts>(projectIds.map((id) => [id, { datasets: 0, images: 0, objects: 0 }]));
  if (projectIds.length === 0) return counts;
  const datasets = await db
    .selectFrom('datasets')
    .select((eb) => ['project_id', eb.fn.countAll().as('n')])
    .where('project_id', 'in', projectIds)
    .where((eb) => shownDatasets(eb, managed))
    .groupBy('project_id')
    .execute();
  for (const d of datasets) counts.get(d.project_id)!.datasets = Number(d.n);
  const unseen = db
    .selectFrom('datasets')
    .select('datasets.id')
    .where('datasets.project_id', 'in', projectIds)
    .where((eb) => eb.not(shownDatasets(eb, managed)));
  const images = await db
    .selectFrom('images')
    .select((eb) => ['project_id', eb.fn.countAll().as('n'), eb.fn.sum(jsonArrayLength(db, 'objects_json')).as('objects')])
    .where('project_id', 'in', projectIds)
    .where('dataset_id', 'not in', unseen)
    .groupBy('project_id')
    .execute();
  for (const i of images) {
    const entry = counts.get(i.project_id)!;
    entry.images = Number(i.n);
    entry.objects = Number(i.objects ?? 0);
  }
  return counts;
}

/**
 * The bytes of the projects' datasets that a caller who manages `managed` does not see (the
 * managers-only datasets of the other projects), by project id; projects without any are left out.
 */
export async function unseenBytes(db: Kysely<Database>, projectIds: number[], managed: ManagedProjects): Promise<Map<number, number>> {
  if (projectIds.length === 0 || managed === 'all') return new Map();
  const rows = await db
    .selectFrom('datasets')
    .select((eb) => ['project_id', eb.fn.sum<number | string>('size').as('bytes')])
    .where('project_id', 'in', projectIds)
    .where('managers_only', '=', 1)
    .where((eb) => eb.not(shownDatasets(eb, managed)))
    .groupBy('project_id')
    .execute();
  return new Map(rows.map((r) => [r.project_id, Number(r.bytes)]));
}

export interface ClassSummary {
  id: number;
  title: string;
  shape: ClassShape;
  color: string;
}

/** The classes of each of the projects in id order, by project id. */
export async function classesOfProjects(db: Kysely<Database>, projectIds: number[]): Promise<Map<number, ClassSummary[]>> {
  const byProject = new Map<number, ClassSummary[]>(projectIds.map((id) => [id, []]));
  if (projectIds.length === 0) return byProject;
  const rows = await db
    .selectFrom('classes')
    .select(['id', 'project_id', 'title', 'shape', 'color'])
    .where('project_id', 'in', projectIds)
    .orderBy('id')
    .execute();
  for (const r of rows) byProject.get(r.project_id)!.push({ id: r.id, title: r.title, shape: r.shape as ClassShape, color: r.color });
  return byProject;
}
