// Who may do what with jobs: the one place that decides it (docs/jobs.md). Managing a project's jobs
// (making, changing, deleting them, and standing in for an assignee or a reviewer) is for the team's
// owners and admins; per-project roles, when they come, answer here.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { AppError } from '../errors.ts';
import { type TeamRole, isTeamAdmin } from '../repositories/team-roles.ts';
import { roleOf } from '../repositories/teams.repository.ts';

/** The caller of a job's route: a user of a team, with their team role. */
export interface JobCaller {
  teamId: number;
  userId: number;
  role: TeamRole;
}

/** Whether the caller manages the project's jobs. */
export async function mayManageJobs(_db: Kysely<Database>, caller: JobCaller, _projectId: number): Promise<boolean> {
  return isTeamAdmin(caller.role);
}

/** The caller as a JobCaller when only the user is known (an annotation write names its author's user). */
export async function callerOfUser(db: Kysely<Database>, teamId: number, userId: number): Promise<JobCaller> {
  return { teamId, userId, role: await roleOf(db, userId) };
}

export const forbidden = (message: string, extra: Record<string, unknown> = {}): AppError => new AppError('FORBIDDEN', message, extra);
