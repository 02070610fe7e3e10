// Signing in as a person: a login and a password, a one-time link's new password, and changing one's
// own password. Each answers the key the new session acts through (the user's sign-in key).
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { AppError, validation } from '../errors.ts';
import * as sessions from '../repositories/sessions.repository.ts';
import * as links from '../repositories/user-links.repository.ts';
import type { LinkPurpose } from '../repositories/user-links.repository.ts';
import * as users from '../repositories/users.repository.ts';
import type { UserWithHash } from '../repositories/users.repository.ts';
import { digestOf } from './keys.service.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, type ScryptCost, hashPassword, needsRehash, spendVerifyTime, verifyPassword } from './passwords.ts';

const REFUSED = 'unknown login, wrong password, or a disabled user';
/** A link's token: 32 random bytes in base64url. */
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

export interface SignedInUser {
  userId: number;
  teamId: number;
  keyId: number;
}

/** Checks a new password against the few rules that hold for every user. */
export function checkNewPassword(password: string, login: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw validation(`a password has at least ${PASSWORD_MIN_LENGTH} characters`, { in: 'body', pointer: '/password' });
  if (password.length > PASSWORD_MAX_LENGTH) throw validation(`a password has at most ${PASSWORD_MAX_LENGTH} characters`, { in: 'body', pointer: '/password' });
  if (password.toLowerCase() === login.toLowerCase()) throw validation('a password must not be the login', { in: 'body', pointer: '/password' });
}

/**
 * The user whose login and password these are. The same login may be in several teams: `team` names
 * one; without it, the one user of that login whose password matches. One answer for every refusal
 * (unknown login, wrong password, no password yet, disabled), in about the same time.
 */
export async function signInWithPassword(db: Kysely<Database>, request: { login: string; password: string; team?: string }, cost: ScryptCost): Promise<SignedInUser> {
  const candidates = (await users.findUsersByLogin(db, request.login, request.team)).filter((u) => u.passwordHash !== null && u.disabledAt === null);
  if (candidates.length === 0) {
    await spendVerifyTime(request.password, cost);
    throw new AppError('UNAUTHORIZED', REFUSED);
  }
  const matching: UserWithHash[] = [];
  for (const candidate of candidates) if (await verifyPassword(request.password, candidate.passwordHash!)) matching.push(candidate);
  if (matching.length === 0) throw new AppError('UNAUTHORIZED', REFUSED);
  if (matching.length > 1) throw new AppError('UNAUTHORIZED', 'this login and password are in more than one team: name the team', { pointer: '/team' });
  const user = matching[0]!;
  // Parameters raised since the hash was made: the password is known now, so hash it again.
  if (needsRehash(user.passwordHash!, cost)) await users.updateUser(db, user.id, { passwordHash: await hashPassword(request.password, cost) });
  return { userId: user.id, teamId: user.teamId, keyId: await users.signInKeyOf(db, user.id, user.role) };
}

export interface LinkInfo {
  purpose: LinkPurpose;
  login: string;
  team: string;
  expiresAt: string;
}

async function liveLinkUser(db: Kysely<Database>, token: string): Promise<{ link: links.LiveLink; user: UserWithHash }> {
  const gone = () => new AppError('NOT_FOUND', 'this link is unknown, used, replaced by a newer one, or expired: ask your admin for a new one');
  if (!TOKEN_FORM.test(token)) throw gone();
  const link = await links.findLiveLink(db, digestOf(token), new Date().toISOString());
  if (!link) throw gone();
  const user = await users.findUserById(db, link.userId);
  if (!user || user.disabledAt !== null) throw gone();
  return { link, user };
}

/** What a link is for and whose it is, to show before the password is chosen. */
export async function describeLink(db: Kysely<Database>, token: string): Promise<LinkInfo> {
  const { link, user } = await liveLinkUser(db, token);
  return { purpose: link.purpose, login: user.login, team: user.teamName, expiresAt: link.expiresAt };
}

/** Sets the link's user's password and uses the link up; the user's other sessions end on a reset. */
export async function usePasswordLink(db: Kysely<Database>, token: string, password: string, cost: ScryptCost): Promise<SignedInUser> {
  const { link, user } = await liveLinkUser(db, token);
  checkNewPassword(password, user.login);
  const hash = await hashPassword(password, cost);
  return db.transaction().execute(async (trx) => {
    if (!(await links.useLink(trx, link.id))) throw new AppError('NOT_FOUND', 'this link was used just now');
    await users.updateUser(trx, user.id, { passwordHash: hash });
    await sessions.deleteUserSessions(trx, user.id);
    return { userId: user.id, teamId: user.teamId, keyId: await users.signInKeyOf(trx, user.id, user.role) };
  });
}

/**
 * Changes the caller's own password: the current one is asked for when there is one. The user's other
 * sessions end (the one asking, `keepSessionId`, stays).
 */
export async function changeOwnPassword(
  db: Kysely<Database>,
  userId: number,
  request: { currentPassword?: string; password: string },
  cost: ScryptCost,
  keepSessionId: number | undefined,
): Promise<void> {
  const user = await users.findUserById(db, userId);
  if (!user) throw new AppError('UNAUTHORIZED', 'the user is gone');
  if (user.passwordHash !== null) {
    if (request.currentPassword === undefined) throw validation('give the current password', { in: 'body', pointer: '/currentPassword' });
    if (!(await verifyPassword(request.currentPassword, user.passwordHash))) throw new AppError('FORBIDDEN', 'the current password is wrong', { pointer: '/currentPassword' });
  }
  checkNewPassword(request.password, user.login);
  const hash = await hashPassword(request.password, cost);
  await db.transaction().execute(async (trx) => {
    await users.updateUser(trx, userId, { passwordHash: hash });
    await sessions.deleteUserSessions(trx, userId, keepSessionId);
  });
}
