// API keys: random, shown once, stored as a SHA-256 digest, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { API_KEY_RULE, isUsableApiKey } from '../api-key-format.ts';
import { StampedCache } from '../db/stamped-cache.ts';
import type { Database } from '../db/types.ts';
import * as teams from '../repositories/teams.repository.ts';
import type { KeyScope } from '../repositories/teams.repository.ts';
import type { TeamRole } from '../repositories/users.repository.ts';

export const DEFAULT_TEAM = 'default';
export const DEFAULT_USER = 'admin';
/** How many leading characters of a key are stored in clear to find its row and to name it. */
const PREFIX_LENGTH = 12;

export interface Principal {
  keyId: number;
  userId: number;
  teamId: number;
  scope: KeyScope;
  /** The scope is `read`: every write is refused. */
  readOnly: boolean;
  /** The key's public prefix (as GET /v2/keys shows it): names the key in logs and the audit trail. */
  keyPrefix: string;
  /** The team role of the key's user. */
  role: TeamRole;
}

export const keyPrefix = (key: string): string => key.slice(0, PREFIX_LENGTH);
export const digestOf = (key: string): string => createHash('sha256').update(key).digest('hex');

/** A new key: `ak_` and 192 random bits in base64url. */
export function generateKey(): string {
  return `ak_${randomBytes(24).toString('base64url')}`;
}

/** Who a new key belongs to, by name, and its scope (`write` unless told). */
export interface KeyOwnerName {
  team: string;
  user: string;
  scope?: KeyScope;
}

export async function registerKey(
  db: Kysely<Database>,
  key: string,
  owner: KeyOwnerName,
): Promise<void> {
  if (!isUsableApiKey(key)) throw new Error(`an API key must be ${API_KEY_RULE}`);
  const teamId = await teams.ensureTeam(db, owner.team);
  const userId = await teams.ensureUser(db, teamId, owner.user);
  // The operator's own command: an admin-scope key makes its user an admin, as keys are bounded by roles.
  if (owner.scope === 'admin') await teams.promoteToAdmin(db, userId);
  await teams.insertKey(db, { userId, prefix: keyPrefix(key), digest: digestOf(key), scope: owner.scope ?? 'write' });
}

export async function createKey(
  db: Kysely<Database>,
  owner: KeyOwnerName,
): Promise<string> {
  const key = generateKey();
  await registerKey(db, key, owner);
  return key;
}

async function findPrincipal(db: Kysely<Database>, prefix: string, digestHex: string): Promise<Principal | null> {
  const digest = Buffer.from(digestHex, 'hex');
  for (const candidate of await teams.findActiveKeys(db, prefix)) {
    if (timingSafeEqual(digest, Buffer.from(candidate.digest, 'hex'))) {
      // Frozen: every request with this key shares the object while it is kept.
      const { keyId, userId, teamId, scope, role } = candidate;
      return Object.freeze({ keyId, userId, teamId, scope, role, readOnly: scope === 'read', keyPrefix: prefix });
    }
  }
  return null;
}

/** How many keys' answers an Authenticator keeps. */
const KEPT_PRINCIPALS = 1000;

/**
 * Finds the owner of an active key. Each key's answer is kept (by its digest, never the key) until the
 * database may have changed (see Db.changeStamp): a key revoked or created by this process counts at
 * once, by another process within a millisecond on SQLite and once its notification arrives on
 * PostgreSQL.
 */
export class Authenticator {
  private readonly principals = new StampedCache<Principal | null>(KEPT_PRINCIPALS);

  constructor(private readonly db: Kysely<Database>) {}

  /** The key's owner or null: at once when kept, otherwise once the database answered. */
  authenticate(key: string, changeStamp: number | undefined): Principal | null | Promise<Principal | null> {
    if (!isUsableApiKey(key)) return null;
    const digest = digestOf(key);
    const kept = this.principals.get(changeStamp, digest);
    if (kept !== undefined) return kept;
    return findPrincipal(this.db, keyPrefix(key), digest).then((principal) => {
      this.principals.set(changeStamp, digest, principal);
      return principal;
    });
  }
}

/**
 * At start: registers ANNOSTORE_API_KEY for the default admin, with the admin scope (idempotent), or, on a database without
 * any key, generates one. Answers a generated key so the caller can print it once.
 */
export async function bootstrapKey(db: Kysely<Database>, configuredKey: string | undefined): Promise<string | null> {
  if (configuredKey) {
    await registerKey(db, configuredKey, { team: DEFAULT_TEAM, user: DEFAULT_USER, scope: 'admin' });
    return null;
  }
  if ((await teams.countKeys(db)) > 0) return null;
  return createKey(db, { team: DEFAULT_TEAM, user: DEFAULT_USER, scope: 'admin' });
}

/** The default admin's user id (team default, login admin), once bootstrapKey has made it. */
export async function defaultAdminId(db: Kysely<Database>): Promise<number> {
  return teams.ensureUser(db, await teams.ensureTeam(db, DEFAULT_TEAM), DEFAULT_USER);
}
