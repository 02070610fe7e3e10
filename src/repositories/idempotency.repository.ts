// The answers kept for Idempotency-Key retries (see http/v2/idempotency.ts).
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../db/dialect.ts';
import type { Database } from '../db/types.ts';

export interface KeptAnswer {
  fingerprint: string;
  /** Null while the first request is still being answered. */
  status: number | null;
  headers: Record<string, string>;
  body: string;
  createdAt: string;
  expiresAt: string;
}

export interface RequestKey {
  keyId: number;
  idempotencyKey: string;
}

/** Claims the key for a first request; false when a row for it exists already. */
export async function claim(db: Kysely<Database>, key: RequestKey, fingerprint: string, now: Date, lifetimeMs: number): Promise<boolean> {
  try {
    await db
      .insertInto('idempotent_requests')
      .values({
        key_id: key.keyId,
        idempotency_key: key.idempotencyKey,
        fingerprint,
        status: null,
        headers: null,
        body: null,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + lifetimeMs).toISOString(),
      })
      .execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

export async function find(db: Kysely<Database>, key: RequestKey): Promise<KeptAnswer | undefined> {
  const row = await db
    .selectFrom('idempotent_requests')
    .select(['fingerprint', 'status', 'headers', 'body', 'created_at', 'expires_at'])
    .where('key_id', '=', key.keyId)
    .where('idempotency_key', '=', key.idempotencyKey)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    fingerprint: row.fingerprint,
    status: row.status,
    headers: row.headers ? (JSON.parse(row.headers) as Record<string, string>) : {},
    body: row.body ?? '',
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

/** Keeps the first answer for the key's retries. */
export async function keep(db: Kysely<Database>, key: RequestKey, answer: { status: number; headers: Record<string, string>; body: string }): Promise<void> {
  await db
    .updateTable('idempotent_requests')
    .set({ status: answer.status, headers: JSON.stringify(answer.headers), body: answer.body })
    .where('key_id', '=', key.keyId)
    .where('idempotency_key', '=', key.idempotencyKey)
    .execute();
}

/** Lets the key go: the first request failed, and a retry may run it again. */
export async function release(db: Kysely<Database>, key: RequestKey): Promise<void> {
  await db.deleteFrom('idempotent_requests').where('key_id', '=', key.keyId).where('idempotency_key', '=', key.idempotencyKey).execute();
}

/** Removes what has expired. */
export async function sweepExpired(db: Kysely<Database>, now: Date): Promise<void> {
  await db.deleteFrom('idempotent_requests').where('expires_at', '<', now.toISOString()).execute();
}
