// The team's users as an admin manages them: invite (a one-time link to set a password), change a
// role, disable and enable, and send a password reset link. A disabled user's keys and sessions stop
// at once: the key and session checks read `disabled_at`, and their kept answers are dropped on any
// change of the database (Authenticator, SessionAuthenticator).
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../db/dialect.ts';
import type { Database } from '../db/types.ts';
import { AppError, conflict, notFound } from '../errors.ts';
import * as sessions from '../repositories/sessions.repository.ts';
import * as links from '../repositories/user-links.repository.ts';
import type { LinkPurpose } from '../repositories/user-links.repository.ts';
import * as users from '../repositories/users.repository.ts';
import { type TeamRole, type User, isTeamAdmin, publicUser } from '../repositories/users.repository.ts';
import { type Principal, digestOf } from './keys.service.ts';

export interface LinkTtls {
  invitationTtlMs: number;
  resetTtlMs: number;
}

/** A one-time link's token, shown once (only its digest is stored), and what it is for. */
export interface IssuedLink {
  token: string;
  purpose: LinkPurpose;
  expiresAt: string;
}

/** Refuses unless the caller is a team owner or admin acting with the admin scope. */
export function requireUserAdmin(principal: Principal): void {
  if (!isTeamAdmin(principal.role) || principal.scope !== 'admin') {
    throw new AppError('FORBIDDEN', 'this needs a team owner or admin (and, with a key, the admin scope)', { role: principal.role, scope: principal.scope });
  }
}

export async function listUsers(db: Kysely<Database>, teamId: number, request: { afterId?: number; limit: number; count?: boolean }): Promise<{ items: User[]; nextId: number | null; total?: number }> {
  const rows = await users.listUsers(db, teamId, { afterId: request.afterId, limit: request.limit + 1 });
  const items = rows.slice(0, request.limit).map(publicUser);
  const nextId = rows.length > request.limit ? items.at(-1)!.id : null;
  return { items, nextId, ...(request.count ? { total: await users.countUsers(db, teamId) } : {}) };
}

export async function getUser(db: Kysely<Database>, teamId: number, id: number): Promise<User> {
  const user = await users.findUser(db, teamId, id);
  if (!user) throw notFound('user', { userId: id });
  return publicUser(user);
}

/** Issues a new link of the user: the one not yet used before it ends. */
export async function issueLink(db: Kysely<Database>, userId: number, purpose: LinkPurpose, createdBy: number | null, ttls: LinkTtls): Promise<IssuedLink> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + (purpose === 'invitation' ? ttls.invitationTtlMs : ttls.resetTtlMs)).toISOString();
  await links.replaceLinks(db, { userId, purpose, digest: digestOf(token), createdBy, expiresAt });
  return { token, purpose, expiresAt };
}

/** A new user of the caller's team, with an invitation link to set a password. */
export async function inviteUser(
  db: Kysely<Database>,
  principal: Principal,
  request: { login: string; email?: string | null; role?: TeamRole },
  ttls: LinkTtls,
): Promise<{ user: User; link: IssuedLink }> {
  requireUserAdmin(principal);
  const role = request.role ?? 'member';
  if (role === 'owner' && principal.role !== 'owner') throw new AppError('FORBIDDEN', 'only an owner makes another owner');
  try {
    return await db.transaction().execute(async (trx) => {
      const id = await users.insertUser(trx, { teamId: principal.teamId, login: request.login, email: request.email ?? null, role });
      const link = await issueLink(trx, id, 'invitation', principal.userId, ttls);
      return { user: publicUser((await users.findUser(trx, principal.teamId, id))!), link };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`the team already has a user "${request.login}"`, { login: request.login });
    throw error;
  }
}

/**
 * Changes a user's role, email, or state. Nobody changes their own role or disables themselves (a
 * team keeps someone who can manage it); only an owner changes an owner, or makes one.
 */
export async function updateUser(
  db: Kysely<Database>,
  principal: Principal,
  id: number,
  patch: { role?: TeamRole; email?: string | null; disabled?: boolean },
): Promise<User> {
  requireUserAdmin(principal);
  return db.transaction().execute(async (trx) => {
    const user = await users.findUser(trx, principal.teamId, id, { lock: true });
    if (!user) throw notFound('user', { userId: id });
    const changesRole = patch.role !== undefined && patch.role !== user.role;
    if (id === principal.userId && (changesRole || patch.disabled === true)) throw new AppError('FORBIDDEN', 'you cannot change your own role or disable yourself');
    if ((user.role === 'owner' || patch.role === 'owner') && (changesRole || patch.disabled !== undefined) && principal.role !== 'owner') {
      throw new AppError('FORBIDDEN', 'only an owner changes an owner, or makes one');
    }
    const disabledAt = patch.disabled === undefined ? undefined : patch.disabled ? (user.disabledAt ?? new Date().toISOString()) : null;
    await users.updateUser(trx, id, { role: patch.role, email: patch.email, disabledAt });
    if (patch.disabled) {
      // Their sessions end for good (enabling the user again does not bring them back); their keys
      // stop while the user is disabled, and their links end.
      await sessions.deleteUserSessions(trx, id);
      await links.deleteUnusedLinks(trx, id);
    }
    return publicUser((await users.findUser(trx, principal.teamId, id))!);
  });
}

/** A link for the user to set a password: an invitation while they have none, a reset once they have. */
export async function createPasswordLink(db: Kysely<Database>, principal: Principal, id: number, ttls: LinkTtls): Promise<{ user: User; link: IssuedLink }> {
  requireUserAdmin(principal);
  const user = await users.findUser(db, principal.teamId, id);
  if (!user) throw notFound('user', { userId: id });
  if (user.disabledAt !== null) throw conflict('the user is disabled: enable them first', { userId: id });
  if (user.role === 'owner' && principal.role !== 'owner') throw new AppError('FORBIDDEN', 'only an owner resets an owner’s password');
  const link = await issueLink(db, id, user.hasPassword ? 'reset' : 'invitation', principal.userId, ttls);
  return { user: publicUser(user), link };
}
