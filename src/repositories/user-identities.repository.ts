// Single sign-on accounts linked to users (see migration 0032_user_identities).
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';

export interface UserIdentity {
  id: number;
  userId: number;
  issuer: string;
  subject: string;
  email: string | null;
  createdAt: string;
  lastUsedAt: string;
}

export async function findIdentity(db: Kysely<Database>, issuer: string, subject: string): Promise<UserIdentity | undefined> {
  const row = await db.selectFrom('user_identities').selectAll().where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
  return row && { id: row.id, userId: row.user_id, issuer: row.issuer, subject: row.subject, email: row.email, createdAt: row.created_at, lastUsedAt: row.last_used_at };
}

/** Whether the user is linked to an account of `issuer` already. */
export async function hasIdentityAt(db: Kysely<Database>, userId: number, issuer: string): Promise<boolean> {
  const row = await db.selectFrom('user_identities').select('id').where('user_id', '=', userId).where('issuer', '=', issuer).executeTakeFirst();
  return row !== undefined;
}

export async function insertIdentity(db: Kysely<Database>, identity: { userId: number; issuer: string; subject: string; email: string | null; now: string }): Promise<void> {
  await db
    .insertInto('user_identities')
    .values({ user_id: identity.userId, issuer: identity.issuer, subject: identity.subject, email: identity.email, created_at: identity.now, last_used_at: identity.now })
    .execute();
}

export async function touchIdentity(db: Kysely<Database>, id: number, now: string): Promise<void> {
  await db.updateTable('user_identities').set({ last_used_at: now }).where('id', '=', id).execute();
}
