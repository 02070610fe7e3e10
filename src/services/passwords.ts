// Password hashes: scrypt (memory-hard) from node:crypto, a random salt per hash, compared in
// constant time. A hash carries its own parameters (`scrypt$ln=17,r=8,p=1$<salt>$<hash>`, base64url),
// so the defaults can be raised later: a sign-in with a hash made under weaker ones rehashes it.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export interface ScryptCost {
  /** log2 of scrypt's N (CPU and memory cost): memory is 128 × N × r bytes. */
  readonly logN: number;
  readonly r: number;
  readonly p: number;
}

/** 2^17 × 8 × 128 bytes = 128 MiB a hash, OWASP's recommendation for scrypt. */
export const DEFAULT_SCRYPT_COST: ScryptCost = { logN: 17, r: 8, p: 1 };

const SALT_BYTES = 16;
const HASH_BYTES = 32;
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  const N = 2 ** cost.logN;
  // Room for scrypt's own working memory (128 × N × r) and a little more.
  const maxmem = 256 * N * cost.r + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, HASH_BYTES, { N, r: cost.r, p: cost.p, maxmem }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string, cost: ScryptCost = DEFAULT_SCRYPT_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, cost);
  return `scrypt$ln=${cost.logN},r=${cost.r},p=${cost.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

interface ParsedHash {
  cost: ScryptCost;
  salt: Buffer;
  hash: Buffer;
}

function parseHash(stored: string): ParsedHash | null {
  const match = /^scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
  if (!match) return null;
  const cost = { logN: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  if (cost.logN < 1 || cost.logN > 24 || cost.r < 1 || cost.p < 1) return null;
  return { cost, salt: Buffer.from(match[4]!, 'base64url'), hash: Buffer.from(match[5]!, 'base64url') };
}

/** Whether `password` is the one `stored` was made from. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const candidate = await derive(password, parsed.salt, parsed.cost);
  return candidate.length === parsed.hash.length && timingSafeEqual(candidate, parsed.hash);
}

/** The hash was made with less than `cost` asks for: hash the password again when it is next known. */
export function needsRehash(stored: string, cost: ScryptCost = DEFAULT_SCRYPT_COST): boolean {
  const parsed = parseHash(stored);
  return !parsed || parsed.cost.logN < cost.logN || parsed.cost.r < cost.r || parsed.cost.p < cost.p;
}

/**
 * Takes as long as checking a password, for a login that has none (unknown, invited, disabled): the
 * answer's timing does not tell which logins exist.
 */
export async function spendVerifyTime(password: string, cost: ScryptCost): Promise<void> {
  await derive(password, Buffer.alloc(SALT_BYTES), cost);
}
