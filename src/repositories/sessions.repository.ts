// Browser sessions (see migration 0013_sessions): rows by the digest of their token.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { type KeyScope, toScope } from './teams.repository.ts';

export interface SessionOwner {
  keyId: number;
  userId: number;
  teamId: number;
  scope: KeyScope;
  keyPrefix: string;
  expiresAt: string;
}

export async function insertSession(db: Kysely<Database>, session: { keyId: number; digest: string; createdAt: string; expiresAt: string }): Promise<void> {
  await db
    .insertInto('sessions')
    .values({ key_id: session.keyId, digest: session.digest, created_at: session.createdAt, expires_at: session.expiresAt })
    .execute();
}

/** The session's owner while the session has not expired and its key is not revoked. */
export async function findLiveSession(db: Kysely<Database>, digest: string, now: string): Promise<SessionOwner | null> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('api_keys', 'api_keys.id', 'sessions.key_id')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select(['api_keys.id as keyId', 'api_keys.prefix', 'api_keys.scope', 'users.id as userId', 'users.team_id', 'sessions.expires_at'])
    .where('sessions.digest', '=', digest)
    .where('sessions.expires_at', '>', now)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
  return row ? { keyId: row.keyId, userId: row.userId, teamId: row.team_id, scope: toScope(row.scope), keyPrefix: row.prefix, expiresAt: row.expires_at } : null;
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
