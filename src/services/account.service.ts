// The caller's own account and keys.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { AppError, notFound } from '../errors.ts';
import * as teamKeys from '../repositories/team-keys.repository.ts';
import type { TeamKey } from '../repositories/team-keys.repository.ts';
import type { KeyScope } from '../repositories/teams.repository.ts';
import * as users from '../repositories/users.repository.ts';
import { type User, isTeamAdmin, publicUser } from '../repositories/users.repository.ts';
import { type Principal, digestOf, generateKey, keyPrefix } from './keys.service.ts';

export async function describeAccount(db: Kysely<Database>, principal: Principal): Promise<{ team: { id: number; name: string }; user: User }> {
  const user = await users.findUser(db, principal.teamId, principal.userId);
  if (!user) throw notFound('user', { userId: principal.userId });
  return { team: { id: user.teamId, name: user.teamName }, user: publicUser(user) };
}

export async function listOwnKeys(db: Kysely<Database>, principal: Principal): Promise<TeamKey[]> {
  return teamKeys.listTeamKeys(db, principal.teamId, { userId: principal.userId, limit: 1000 });
}

/** A key of the caller's own: the admin scope only for a team owner or admin. */
export async function createOwnKey(db: Kysely<Database>, principal: Principal, scope: KeyScope): Promise<TeamKey & { key: string }> {
  if (scope === 'admin' && !isTeamAdmin(principal.role)) throw new AppError('FORBIDDEN', 'a member’s keys read or write; the admin scope is for team owners and admins');
  const key = generateKey();
  const id = await teamKeys.insertTeamKey(db, { userId: principal.userId, prefix: keyPrefix(key), digest: digestOf(key), scope });
  return { ...(await teamKeys.findTeamKey(db, principal.teamId, id))!, key };
}

export async function revokeOwnKey(db: Kysely<Database>, principal: Principal, id: number): Promise<void> {
  const key = await teamKeys.findTeamKey(db, principal.teamId, id);
  if (!key || key.user.id !== principal.userId) throw notFound('key', { keyId: id });
  await teamKeys.revokeTeamKey(db, principal.teamId, id);
}
