// Project memberships: a team member's role in one project, and each project's role for members
// without one (docs/accounts.md#project-roles).
import { type ExpressionBuilder, type Kysely, type SqlBool, type Expression } from 'kysely';
import { isoNow } from '../clock.ts';
import type { Database } from '../db/types.ts';

/** What a project says of one user: their own role there, and the project's role for everyone else. */
export interface ProjectAccessRow {
  memberRole: string | null;
  defaultRole: string | null;
}

/** The project's member-role facts for `userId`; undefined when the project is not the team's. */
export async function findProjectAccess(db: Kysely<Database>, teamId: number, projectId: number, userId: number): Promise<ProjectAccessRow | undefined> {
  const row = await db
    .selectFrom('projects as p')
    .leftJoin('project_members as m', (join) => join.onRef('m.project_id', '=', 'p.id').on('m.user_id', '=', userId))
    .select(['p.member_default_role as defaultRole', 'm.role as memberRole'])
    .where('p.id', '=', projectId)
    .where('p.team_id', '=', teamId)
    .executeTakeFirst();
  return row ? { memberRole: row.memberRole ?? null, defaultRole: row.defaultRole } : undefined;
}

/** findProjectAccess for several projects at once: the team's among `projectIds`, by id. */
export async function findProjectsAccess(db: Kysely<Database>, teamId: number, projectIds: readonly number[], userId: number): Promise<Map<number, ProjectAccessRow>> {
  if (projectIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('projects as p')
    .leftJoin('project_members as m', (join) => join.onRef('m.project_id', '=', 'p.id').on('m.user_id', '=', userId))
    .select(['p.id', 'p.member_default_role as defaultRole', 'm.role as memberRole'])
    .where('p.id', 'in', projectIds)
    .where('p.team_id', '=', teamId)
    .execute();
  return new Map(rows.map((row) => [row.id, { memberRole: row.memberRole ?? null, defaultRole: row.defaultRole }]));
}

/**
 * A condition on a query over `projects` (its id column named by `idColumn`, its default role column
 * by `defaultColumn`): the projects a plain team member `userId` has any role in.
 */
export function visibleToMember<DB extends Database, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  userId: number,
  idColumn: string,
  defaultColumn: string,
): Expression<SqlBool> {
  const e = eb as unknown as ExpressionBuilder<Database, 'projects'>;
  return e.or([
    e(defaultColumn as 'projects.member_default_role', 'is not', null),
    e(idColumn as 'projects.id', 'in', e.selectFrom('project_members').select('project_members.project_id').where('project_members.user_id', '=', userId)),
  ]);
}

/**
 * The ids of the projects a plain team member `userId` manages: their own role there is `manager`, or
 * they have none and the project's role for members is (project-access.ts, userRoleOf), as a subquery.
 */
export function managedByMember<DB extends Database, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, userId: number) {
  const e = eb as unknown as ExpressionBuilder<Database, never>;
  return e
    .selectFrom('projects as mp')
    .leftJoin('project_members as mm', (join) => join.onRef('mm.project_id', '=', 'mp.id').on('mm.user_id', '=', userId))
    .select('mp.id')
    .where((w) => w.or([w('mm.role', '=', 'manager'), w.and([w('mm.role', 'is', null), w('mp.member_default_role', '=', 'manager')])]));
}

/** The ids of the team's projects a plain member `userId` has a role in. */
export async function memberProjectIds(db: Kysely<Database>, teamId: number, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('projects')
    .select('id')
    .where('team_id', '=', teamId)
    .where((eb) => visibleToMember(eb, userId, 'projects.id', 'projects.member_default_role'))
    .execute();
  return rows.map((r) => r.id);
}

export interface ProjectMemberRow {
  userId: number;
  login: string;
  teamRole: string;
  role: string;
  createdAt: string;
}

/** The project's explicit members with their logins, in user id order (at most `limit`). */
export async function listMembers(db: Kysely<Database>, projectId: number, limit: number): Promise<ProjectMemberRow[]> {
  return db
    .selectFrom('project_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id as userId', 'u.login as login', 'u.role as teamRole', 'm.role as role', 'm.created_at as createdAt'])
    .where('m.project_id', '=', projectId)
    .orderBy('m.user_id')
    .limit(limit)
    .execute();
}

export async function findMember(db: Kysely<Database>, projectId: number, userId: number): Promise<ProjectMemberRow | undefined> {
  return db
    .selectFrom('project_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id as userId', 'u.login as login', 'u.role as teamRole', 'm.role as role', 'm.created_at as createdAt'])
    .where('m.project_id', '=', projectId)
    .where('m.user_id', '=', userId)
    .executeTakeFirst();
}

