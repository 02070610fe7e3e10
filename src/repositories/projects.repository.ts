// Projects, with their classes and tags, always scoped to a team.
import { type Kysely, sql } from 'kysely';
import { isoNow } from '../clock.ts';
import type { ClassShape } from '../formats/canonical.ts';
import type { Database, ProjectRow } from '../db/types.ts';

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
export async function listProjects(db: Kysely<Database>, teamId: number, projectId?: number): Promise<ProjectRecord[]> {
  let query = db.selectFrom('projects').selectAll().where('team_id', '=', teamId);
  if (projectId !== undefined) query = query.where('id', '=', projectId);
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
