// Browser sessions: a sign-in (an API key, a password, single sign-on, or a one-time link's new
// password) opens a random token that the browser keeps in an HttpOnly cookie. Only the token's
// SHA-256 is stored; the session acts as a key (the one signed in with, or the user's sign-in key:
// see migration 0029_accounts), and ends when it expires, when it is signed out or revoked, when its
// key is revoked, or when its user is disabled.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { StampedCache } from '../db/stamped-cache.ts';
import type { Database } from '../db/types.ts';
import { AppError, notFound } from '../errors.ts';
import * as sessions from '../repositories/sessions.repository.ts';
import type { SessionListing, SessionMethod } from '../repositories/sessions.repository.ts';
import { isTeamAdmin } from '../repositories/users.repository.ts';
import { type Authenticator, type Principal, digestOf } from './keys.service.ts';

/** Live sessions one key may hold; signing in once more ends the oldest. */
const SESSIONS_PER_KEY = 100;
/** How many sessions' answers a SessionAuthenticator keeps. */
const KEPT_SESSIONS = 1000;
/** A token is 32 random bytes in base64url. */
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;
/** The longest User-Agent kept to name a session. */
const USER_AGENT_LENGTH = 200;

export interface OpenedSession {
  token: string;
  expiresAt: string;
}

/** Where a sign-in came from, kept to let its user recognise the session. */
export interface SignInPlace {
  address: string | null;
  userAgent: string | null;
}

/** Opens a session that acts through the key `keyId`. */
export async function openSessionFor(db: Kysely<Database>, keyId: number, method: SessionMethod, ttlMs: number, place: SignInPlace): Promise<OpenedSession> {
  const token = randomBytes(32).toString('base64url');
  const now = new Date();
  const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
  await db.transaction().execute(async (trx) => {
    await sessions.insertSession(trx, {
      keyId,
      digest: digestOf(token),
      createdAt: now.toISOString(),
      expiresAt,
      method,
      address: place.address,
      userAgent: place.userAgent?.slice(0, USER_AGENT_LENGTH) ?? null,
    });
    await sessions.trimSessions(trx, keyId, now.toISOString(), SESSIONS_PER_KEY);
  });
  return { token, expiresAt };
}

/** Opens a session for `key`, which must be an active key: 401 otherwise, as any request with it. */
export async function openSession(db: Kysely<Database>, authenticator: Authenticator, key: string, ttlMs: number, changeStamp: number | undefined, place: SignInPlace = { address: null, userAgent: null }): Promise<OpenedSession> {
  const principal = await authenticator.authenticate(key, changeStamp);
  if (!principal) throw new AppError('UNAUTHORIZED', 'unknown or revoked API key');
  return openSessionFor(db, principal.keyId, 'key', ttlMs, place);
}

export async function closeSession(db: Kysely<Database>, token: string): Promise<void> {
  if (TOKEN_FORM.test(token)) await sessions.deleteSession(db, digestOf(token));
}

export interface SessionPrincipal extends Principal {
  expiresAt: string;
  sessionId: number;
}

/** The sessions of `userId`: the caller's own, or, for a team admin, any user's of the team. */
export async function listSessions(db: Kysely<Database>, principal: Principal, userId: number): Promise<(SessionListing & { current: boolean })[]> {
  await checkSessionAccess(db, principal, userId);
  const current = (principal as Partial<SessionPrincipal>).sessionId;
  const items = await sessions.listUserSessions(db, userId, new Date().toISOString());
  return items.map((item) => ({ ...item, current: item.id === current }));
}

/** Ends a session: one of the caller's own, or, for a team admin, any of the team's. */
export async function revokeSession(db: Kysely<Database>, principal: Principal, id: number): Promise<void> {
  const owner = await sessions.findSessionOwner(db, id);
  if (!owner || owner.teamId !== principal.teamId) throw notFound('session', { sessionId: id });
  await checkSessionAccess(db, principal, owner.userId);
  await sessions.deleteSessionById(db, id);
}

async function checkSessionAccess(_db: Kysely<Database>, principal: Principal, userId: number): Promise<void> {
  if (userId === principal.userId) return;
  if (!isTeamAdmin(principal.role) || principal.scope !== 'admin') throw new AppError('FORBIDDEN', 'only a team admin sees and ends other users’ sessions');
}

/** Finds the owner of a live session; answers are kept like the key check's (see Authenticator). */
export class SessionAuthenticator {
  private readonly owners = new StampedCache<SessionPrincipal | null>(KEPT_SESSIONS);

  constructor(private readonly db: Kysely<Database>) {}

  authenticate(token: string, changeStamp: number | undefined): SessionPrincipal | null | Promise<SessionPrincipal | null> {
    if (!TOKEN_FORM.test(token)) return null;
    const digest = digestOf(token);
    const kept = this.owners.get(changeStamp, digest);
    // A kept session is checked against the clock each time: it may have expired since.
    if (kept !== undefined) return kept && Date.parse(kept.expiresAt) > Date.now() ? kept : null;
    return sessions.findLiveSession(this.db, digest, new Date().toISOString()).then((owner) => {
      const principal = owner && Object.freeze({ ...owner, readOnly: owner.scope === 'read' });
      this.owners.set(changeStamp, digest, principal);
      return principal;
    });
  }
}
