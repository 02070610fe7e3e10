// One-time links to set a password (see migration 0029_accounts): rows by the digest of their token.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import type { Database } from '../db/types.ts';

export type LinkPurpose = 'invitation' | 'reset';

export interface LiveLink {
  id: number;
  userId: number;
  purpose: LinkPurpose;
  expiresAt: string;
}

/** Stores a new link of the user; the user's links not yet used end with it (the newest one counts). */
export async function replaceLinks(db: Kysely<Database>, link: { userId: number; purpose: LinkPurpose; digest: string; createdBy: number | null; expiresAt: string }): Promise<void> {
  await db.deleteFrom('user_links').where('user_id', '=', link.userId).where('used_at', 'is', null).execute();
  await db
    .insertInto('user_links')
    .values({ user_id: link.userId, purpose: link.purpose, digest: link.digest, created_by: link.createdBy, created_at: isoNow(), expires_at: link.expiresAt })
    .execute();
}

export async function findLiveLink(db: Kysely<Database>, digest: string, now: string): Promise<LiveLink | undefined> {
  const row = await db
    .selectFrom('user_links')
    .select(['id', 'user_id', 'purpose', 'expires_at'])
    .where('digest', '=', digest)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row && { id: row.id, userId: row.user_id, purpose: row.purpose === 'reset' ? 'reset' : 'invitation', expiresAt: row.expires_at };
}

/** Marks the link used; false when it already was (two uses at once: only one wins). */
export async function useLink(db: Kysely<Database>, id: number): Promise<boolean> {
  const result = await db.updateTable('user_links').set({ used_at: isoNow() }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteUnusedLinks(db: Kysely<Database>, userId: number): Promise<void> {
  await db.deleteFrom('user_links').where('user_id', '=', userId).where('used_at', 'is', null).execute();
}
