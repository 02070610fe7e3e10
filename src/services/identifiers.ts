// Checks for the two kinds of client-given identifiers the import takes: image hashes and paths.

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A hash is the standard base64 (with padding) of 32 bytes: 44 characters, nothing else. */
export function isValidHash(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 44 || !/^[A-Za-z0-9+/]{43}=$/.test(value)) return false;
  // 43 characters carry 258 bits for 256: the last one's two low bits must be zero, or the same
  // content would have several spellings.
  return BASE64.indexOf(value[42]!) % 4 === 0;
}

export const MAX_PATH_LENGTH = 1024;

/**
 * A path inside an import: relative, normalised, `/`-separated, no `..` or `.` segment, no leading
 * `/`, no backslash, no NUL, no empty segment. Anything else is refused before it reaches storage.
 */
export function isSafeRelativePath(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_PATH_LENGTH) return false;
  if (value.includes('\\') || value.includes('\0') || value.startsWith('/')) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(value)) return false;
  // An empty, `.` or `..` segment; tested without splitting, as an import checks 200,000 paths.
  return !EMPTY_OR_DOT_SEGMENT.test(value);
}

const EMPTY_OR_DOT_SEGMENT = /(?:^|\/)(?:\.{1,2})?(?:\/|$)/;

/**
 * An image name: what the last segment of an import path may be (an import names its images so), so
 * a name given through API v2 is one an import could have given too.
 */
export function isValidImageName(value: unknown): value is string {
  return isSafeRelativePath(value) && !value.includes('/');
}
