// Who may do what with jobs: the one place that decides it (docs/jobs.md). Managing a project's jobs
// (making, changing, deleting them, and standing in for an assignee or a reviewer) is for the
// project's managers: its members with the manager role, and the team's owners and admins.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { AppError } from '../errors.ts';
import { type TeamRole, isTeamAdmin } from '../repositories/team-roles.ts';
import { roleOf } from '../repositories/teams.repository.ts';
import { findProjectAccess, putMember } from '../repositories/project-members.repository.ts';
import { type ProjectRole, allows, userRoleOf } from './project-access.ts';

/** The caller of a job's route: a user of a team, with their team role. */
export interface JobCaller {
  teamId: number;
  userId: number;
  role: TeamRole;
}

/** Whether the caller manages the project's jobs. */
export async function mayManageJobs(db: Kysely<Database>, caller: JobCaller, projectId: number): Promise<boolean> {
  if (isTeamAdmin(caller.role)) return true;
  const facts = await findProjectAccess(db, caller.teamId, projectId, caller.userId);
  return facts !== undefined && userRoleOf(caller.role, facts) === 'manager';
}

/**
 * Giving a job gives the role its work needs: an assignee becomes at least an annotator of the
 * project, a reviewer at least a reviewer (a project_members row, which a manager may change later).
 * Nobody's role is lowered.
 */
export async function grantJobRoles(db: Kysely<Database>, teamId: number, projectId: number, people: { assigneeId?: number; reviewerId?: number | null }): Promise<void> {
  const wanted: [number, ProjectRole][] = [];
  if (people.assigneeId !== undefined) wanted.push([people.assigneeId, 'annotator']);
  if (people.reviewerId !== undefined && people.reviewerId !== null) wanted.push([people.reviewerId, 'reviewer']);
  for (const [userId, needed] of wanted) {
    const facts = await findProjectAccess(db, teamId, projectId, userId);
    if (!facts) continue;
    if (!allows(userRoleOf(await roleOf(db, userId), facts), needed)) await putMember(db, projectId, userId, needed);
  }
}

/** The caller as a JobCaller when only the user is known (an annotation write names its author's user). */
export async function callerOfUser(db: Kysely<Database>, teamId: number, userId: number): Promise<JobCaller> {
  return { teamId, userId, role: await roleOf(db, userId) };
}

export const forbidden = (message: string, extra: Record<string, unknown> = {}): AppError => new AppError('FORBIDDEN', message, extra);
