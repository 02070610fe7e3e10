// Checks for the two kinds of client-given identifiers the import takes: image hashes and paths.

/** A hash is the standard base64 (with padding) of 32 bytes: 44 characters, nothing else. */
export function isValidHash(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 44 || !/^[A-Za-z0-9+/]{43}=$/.test(value)) return false;
  // Reject non-canonical encodings (stray bits in the last character) so one content has one hash.
  return Buffer.from(value, 'base64').toString('base64') === value;
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
  return value.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
