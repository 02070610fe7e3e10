// A user's role in their team, as the users table stores it: kept apart from the users and teams
// repositories, which both read it, so neither imports the other.
/** owner: the team's first user, may do everything; admin: manages users and keys; member: works. */
export type TeamRole = 'owner' | 'admin' | 'member';
export const TEAM_ROLES: readonly TeamRole[] = ['owner', 'admin', 'member'];
export const toRole = (text: string): TeamRole => (TEAM_ROLES.includes(text as TeamRole) ? (text as TeamRole) : 'member');
export const isTeamAdmin = (role: TeamRole): boolean => role === 'owner' || role === 'admin';
