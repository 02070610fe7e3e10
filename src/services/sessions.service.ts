// Browser sessions: an API key is exchanged once for a random token that the browser keeps in an
// HttpOnly cookie. Only the token's SHA-256 is stored; the session acts as its key (same team, user
// and scope), ends when it expires, when it is signed out, or when the key is revoked.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { StampedCache } from '../db/stamped-cache.ts';
import type { Database } from '../db/types.ts';
import { AppError } from '../errors.ts';
import * as sessions from '../repositories/sessions.repository.ts';
import { type Authenticator, type Principal, digestOf } from './keys.service.ts';

/** Live sessions one key may hold; signing in once more ends the oldest. */
const SESSIONS_PER_KEY = 100;
/** How many sessions' answers a SessionAuthenticator keeps. */
const KEPT_SESSIONS = 1000;
/** A token is 32 random bytes in base64url. */
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

export interface OpenedSession {
  token: string;
  expiresAt: string;
}

/** Opens a session for `key`, which must be an active key: 401 otherwise, as any request with it. */
export async function openSession(db: Kysely<Database>, authenticator: Authenticator, key: string, ttlMs: number, changeStamp: number | undefined): Promise<OpenedSession> {
  const principal = await authenticator.authenticate(key, changeStamp);
  if (!principal) throw new AppError('UNAUTHORIZED', 'unknown or revoked API key');
  const token = randomBytes(32).toString('base64url');
  const now = new Date();
  const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
  await db.transaction().execute(async (trx) => {
    await sessions.insertSession(trx, { keyId: principal.keyId, digest: digestOf(token), createdAt: now.toISOString(), expiresAt });
    await sessions.trimSessions(trx, principal.keyId, now.toISOString(), SESSIONS_PER_KEY);
  });
  return { token, expiresAt };
}

export async function closeSession(db: Kysely<Database>, token: string): Promise<void> {
  if (TOKEN_FORM.test(token)) await sessions.deleteSession(db, digestOf(token));
}

export interface SessionPrincipal extends Principal {
  expiresAt: string;
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
