// The caller's identity (GET /v2/me) and the team's keys as an admin manages them. A key is shown
// whole once, in the answer that creates it; afterwards only its prefix.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { AppError, notFound } from '../errors.ts';
import { isTeamAdmin } from '../repositories/users.repository.ts';
import * as teamKeys from '../repositories/team-keys.repository.ts';
import type { TeamKey } from '../repositories/team-keys.repository.ts';
import * as teams from '../repositories/teams.repository.ts';
import type { KeyScope } from '../repositories/teams.repository.ts';
import { type Principal, digestOf, generateKey, keyPrefix } from './keys.service.ts';
import { checkIfMatch } from './preconditions.ts';

export async function describeCaller(db: Kysely<Database>, principal: Principal) {
  const owner = await teamKeys.describeOwner(db, principal.keyId);
  // Revoked or removed between the key check and now.
  if (!owner) throw notFound('key', { keyId: principal.keyId });
  return owner;
}

export async function listTeamKeys(db: Kysely<Database>, teamId: number, request: { afterId?: number; limit: number; count?: boolean }): Promise<{ items: TeamKey[]; nextId: number | null; total?: number }> {
  const rows = await teamKeys.listTeamKeys(db, teamId, { afterId: request.afterId, limit: request.limit + 1 });
  const items = rows.slice(0, request.limit);
  const nextId = rows.length > request.limit ? items.at(-1)!.id : null;
  return { items, nextId, ...(request.count ? { total: await teamKeys.countTeamKeys(db, teamId) } : {}) };
}

/** A new key of the team for `login` (the caller's own user unless given): its record and, once, the key. */
export async function createTeamKey(db: Kysely<Database>, principal: Principal, request: { scope: KeyScope; user?: string }): Promise<TeamKey & { key: string }> {
  const key = generateKey();
  const id = await db.transaction().execute(async (trx) => {
    const userId = request.user === undefined ? principal.userId : await teams.ensureUser(trx, principal.teamId, request.user);
    // A key does no more than its user's role allows: the admin scope is for owners and admins.
    if (request.scope === 'admin' && !isTeamAdmin(await teams.roleOf(trx, userId))) {
      throw new AppError('FORBIDDEN', 'the admin scope is for a team owner or admin: change the user’s role first (PATCH /v2/users/:id)', { pointer: '/scope' });
    }
    return teamKeys.insertTeamKey(trx, { userId, prefix: keyPrefix(key), digest: digestOf(key), scope: request.scope });
  });
  return { ...(await teamKeys.findTeamKey(db, principal.teamId, id))!, key };
}

/** The team's key as the list shows it, or a 404 (missing, or another team's). */
export async function getTeamKey(db: Kysely<Database>, teamId: number, id: number): Promise<TeamKey> {
  const key = await teamKeys.findTeamKey(db, teamId, id);
  if (!key) throw notFound('key', { keyId: id });
  return key;
}

/**
 * Revokes the team's key. The next request with it is refused: the key check's kept answers are
 * dropped on any change of the database (Authenticator). With `ifMatch`, only while the key is still
 * the version that tag names (checked and revoked in one transaction that holds the row).
 */
export async function revokeTeamKey(db: Kysely<Database>, teamId: number, id: number, ifMatch?: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const current = await teamKeys.findTeamKey(trx, teamId, id, { lock: true });
    if (!current) throw notFound('key', { keyId: id });
    checkIfMatch(current, ifMatch);
    await teamKeys.revokeTeamKey(trx, teamId, id);
  });
}
