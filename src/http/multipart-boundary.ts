// The boundary parameter of a multipart/form-data Content-Type. RFC 2046 allows 1 to 70 characters; an
// empty one would still let the parser run, cut the body at arbitrary places and drop every part.
import { type AppError, validation } from '../errors.ts';

const MAX_BOUNDARY = 70;

/** The boundary a Content-Type header names, quoted or not; null when it names none. */
export function multipartBoundary(contentType: string | undefined): string | null {
  const match = /;\s*boundary\*?\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  return match ? (match[1] ?? match[2] ?? '') : null;
}

export const unusableBoundary = (): AppError =>
  validation(`a multipart/form-data Content-Type needs a boundary parameter of 1 to ${MAX_BOUNDARY} characters`, { in: 'headers', pointer: '/content-type' });

/** Throws the contract's VALIDATION unless the header names a boundary of 1 to 70 characters. */
export function checkMultipartBoundary(contentType: string | undefined): void {
  const boundary = multipartBoundary(contentType);
  if (boundary === null || boundary.length === 0 || boundary.length > MAX_BOUNDARY) throw unusableBoundary();
}
