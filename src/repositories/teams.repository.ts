// Teams, users and API keys.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import type { Database } from '../db/types.ts';
import { type TeamRole, toRole } from './team-roles.ts';

/** What a key may do: read; read and write; and, for `admin`, manage the team's keys too. */
export type KeyScope = 'read' | 'write' | 'admin';

export const KEY_SCOPES: readonly KeyScope[] = ['read', 'write', 'admin'];

export const toScope = (text: string): KeyScope => (KEY_SCOPES.includes(text as KeyScope) ? (text as KeyScope) : 'read');

export interface KeyOwner {
  keyId: number;
  digest: string;
  userId: number;
  teamId: number;
  scope: KeyScope;
  role: TeamRole;
}

export interface KeyListing {
  prefix: string;
  team: string;
  user: string;
  scope: KeyScope;
  createdAt: string;
  revokedAt: string | null;
}

export async function ensureTeam(db: Kysely<Database>, name: string): Promise<number> {
  await db.insertInto('teams').values({ name, created_at: isoNow() }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const row = await db.selectFrom('teams').select('id').where('name', '=', name).executeTakeFirstOrThrow();
  return row.id;
}

/** The id of the team of that name, if there is one. */
export async function findTeamId(db: Kysely<Database>, name: string): Promise<number | undefined> {
  const row = await db.selectFrom('teams').select('id').where('name', '=', name).executeTakeFirst();
  return row?.id;
}

/** The team's user of that login, made when missing: a team's first user is its owner, a later one a member. */
export async function ensureUser(db: Kysely<Database>, teamId: number, login: string): Promise<number> {
  const first = !(await db.selectFrom('users').select('id').where('team_id', '=', teamId).limit(1).executeTakeFirst());
  await db
    .insertInto('users')
    .values({ team_id: teamId, login, role: first ? 'owner' : 'member', created_at: isoNow() })
    .onConflict((oc) => oc.columns(['team_id', 'login']).doNothing())
    .execute();
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('team_id', '=', teamId)
    .where('login', '=', login)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Makes a member an admin (an owner or admin stays as they are): an admin-scope key needs the role. */
export async function promoteToAdmin(db: Kysely<Database>, userId: number): Promise<void> {
  await db.updateTable('users').set({ role: 'admin' }).where('id', '=', userId).where('role', '=', 'member').execute();
}

/** The user's team role, by id. */
export async function roleOf(db: Kysely<Database>, userId: number): Promise<TeamRole> {
  const row = await db.selectFrom('users').select('role').where('id', '=', userId).executeTakeFirstOrThrow();
  return toRole(row.role);
}

export async function insertKey(
  db: Kysely<Database>,
  key: { userId: number; prefix: string; digest: string; scope: KeyScope },
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      user_id: key.userId,
      prefix: key.prefix,
      digest: key.digest,
      read_only: key.scope === 'read' ? 1 : 0,
      scope: key.scope,
      created_at: isoNow(),
    })
    .onConflict((oc) => oc.column('digest').doNothing())
    .execute();
}

/**
 * Active keys that start with `prefix`, of users who are not disabled: the caller compares digests
 * itself, in constant time. Sign-in keys are never among them (only sessions act through those).
 */
export async function findActiveKeys(db: Kysely<Database>, prefix: string): Promise<KeyOwner[]> {
  const rows = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select(['api_keys.id as keyId', 'api_keys.digest', 'api_keys.scope', 'users.id as userId', 'users.team_id', 'users.role'])
    .where('api_keys.prefix', '=', prefix)
    .where('api_keys.revoked_at', 'is', null)
    .where('api_keys.kind', '=', 'api')
    .where('users.disabled_at', 'is', null)
    .execute();
  return rows.map((r) => ({ keyId: r.keyId, digest: r.digest, userId: r.userId, teamId: r.team_id, scope: toScope(r.scope), role: toRole(r.role) }));
}

export async function countKeys(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number | string>().as('n')).where('kind', '=', 'api').executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function countAllUsers(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function listKeys(db: Kysely<Database>): Promise<KeyListing[]> {
  const rows = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .innerJoin('teams', 'teams.id', 'users.team_id')
    .select(['api_keys.prefix', 'teams.name as team', 'users.login as user', 'api_keys.scope', 'api_keys.created_at', 'api_keys.revoked_at'])
    .where('api_keys.kind', '=', 'api')
    .orderBy('api_keys.id')
    .execute();
  return rows.map((r) => ({
    prefix: r.prefix,
    team: r.team,
    user: r.user,
    scope: toScope(r.scope),
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  }));
}

/** Revokes every active key whose prefix starts with `prefix`; answers how many. */
export async function revokeKeys(db: Kysely<Database>, prefix: string): Promise<number> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: isoNow() })
    .where('prefix', '=', prefix)
    .where('revoked_at', 'is', null)
    .where('kind', '=', 'api')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
