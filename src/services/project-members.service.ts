// A project's members: who has which role in it, and the role of the team's other members
// (docs/accounts.md#project-roles). Only its managers (and the team's owners and admins) change them.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { notFound } from '../errors.ts';
import * as members from '../repositories/project-members.repository.ts';
import { findUser } from '../repositories/users.repository.ts';
import { type ProjectRole, toProjectRole } from './project-access.ts';

/** How many members a listing answers at most. */
export const MAX_LISTED_MEMBERS = 10_000;

export interface ProjectMember {
  userId: number;
  login: string;
  teamRole: string;
  role: ProjectRole;
  createdAt: string;
}

export interface ProjectMembers {
  projectId: number;
  memberDefaultRole: ProjectRole | null;
  items: ProjectMember[];
}

const toMember = (row: members.ProjectMemberRow): ProjectMember => ({ ...row, role: toProjectRole(row.role) ?? 'viewer' });

async function defaultRoleOf(db: Kysely<Database>, teamId: number, projectId: number, userId: number): Promise<ProjectRole | null> {
  const facts = await members.findProjectAccess(db, teamId, projectId, userId);
  if (!facts) throw notFound('project', { projectId });
  return toProjectRole(facts.defaultRole);
}

export async function listProjectMembers(db: Kysely<Database>, teamId: number, userId: number, projectId: number): Promise<ProjectMembers> {
  const memberDefaultRole = await defaultRoleOf(db, teamId, projectId, userId);
  const items = (await members.listMembers(db, projectId, MAX_LISTED_MEMBERS)).map(toMember);
  return { projectId, memberDefaultRole, items };
}

/** Sets the role of the team's members who have none of their own in the project (null: none). */
export async function setMemberDefaultRole(db: Kysely<Database>, teamId: number, userId: number, projectId: number, role: ProjectRole | null): Promise<ProjectMembers> {
  await defaultRoleOf(db, teamId, projectId, userId);
  await members.setDefaultRole(db, projectId, role);
  return listProjectMembers(db, teamId, userId, projectId);
}

/** Gives a user of the team a role in the project; answers the member and whether they are new. */
export async function putProjectMember(
  db: Kysely<Database>,
  teamId: number,
  projectId: number,
  userId: number,
  role: ProjectRole,
): Promise<{ member: ProjectMember; created: boolean }> {
  return db.transaction().execute(async (trx) => {
    await defaultRoleOf(trx, teamId, projectId, userId);
    if (!(await findUser(trx, teamId, userId))) throw notFound('user', { userId });
    const created = await members.putMember(trx, projectId, userId, role);
    return { member: toMember((await members.findMember(trx, projectId, userId))!), created };
  });
}

/** Takes the user's own role in the project away: the project's default role is theirs again. */
export async function removeProjectMember(db: Kysely<Database>, teamId: number, projectId: number, userId: number): Promise<void> {
  await defaultRoleOf(db, teamId, projectId, userId);
  if (!(await members.deleteMember(db, projectId, userId))) throw notFound('project member', { userId });
}
