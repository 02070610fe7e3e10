// The one byte range of a `Range` header (RFC 9110 §14), against a representation of `size` bytes.
// Several ranges are answered whole (a server may ignore Range), as is a range whose If-Range names
// another version.

/**
 * The range to send, `unsatisfiable` (416), or null to send everything: no header, a header this
 * server does not honour (other units, several ranges, malformed), or an If-Range that does not match.
 */
export function parseRange(header: string | undefined, size: number, ifRange: string | undefined, etag: string): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  if (ifRange !== undefined && ifRange !== etag) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return null;
  if (first === '') {
    // A suffix: the last N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
