// Who may do what in a project: the one place that decides (docs/accounts.md#project-roles).
//
// A team owner or admin is a manager of every project of the team. A member's role in a project is
// their project_members row, else the project's `memberDefaultRole`, else none (the project is hidden
// from them). A key does no more than its user's role, and a `read` key no more than a viewer.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { AppError, notFound } from '../errors.ts';
import type { DatasetReader, ManagedProjects } from '../repositories/hidden-datasets.ts';
import { inManagersOnlyDatasets } from '../repositories/managers-only.repository.ts';
import * as members from '../repositories/project-members.repository.ts';
import type { KeyScope } from '../repositories/teams.repository.ts';
import { type TeamRole, isTeamAdmin } from '../repositories/team-roles.ts';

/** viewer reads; annotator also edits images' annotations and tags; reviewer also reviews; manager does everything in the project. */
export type ProjectRole = 'viewer' | 'annotator' | 'reviewer' | 'manager';
export const PROJECT_ROLES: readonly ProjectRole[] = ['viewer', 'annotator', 'reviewer', 'manager'];

const RANK: Record<ProjectRole, number> = { viewer: 1, annotator: 2, reviewer: 3, manager: 4 };

/** Who asks: a request's principal has every member. */
export interface Caller {
  teamId: number;
  userId: number;
  /** The user's team role. */
  role: TeamRole;
  /** The key's scope. */
  scope: KeyScope;
}

export const toProjectRole = (text: string | null): ProjectRole | null => (PROJECT_ROLES.includes(text as ProjectRole) ? (text as ProjectRole) : null);

/** Whether `role` allows what `needed` allows. */
export const allows = (role: ProjectRole | null, needed: ProjectRole): boolean => role !== null && RANK[role] >= RANK[needed];

/** The lesser of two roles. */
const lesser = (a: ProjectRole, b: ProjectRole): ProjectRole => (RANK[a] <= RANK[b] ? a : b);

/** The caller's user's role in a project, from their team role and the project's facts, before the key's scope. */
export function userRoleOf(teamRole: TeamRole, facts: members.ProjectAccessRow): ProjectRole | null {
  if (isTeamAdmin(teamRole)) return 'manager';
  return toProjectRole(facts.memberRole) ?? toProjectRole(facts.defaultRole);
}

/**
 * The caller's role in the project, bounded by the key (a `read` key acts as a viewer at most); null
 * when they have none; undefined when the project is not their team's.
 */
export async function projectRoleOf(db: Kysely<Database>, caller: Caller, projectId: number): Promise<ProjectRole | null | undefined> {
  const facts = await members.findProjectAccess(db, caller.teamId, projectId, caller.userId);
  if (!facts) return undefined;
  const role = userRoleOf(caller.role, facts);
  if (role === null) return null;
  return caller.scope === 'read' ? lesser(role, 'viewer') : role;
}

/**
 * projectRoleOf for several projects: the role of each one of them the caller has a role in, in id
 * order. Projects they have none in, and ids of no project of the team, are left out alike.
 */
export async function projectRolesOf(db: Kysely<Database>, caller: Caller, projectIds: readonly number[]): Promise<{ projectId: number; role: ProjectRole }[]> {
  const facts = await members.findProjectsAccess(db, caller.teamId, [...new Set(projectIds)], caller.userId);
  const roles: { projectId: number; role: ProjectRole }[] = [];
  for (const [projectId, row] of [...facts].sort(([a], [b]) => a - b)) {
    const role = userRoleOf(caller.role, row);
    if (role !== null) roles.push({ projectId, role: caller.scope === 'read' ? lesser(role, 'viewer') : role });
  }
  return roles;
}

/** The refusal of a caller whose role in the project is short of `needed`. */
export function projectRoleRequired(projectId: number, role: ProjectRole | null, needed: ProjectRole): AppError {
  const message =
    role === null
      ? `you have no role in project ${projectId}: this needs ${needed} or above`
      : `your role in project ${projectId} is ${role}: this needs ${needed} or above`;
  return new AppError('PROJECT_ROLE_REQUIRED', message, { projectId, role, needed });
}

/**
 * Answers the caller's role in the project when it allows `needed`; otherwise a 403
 * `PROJECT_ROLE_REQUIRED`, or a 404 when the project is not the team's.
 */
