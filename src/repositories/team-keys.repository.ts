// A team's API keys as the team manages them (GET/POST/DELETE /v2/keys), and who a key belongs to.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import { isPostgres } from '../db/dialect.ts';
import type { Database } from '../db/types.ts';
import { type KeyScope, toScope } from './teams.repository.ts';
import { type TeamRole, toRole } from './users.repository.ts';

export interface TeamKey {
  id: number;
  prefix: string;
  scope: KeyScope;
  user: { id: number; login: string };
  createdAt: string;
  revokedAt: string | null;
}

function teamKeys(db: Kysely<Database>, teamId: number) {
  return db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select(['api_keys.id', 'api_keys.prefix', 'api_keys.scope', 'users.id as userId', 'users.login', 'api_keys.created_at', 'api_keys.revoked_at'])
    .where('users.team_id', '=', teamId)
    .where('api_keys.kind', '=', 'api');
}

type TeamKeyRow = { id: number; prefix: string; scope: string; userId: number; login: string; created_at: string; revoked_at: string | null };

const toTeamKey = (r: TeamKeyRow): TeamKey => ({
  id: r.id,
  prefix: r.prefix,
  scope: toScope(r.scope),
  user: { id: r.userId, login: r.login },
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/** The team's keys (revoked ones too) in id order, after `afterId`; only `userId`'s when given. */
export async function listTeamKeys(db: Kysely<Database>, teamId: number, page: { afterId?: number; limit: number; userId?: number }): Promise<TeamKey[]> {
  let query = teamKeys(db, teamId);
  if (page.userId !== undefined) query = query.where('users.id', '=', page.userId);
  if (page.afterId !== undefined) query = query.where('api_keys.id', '>', page.afterId);
  return (await query.orderBy('api_keys.id').limit(page.limit).execute()).map(toTeamKey);
}

export async function countTeamKeys(db: Kysely<Database>, teamId: number, userId?: number): Promise<number> {
  let query = db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('users.team_id', '=', teamId)
    .where('api_keys.kind', '=', 'api');
  if (userId !== undefined) query = query.where('users.id', '=', userId);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The team's key, or undefined when it is missing or another team's. `lock`: inside a transaction,
 * holds the key's row until it ends (PostgreSQL `for update`; SQLite's transactions hold the write
 * lock from their start).
 */
export async function findTeamKey(db: Kysely<Database>, teamId: number, id: number, options: { lock?: boolean } = {}): Promise<TeamKey | undefined> {
  let query = teamKeys(db, teamId).where('api_keys.id', '=', id);
  if (options.lock && isPostgres(db)) query = query.forUpdate('api_keys');
  const row = await query.executeTakeFirst();
  return row && toTeamKey(row);
}

export async function insertTeamKey(db: Kysely<Database>, key: { userId: number; prefix: string; digest: string; scope: KeyScope }): Promise<number> {
  const row = await db
    .insertInto('api_keys')
    .values({ user_id: key.userId, prefix: key.prefix, digest: key.digest, read_only: key.scope === 'read' ? 1 : 0, scope: key.scope, created_at: isoNow() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Revokes the team's key if it is still active; answers whether the key is the team's at all. */
export async function revokeTeamKey(db: Kysely<Database>, teamId: number, id: number): Promise<boolean> {
  if (!(await findTeamKey(db, teamId, id))) return false;
  await db.updateTable('api_keys').set({ revoked_at: isoNow() }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  return true;
}

/** The names behind a principal: its team, user and key. */
export async function describeOwner(
  db: Kysely<Database>,
  keyId: number,
): Promise<{ team: { id: number; name: string }; user: { id: number; login: string; role: TeamRole }; key: { id: number; prefix: string; scope: KeyScope } } | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .innerJoin('teams', 'teams.id', 'users.team_id')
    .select(['teams.id as teamId', 'teams.name', 'users.id as userId', 'users.login', 'users.role', 'api_keys.id as keyId', 'api_keys.prefix', 'api_keys.scope'])
    .where('api_keys.id', '=', keyId)
    .executeTakeFirst();
  return (
    row && {
      team: { id: row.teamId, name: row.name },
      user: { id: row.userId, login: row.login, role: toRole(row.role) },
      key: { id: row.keyId, prefix: row.prefix, scope: toScope(row.scope) },
    }
  );
}