/** Sets the user's role in the project; answers whether the row is new. */
export async function putMember(db: Kysely<Database>, projectId: number, userId: number, role: string): Promise<boolean> {
  const existing = await db.selectFrom('project_members').select('role').where('project_id', '=', projectId).where('user_id', '=', userId).executeTakeFirst();
  if (existing) {
    await db.updateTable('project_members').set({ role }).where('project_id', '=', projectId).where('user_id', '=', userId).execute();
    return false;
  }
  await db
    .insertInto('project_members')
    .values({ project_id: projectId, user_id: userId, role, created_at: isoNow() })
    .onConflict((oc) => oc.columns(['project_id', 'user_id']).doUpdateSet({ role }))
    .execute();
  return true;
}

export async function deleteMember(db: Kysely<Database>, projectId: number, userId: number): Promise<boolean> {
  const result = await db.deleteFrom('project_members').where('project_id', '=', projectId).where('user_id', '=', userId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function countMembers(db: Kysely<Database>, projectId: number): Promise<number> {
  const row = await db.selectFrom('project_members').select((eb) => eb.fn.countAll().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function setDefaultRole(db: Kysely<Database>, projectId: number, role: string | null): Promise<void> {
  await db.updateTable('projects').set({ member_default_role: role }).where('id', '=', projectId).execute();
}

/** The project each of these resources belongs to, when the resource is the team's. */
export type ResourceKind = 'project' | 'dataset' | 'image' | 'class' | 'tag' | 'version' | 'task' | 'job' | 'issue';

export async function projectIdsOf(db: Kysely<Database>, teamId: number, kind: ResourceKind, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  let rows: { projectId: number | null }[];
  switch (kind) {
    case 'project':
      rows = await db.selectFrom('projects').select('id as projectId').where('team_id', '=', teamId).where('id', 'in', unique).execute();
      break;
    case 'dataset':
      rows = await db
        .selectFrom('datasets as d')
        .innerJoin('projects as p', 'p.id', 'd.project_id')
        .select('d.project_id as projectId')
        .where('p.team_id', '=', teamId)
        .where('d.id', 'in', unique)
        .execute();
      break;
    case 'image':
      rows = await db
        .selectFrom('images as i')
        .innerJoin('projects as p', 'p.id', 'i.project_id')
        .select('i.project_id as projectId')
        .where('p.team_id', '=', teamId)
        .where('i.id', 'in', unique)
        .execute();
      break;
    case 'class':
      rows = await db
        .selectFrom('classes as c')
        .innerJoin('projects as p', 'p.id', 'c.project_id')
        .select('c.project_id as projectId')
        .where('p.team_id', '=', teamId)
        .where('c.id', 'in', unique)
        .execute();
      break;
    case 'tag':
      rows = await db
        .selectFrom('project_tags as t')
        .innerJoin('projects as p', 'p.id', 't.project_id')
        .select('t.project_id as projectId')
        .where('p.team_id', '=', teamId)
        .where('t.id', 'in', unique)
        .execute();
      break;
    case 'version':
      rows = await db
        .selectFrom('versions as v')
        .innerJoin('projects as p', 'p.id', 'v.project_id')
        .select('v.project_id as projectId')
        .where('p.team_id', '=', teamId)
        .where('v.id', 'in', unique)
        .execute();
      break;
    case 'task':
      // A task keeps its project's id after the project is deleted (no foreign key): such a task names
      // no project, and is left to the team's rules, so its owner can still read how it ended.
      rows = await db
        .selectFrom('tasks as k')
        .innerJoin('projects as p', 'p.id', 'k.project_id')
        .select('k.project_id as projectId')
        .where('k.team_id', '=', teamId)
        .where('k.id', 'in', unique)
        .execute();
      break;
    case 'job':
      rows = await db.selectFrom('jobs').select('project_id as projectId').where('team_id', '=', teamId).where('id', 'in', unique).execute();
      break;
    case 'issue':
      rows = await db
        .selectFrom('review_issues as r')
        .innerJoin('jobs as j', 'j.id', 'r.job_id')
        .select('j.project_id as projectId')
        .where('j.team_id', '=', teamId)
        .where('r.id', 'in', unique)
        .execute();
      break;
  }
  return [...new Set(rows.map((r) => r.projectId).filter((id): id is number => id !== null))];
}

/**
 * Of these task ids of the team, those of no existing project (a DTL graph, an upload's thumbnails, a
 * project deleted since) that `userId` did not start: a plain member may not see them (the task lists
 * leave them out too).
 */
export async function othersTasksOfNoProject(db: Kysely<Database>, teamId: number, userId: number, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('tasks as k')
    .select('k.id')
    .where('k.team_id', '=', teamId)
    .where('k.id', 'in', [...new Set(ids)])
    .where((eb) => eb.or([eb('k.created_by', 'is', null), eb('k.created_by', '!=', userId)]))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('projects as p').select('p.id').whereRef('p.id', '=', 'k.project_id'))))
    .execute();
  return rows.map((r) => r.id);
}
