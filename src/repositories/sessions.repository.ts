// Browser sessions (see migrations 0013_sessions and 0029_accounts): rows by the digest of their token.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { type KeyScope, toScope } from './teams.repository.ts';
import { type TeamRole, toRole } from './users.repository.ts';

export interface SessionOwner {
  sessionId: number;
  keyId: number;
  userId: number;
  teamId: number;
  scope: KeyScope;
  role: TeamRole;
  keyPrefix: string;
  expiresAt: string;
}

/** How a session was opened: with a key, a password, single sign-on, or a one-time link's new password. */
export type SessionMethod = 'key' | 'password' | 'oidc' | 'link';

export interface NewSession {
  keyId: number;
  digest: string;
  createdAt: string;
  expiresAt: string;
  method: SessionMethod;
  address: string | null;
  userAgent: string | null;
}

export interface SessionListing {
  id: number;
  method: SessionMethod;
  keyPrefix: string;
  createdAt: string;
  expiresAt: string;
  address: string | null;
  userAgent: string | null;
}

export async function insertSession(db: Kysely<Database>, session: NewSession): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      key_id: session.keyId,
      digest: session.digest,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
      method: session.method,
      address: session.address,
      user_agent: session.userAgent,
    })
    .execute();
}

/** The session's owner while the session has not expired, its key is not revoked and its user not disabled. */
export async function findLiveSession(db: Kysely<Database>, digest: string, now: string): Promise<SessionOwner | null> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('api_keys', 'api_keys.id', 'sessions.key_id')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select(['sessions.id as sessionId', 'api_keys.id as keyId', 'api_keys.prefix', 'api_keys.scope', 'users.id as userId', 'users.team_id', 'users.role', 'sessions.expires_at'])
    .where('sessions.digest', '=', digest)
    .where('sessions.expires_at', '>', now)
    .where('api_keys.revoked_at', 'is', null)
    .where('users.disabled_at', 'is', null)
    .executeTakeFirst();
  return row
    ? { sessionId: row.sessionId, keyId: row.keyId, userId: row.userId, teamId: row.team_id, scope: toScope(row.scope), role: toRole(row.role), keyPrefix: row.prefix, expiresAt: row.expires_at }
    : null;
}

export async function deleteSession(db: Kysely<Database>, digest: string): Promise<void> {
  await db.deleteFrom('sessions').where('digest', '=', digest).execute();
}

/** Removes the key's expired sessions and, past `keep` live ones, its oldest. */
export async function trimSessions(db: Kysely<Database>, keyId: number, now: string, keep: number): Promise<void> {
  await db.deleteFrom('sessions').where('key_id', '=', keyId).where('expires_at', '<=', now).execute();
  const kept = await db.selectFrom('sessions').select('id').where('key_id', '=', keyId).orderBy('id', 'desc').limit(1).offset(keep - 1).executeTakeFirst();
  if (kept) await db.deleteFrom('sessions').where('key_id', '=', keyId).where('id', '<', kept.id).execute();
}

const toMethod = (text: string): SessionMethod => (['key', 'password', 'oidc', 'link'].includes(text) ? (text as SessionMethod) : 'key');

/** The user's live sessions (through any of the user's keys), newest first. */
export async function listUserSessions(db: Kysely<Database>, userId: number, now: string): Promise<SessionListing[]> {
  const rows = await db
    .selectFrom('sessions')
    .innerJoin('api_keys', 'api_keys.id', 'sessions.key_id')
    .select(['sessions.id', 'sessions.method', 'api_keys.prefix', 'sessions.created_at', 'sessions.expires_at', 'sessions.address', 'sessions.user_agent'])
    .where('api_keys.user_id', '=', userId)
    .where('api_keys.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', now)
    .orderBy('sessions.id', 'desc')
    .limit(1000)
    .execute();
  return rows.map((r) => ({ id: r.id, method: toMethod(r.method), keyPrefix: r.prefix, createdAt: r.created_at, expiresAt: r.expires_at, address: r.address, userAgent: r.user_agent }));
}

/** Whose session `id` is: its user and team. */
export async function findSessionOwner(db: Kysely<Database>, id: number): Promise<{ userId: number; teamId: number } | undefined> {
  return db
    .selectFrom('sessions')
    .innerJoin('api_keys', 'api_keys.id', 'sessions.key_id')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select(['users.id as userId', 'users.team_id as teamId'])
    .where('sessions.id', '=', id)
    .executeTakeFirst();
}

export async function deleteSessionById(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** Ends every session of the user, but `exceptId`'s when given. */
export async function deleteUserSessions(db: Kysely<Database>, userId: number, exceptId?: number): Promise<void> {
  let query = db.deleteFrom('sessions').where('key_id', 'in', db.selectFrom('api_keys').select('id').where('user_id', '=', userId));
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  await query.execute();
}
