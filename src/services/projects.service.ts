// Project rules: creating, changing, listing and deleting within the caller's team.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { notFound } from '../errors.ts';
import * as projects from '../repositories/projects.repository.ts';
import type { ClassSummary, ProjectCounts, ProjectResource } from '../repositories/projects.repository.ts';
import { type Page, type PageRequest, pageOfRows } from './paging.ts';
import { checkIfMatch } from './preconditions.ts';
import { type Caller, adoptNewProject, managedProjectsOf, narrowedTo } from './project-access.ts';
import { checkTitle } from './titles.ts';
import { recordEvent } from './webhook-events.ts';

/** The projects of the caller's team that the caller has a role in (or the one with `projectId`). */
export async function listProjects(db: Kysely<Database>, caller: Caller, projectId?: number) {
  const records = await projects.listProjects(db, caller.teamId, projectId, narrowedTo(caller));
  const unseen = await projects.unseenBytes(db, records.map((r) => r.id), managedProjectsOf(caller));
  return records.map((r) => (unseen.has(r.id) ? { ...r, size: String(Number(r.size) - unseen.get(r.id)!) } : r));
}

/**
 * Projects as the caller sees them: a project's size leaves out the bytes of the managers-only
 * datasets (docs/jobs.md, Quality) of a project the caller does not manage, as its counts do.
 */
async function asSeen<T extends { id: number; size: number }>(db: Kysely<Database>, caller: Caller, list: T[]): Promise<T[]> {
  const unseen = await projects.unseenBytes(db, list.map((p) => p.id), managedProjectsOf(caller));
  return list.map((p) => (unseen.has(p.id) ? { ...p, size: p.size - unseen.get(p.id)! } : p));
}

/**
 * Removes the project and everything in it (v1's delete); its blobs are reclaimed by the sweep. The
 * project.deleted event is recorded in the same transaction.
 */
export async function deleteProject(db: Kysely<Database>, teamId: number, projectId: number): Promise<void> {
  await removeProject(db, teamId, projectId, undefined);
}

/** The project.deleted event of a project about to go, in the transaction that removes it. */
const recordProjectDeleted = (trx: Kysely<Database>, teamId: number, project: ProjectResource) =>
  recordEvent(trx, teamId, 'project.deleted', { id: project.id, title: project.title });

/** The project, or a 404 that reads the same whether it is missing or another team's. */
export async function requireProject(db: Kysely<Database>, teamId: number, projectId: number) {
  const project = await projects.findProject(db, teamId, projectId);
  if (!project) throw notFound('project', { projectId });
  return project;
}

/** A project of a v2 listing; `counts` and `classes` only when the caller asked for counts. */
export interface ProjectListItem extends ProjectResource {
  counts?: ProjectCounts;
  classes?: ClassSummary[];
}

/** Makes a project; a member who makes one is its manager. */
export async function createProject(db: Kysely<Database>, caller: Caller, input: { title: string; description?: string }): Promise<ProjectResource> {
  checkTitle(input.title);
  const id = await db.transaction().execute(async (trx) => {
    const made = await projects.insertDescribedProject(trx, caller.teamId, input.title, input.description ?? '');
    await adoptNewProject(trx, caller, made);
    return made;
  });
  return describeProject(db, caller, id);
}

export async function describeProject(db: Kysely<Database>, caller: Caller, projectId: number): Promise<ProjectResource> {
  return (await asSeen(db, caller, [projects.toProjectResource(await requireProject(db, caller.teamId, projectId))]))[0]!;
}

/**
 * Renames the project and/or sets its description, if `ifMatch` (when given) still names the project
 * as it is. Titles of projects need not be unique: a v1 import makes a new project of any title.
 */
export async function changeProject(
  db: Kysely<Database>,
  teamId: number,
  projectId: number,
  change: { title?: string; description?: string },
  ifMatch: string | undefined,
): Promise<ProjectResource> {
  if (change.title !== undefined) checkTitle(change.title);
  return db.transaction().execute(async (trx) => {
    const row = await projects.findProjectRow(trx, teamId, projectId, { lock: true });
    if (!row) throw notFound('project', { projectId });
    checkIfMatch(projects.toProjectResource(row), ifMatch);
    await projects.updateProject(trx, projectId, change);
    return projects.toProjectResource((await projects.findProjectRow(trx, teamId, projectId))!);
  });
}

/**
 * Deletes the project and, by the foreign keys, its datasets, images, classes and tags, if `ifMatch`
 * (when given) still names it as it is. Blobs its images used are reclaimed by the sweep.
 */
export async function removeProject(db: Kysely<Database>, teamId: number, projectId: number, ifMatch: string | undefined): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await projects.findProjectRow(trx, teamId, projectId, { lock: true });
    if (!row) throw notFound('project', { projectId });
    const project = projects.toProjectResource(row);
    checkIfMatch(project, ifMatch);
    await projects.deleteProject(trx, teamId, projectId);
    await recordProjectDeleted(trx, teamId, project);
  });
}

export interface ProjectListRequest extends PageRequest {
  titlePrefix?: string;
  /** Add each project's counts and classes. */
  counts?: boolean;
}

export async function pageOfProjects(db: Kysely<Database>, caller: Caller, request: ProjectListRequest): Promise<Page<ProjectListItem>> {
  const filter = { teamId: caller.teamId, titlePrefix: request.titlePrefix, visibleTo: narrowedTo(caller) };
  const { rows, nextAfterId } = pageOfRows(await projects.pageProjects(db, { ...filter, afterId: request.afterId, limit: request.limit + 1 }), request.limit);
  let items: ProjectListItem[] = await asSeen(db, caller, rows.map(projects.toProjectResource));
  if (request.counts) {
    const ids = rows.map((r) => r.id);
    const counts = await projects.countProjectContents(db, ids, managedProjectsOf(caller));
    const classes = await projects.classesOfProjects(db, ids);
    items = items.map((item) => ({ ...item, counts: counts.get(item.id)!, classes: classes.get(item.id)! }));
  }
  return { items, nextAfterId, ...(request.total ? { total: await projects.countProjects(db, filter) } : {}) };
}
