// Projects, with their classes and tags, always scoped to a team.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import type { ClassShape } from '../formats/canonical.ts';
import type { ClassRow, Database, ProjectRow, ProjectTagRow } from '../db/types.ts';

export interface ProjectRecord {
  id: number;
  title: string;
  size: string;
  createdAt: string;
  updatedAt: string;
  classes: { id: number; title: string; shape: ClassShape; color: string }[];
  tags: { id: number; title: string }[];
}

function groupByProject<T extends { project_id: number }>(rows: T[]): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const row of rows) {
    const list = groups.get(row.project_id);
    if (list) list.push(row);
    else groups.set(row.project_id, [row]);
  }
  return groups;
}

function toRecord(project: ProjectRow, classes: ClassRow[], tags: Pick<ProjectTagRow, 'id' | 'title'>[]): ProjectRecord {
  return {
    id: project.id,
    title: project.title,
    size: String(project.size),
    createdAt: project.created_at,
    updatedAt: project.updated_at,
    classes: classes.map((c) => ({ id: c.id, title: c.title, shape: c.shape as ClassShape, color: c.color })),
    tags: tags.map((t) => ({ id: t.id, title: t.title })),
  };
}

export async function listProjects(db: Kysely<Database>, teamId: number, projectId?: number): Promise<ProjectRecord[]> {
  let query = db.selectFrom('projects').selectAll().where('team_id', '=', teamId);
  if (projectId !== undefined) query = query.where('id', '=', projectId);
  const projects = await query.orderBy('id').execute();
  if (projects.length === 0) return [];
  const ids = projects.map((p) => p.id);
  const [classes, tags] = await Promise.all([
    db.selectFrom('classes').selectAll().where('project_id', 'in', ids).orderBy('id').execute(),
    db.selectFrom('project_tags').select(['id', 'title', 'project_id']).where('project_id', 'in', ids).orderBy('id').execute(),
  ]);
  const classesOf = groupByProject(classes);
  const tagsOf = groupByProject(tags);
  return projects.map((p) => toRecord(p, classesOf.get(p.id) ?? [], tagsOf.get(p.id) ?? []));
}

/** The project if the team owns it. */
export async function findProject(db: Kysely<Database>, teamId: number, projectId: number): Promise<ProjectRow | undefined> {
  return db.selectFrom('projects').selectAll().where('id', '=', projectId).where('team_id', '=', teamId).executeTakeFirst();
}

export async function insertProject(db: Kysely<Database>, teamId: number, title: string): Promise<number> {
  const now = isoNow();
  const row = await db
    .insertInto('projects')
    .values({ team_id: teamId, title, size: 0, created_at: now, updated_at: now })
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
