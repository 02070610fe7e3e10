// The session cookie of the web interface: its name, how it is read from a request, and how it is set
// and cleared. HttpOnly keeps it from the page's scripts; SameSite=Strict keeps other sites' pages
// from sending it; Secure when the request came over HTTPS (directly, or through a trusted proxy).
import type { FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'annostore_session';

/** The session token the request's Cookie header carries, if any. */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function attributes(request: FastifyRequest): string {
  return `Path=/; HttpOnly; SameSite=Strict${request.protocol === 'https' ? '; Secure' : ''}`;
}

export function sessionCookie(request: FastifyRequest, token: string, expiresAt: string): string {
  const maxAge = Math.max(0, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000));
  return `${SESSION_COOKIE}=${token}; Max-Age=${maxAge}; ${attributes(request)}`;
}

export function clearedSessionCookie(request: FastifyRequest): string {
  return `${SESSION_COOKIE}=; Max-Age=0; ${attributes(request)}`;
}

/** The request's Origin header names this server (as the request reached it: scheme and Host). */
export function isSameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  return origin !== undefined && origin === `${request.protocol}://${request.host}`;
}
