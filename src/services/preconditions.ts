// Entity tags and If-Match. A resource's tag is a digest of its JSON representation, so it changes
// exactly when what a client sees changes, with no version column to keep in step. A service that
// changes one resource reads it, checks the caller's If-Match against it and writes, in one
// transaction that holds the row (lockedRow), so of two edits based on the same tag one wins and the
// other is told, never overwritten silently.
import { createHash } from 'node:crypto';
import type { Kysely, SelectQueryBuilder } from 'kysely';
import { isPostgres } from '../db/dialect.ts';
import { preconditionFailed } from '../errors.ts';

/** A strong entity tag (quoted, as the ETag header carries it) of a representation. */
export function entityTag(representation: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify(representation)).digest('base64url');
  return `"${digest.slice(0, 27)}"`;
}

/**
 * Whether an If-Match value admits the current tag: `*` admits any, a list admits its members. Weak
 * tags (`W/"…"`) never match: If-Match compares strongly (RFC 9110 13.1.1).
 */
export function ifMatchAdmits(ifMatch: string, currentTag: string): boolean {
  const value = ifMatch.trim();
  if (value === '*') return true;
  return value.split(',').some((member) => member.trim() === currentTag);
}

/** Throws 412 PRECONDITION_FAILED when `ifMatch` is given and the representation has changed. */
export function checkIfMatch(currentRepresentation: unknown, ifMatch: string | undefined): void {
  if (ifMatch === undefined) return;
  const current = entityTag(currentRepresentation);
  if (!ifMatchAdmits(ifMatch, current)) {
    throw preconditionFailed('the resource has changed since the ETag given in If-Match', { etag: current });
  }
}

/**
 * The query, holding its rows for the rest of the transaction: `for update` on PostgreSQL. SQLite
 * needs nothing: its transactions begin holding the write lock (create-db.ts).
 */
export function lockedRow<DB, TB extends keyof DB, O>(db: Kysely<DB>, query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  return isPostgres(db) ? query.forUpdate() : query;
}