export async function requireProjectRole(db: Kysely<Database>, caller: Caller, projectId: number, needed: ProjectRole): Promise<ProjectRole> {
  const role = await projectRoleOf(db, caller, projectId);
  if (role === undefined) throw notFound('project', { projectId });
  if (!allows(role, needed)) throw projectRoleRequired(projectId, role, needed);
  return role!;
}

/**
 * The user id whose projects a list should be narrowed to, or undefined when the caller sees every
 * project of the team (an owner or admin).
 */
export const narrowedTo = (caller: Caller): number | undefined => (isTeamAdmin(caller.role) ? undefined : caller.userId);

/** The ids of the team's projects the caller has any role in. */
export async function visibleProjectIds(db: Kysely<Database>, caller: Caller): Promise<number[] | undefined> {
  const userId = narrowedTo(caller);
  return userId === undefined ? undefined : members.memberProjectIds(db, caller.teamId, userId);
}

/**
 * Requires `needed` in the project of each resource (by kind and id) that is the team's; ids of no
 * resource of the team, and resources whose project is deleted meanwhile, are left to the route's own
 * answer.
 */
export async function requireRoleOver(
  db: Kysely<Database>,
  caller: Caller,
  kind: members.ResourceKind,
  ids: readonly number[],
  needed: ProjectRole,
): Promise<void> {
  // A task of no project is its starter's and the admins': to anyone else it does not exist, as in the lists.
  const userId = narrowedTo(caller);
  if (kind === 'task' && userId !== undefined) {
    const hidden = await members.othersTasksOfNoProject(db, caller.teamId, userId, ids);
    if (hidden.length > 0) throw notFound('task', { taskId: hidden[0] });
  }
  for (const projectId of await members.projectIdsOf(db, caller.teamId, kind, ids)) {
    const role = await projectRoleOf(db, caller, projectId);
    // The project was deleted since its resources were looked up: what the route then finds (a 404,
    // or a task left to the team's rules) is its own answer, as if the lookup had come a moment later.
    if (role === undefined) continue;
    if (!allows(role, needed)) throw projectRoleRequired(projectId, role, needed);
  }
}

/** Makes the caller the manager of the project they just made, unless they manage every project anyway. */
export async function adoptNewProject(db: Kysely<Database>, caller: Caller, projectId: number): Promise<void> {
  if (!isTeamAdmin(caller.role)) await members.putMember(db, projectId, caller.userId, 'manager');
}

/**
 * A dataset or image of a managers-only dataset does not exist to anybody who does not manage its
 * project (docs/jobs.md "Ground truth"): a 404 as for an id of nothing. Asked before any role is
 * checked, so that a refusal does not tell that it is there.
 */
export async function requireSeen(db: Kysely<Database>, caller: Caller, kind: 'dataset' | 'image', ids: readonly number[]): Promise<void> {
  const [first] = await unseenOf(db, caller, kind, ids);
  if (first !== undefined) throw notFound(kind, { [`${kind}Id`]: first });
}

/** Of the ids, those of a managers-only dataset whose project the caller does not manage, in id order. */
export async function unseenOf(db: Kysely<Database>, caller: Caller, kind: 'dataset' | 'image', ids: readonly number[]): Promise<number[]> {
  const roles = new Map<number, ProjectRole | null | undefined>();
  const unseen: number[] = [];
  for (const hit of await inManagersOnlyDatasets(db, caller.teamId, kind, ids)) {
    if (!roles.has(hit.projectId)) roles.set(hit.projectId, await projectRoleOf(db, caller, hit.projectId));
    if (roles.get(hit.projectId) !== 'manager') unseen.push(hit.id);
  }
  return unseen;
}

/** How the caller reads the project's datasets: as a manager (managers-only datasets shown) or not. */
export async function readerOf(db: Kysely<Database>, caller: Caller, projectId: number): Promise<DatasetReader> {
  return (await projectRoleOf(db, caller, projectId)) === 'manager' ? 'manager' : 'member';
}

/** Across the team, the projects whose managers-only datasets the caller sees (projectRoleOf for every project at once). */
export function managedProjectsOf(caller: Caller): ManagedProjects {
  if (caller.scope === 'read') return 'none';
  return isTeamAdmin(caller.role) ? 'all' : { memberId: caller.userId };
}
