// The users of a team: their role, password hash, state, and the sign-in key their sessions act
// through (see migration 0029_accounts).
import type { Kysely } from 'kysely';
import { randomBytes } from 'node:crypto';
import { isoNow } from '../clock.ts';
import { isPostgres } from '../db/dialect.ts';
import type { Database } from '../db/types.ts';
import { type TeamRole, isTeamAdmin, toRole } from './team-roles.ts';
import type { KeyScope } from './teams.repository.ts';

export { type TeamRole, TEAM_ROLES, isTeamAdmin, toRole } from './team-roles.ts';

/** What a user's password or single sign-on session may do: as much as the role allows a key. */
export const sessionScopeOf = (role: TeamRole): KeyScope => (isTeamAdmin(role) ? 'admin' : 'write');

/** The prefix a sign-in key is named by in the request log and the audit trail. */
export const SIGN_IN_KEY_PREFIX = 'sign-in';

export interface User {
  id: number;
  teamId: number;
  login: string;
  email: string | null;
  role: TeamRole;
  /** Whether the user has set a password (the hash itself never leaves this module's callers). */
  hasPassword: boolean;
  /** Whether the user is linked to a single sign-on account. */
  singleSignOn: boolean;
  disabledAt: string | null;
  createdAt: string;
}

export interface UserWithHash extends User {
  passwordHash: string | null;
  teamName: string;
}

const COLUMNS = [
  'users.id',
  'users.team_id',
  'users.login',
  'users.email',
  'users.role',
  'users.password_hash',
  'users.disabled_at',
  'users.created_at',
  'teams.name as teamName',
] as const;

type Row = {
  id: number;
  team_id: number;
  login: string;
  email: string | null;
  role: string;
  password_hash: string | null;
  linked: number | string | boolean | null;
  disabled_at: string | null;
  created_at: string;
  teamName: string;
};

const toUser = (r: Row): UserWithHash => ({
  id: r.id,
  teamId: r.team_id,
  login: r.login,
  email: r.email,
  role: toRole(r.role),
  hasPassword: r.password_hash !== null,
  singleSignOn: Boolean(Number(r.linked)),
  disabledAt: r.disabled_at,
  createdAt: r.created_at,
  passwordHash: r.password_hash,
  teamName: r.teamName,
});

/** The user without its hash: what may be answered. */
export function publicUser(user: UserWithHash): User {
  return {
    id: user.id,
    teamId: user.teamId,
    login: user.login,
    email: user.email,
    role: user.role,
    hasPassword: user.hasPassword,
    singleSignOn: user.singleSignOn,
    disabledAt: user.disabledAt,
    createdAt: user.createdAt,
  };
}

const users = (db: Kysely<Database>) =>
  db
    .selectFrom('users')
    .innerJoin('teams', 'teams.id', 'users.team_id')
    .select(COLUMNS)
    .select((eb) => eb.exists(eb.selectFrom('user_identities').select('user_identities.id').whereRef('user_identities.user_id', '=', 'users.id')).as('linked'));

export async function listUsers(db: Kysely<Database>, teamId: number, page: { afterId?: number; limit: number }): Promise<UserWithHash[]> {
  let query = users(db).where('users.team_id', '=', teamId);
  if (page.afterId !== undefined) query = query.where('users.id', '>', page.afterId);
  return (await query.orderBy('users.id').limit(page.limit).execute()).map(toUser);
}

export async function countUsers(db: Kysely<Database>, teamId: number): Promise<number> {
  const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number | string>().as('n')).where('team_id', '=', teamId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The team's user (undefined when missing or another team's); `lock` holds its row in a transaction. */
export async function findUser(db: Kysely<Database>, teamId: number, id: number, options: { lock?: boolean } = {}): Promise<UserWithHash | undefined> {
  let query = users(db).where('users.team_id', '=', teamId).where('users.id', '=', id);
  if (options.lock && isPostgres(db)) query = query.forUpdate('users');
  const row = await query.executeTakeFirst();
  return row && toUser(row);
}

export async function findUserById(db: Kysely<Database>, id: number): Promise<UserWithHash | undefined> {
  const row = await users(db).where('users.id', '=', id).executeTakeFirst();
  return row && toUser(row);
}

/** Users of that login, in the named team only when `team` is given. */
export async function findUsersByLogin(db: Kysely<Database>, login: string, team?: string): Promise<UserWithHash[]> {
  let query = users(db).where('users.login', '=', login);
  if (team !== undefined) query = query.where('teams.name', '=', team);
  return (await query.orderBy('users.id').limit(20).execute()).map(toUser);
}

/** The team's users whose email is `email` (compared without regard to case). */
export async function findUsersByEmail(db: Kysely<Database>, teamId: number, email: string): Promise<UserWithHash[]> {
  const rows = await users(db)
    .where('users.team_id', '=', teamId)
    .where((eb) => eb(eb.fn('lower', ['users.email']), '=', email.toLowerCase()))
    .orderBy('users.id')
    .limit(2)
    .execute();
  return rows.map(toUser);
}

export async function insertUser(db: Kysely<Database>, user: { teamId: number; login: string; email?: string | null; role: TeamRole }): Promise<number> {
  const row = await db
    .insertInto('users')
    .values({ team_id: user.teamId, login: user.login, email: user.email ?? null, role: user.role, created_at: isoNow() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateUser(
  db: Kysely<Database>,
  id: number,
  patch: { role?: TeamRole; email?: string | null; disabledAt?: string | null; passwordHash?: string },
): Promise<void> {
  const set = {
    ...(patch.role !== undefined ? { role: patch.role } : {}),
    ...(patch.email !== undefined ? { email: patch.email } : {}),
    ...(patch.disabledAt !== undefined ? { disabled_at: patch.disabledAt } : {}),
    ...(patch.passwordHash !== undefined ? { password_hash: patch.passwordHash } : {}),
  };
  if (Object.keys(set).length > 0) await db.updateTable('users').set(set).where('id', '=', id).execute();
  // The sign-in key acts with the role's scope.
  if (patch.role !== undefined) {
    await db.updateTable('api_keys').set({ scope: sessionScopeOf(patch.role), read_only: 0 }).where('user_id', '=', id).where('kind', '=', 'sign-in').execute();
  }
}

/** How many of the team's users hold `role` and are not disabled. */
export async function countActiveWithRole(db: Kysely<Database>, teamId: number, role: TeamRole): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('team_id', '=', teamId)
    .where('role', '=', role)
    .where('disabled_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The user's sign-in key, made on first use. Its digest is of random bytes nobody is given, and the
 * key check never accepts a `sign-in` key anyway: only sessions act through it.
 */
export async function signInKeyOf(db: Kysely<Database>, userId: number, role: TeamRole): Promise<number> {
  const found = await db.selectFrom('api_keys').select('id').where('user_id', '=', userId).where('kind', '=', 'sign-in').executeTakeFirst();
  if (found) return found.id;
  const scope = sessionScopeOf(role);
  const row = await db
    .insertInto('api_keys')
    .values({ user_id: userId, prefix: SIGN_IN_KEY_PREFIX, digest: randomBytes(32).toString('hex'), read_only: 0, scope, kind: 'sign-in', created_at: isoNow() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
