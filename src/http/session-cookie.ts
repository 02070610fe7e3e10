// The session cookie of the web interface: its name, how it is read from a request, and how it is set
// and cleared. HttpOnly keeps it from the page's scripts; SameSite=Strict keeps other sites' pages
// from sending it; Secure when the request came over HTTPS (directly, or through a trusted proxy).
// Over HTTPS its name takes the __Host- prefix: a browser then keeps it only as Secure, for Path=/
// and without Domain, so neither a page of a sibling domain nor one served over plain HTTP can set
// or overwrite it. Both names are read, so that a session opened before the prefix still holds.
import type { FastifyRequest } from 'fastify';

/** The cookie's name over plain HTTP (and over HTTPS before the prefix). */
export const SESSION_COOKIE = 'annostore_session';
/** Its name over HTTPS. */
export const HOST_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

const overHttps = (request: FastifyRequest): boolean => request.protocol === 'https';

/** The value of the cookie `name` the request's Cookie header carries, if any: the __Host- one first. */
function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  let plain: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const found = part.slice(0, eq).trim();
    if (found === `__Host-${name}`) return part.slice(eq + 1).trim();
    if (found === name) plain ??= part.slice(eq + 1).trim();
  }
  return plain;
}

/** The session token the request's Cookie header carries, if any: the __Host- one first. */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  return cookieOf(request, SESSION_COOKIE);
}

function attributes(request: FastifyRequest): string {
  return `Path=/; HttpOnly; SameSite=Strict${overHttps(request) ? '; Secure' : ''}`;
}

/** The Set-Cookie values of a sign-in: over HTTPS the prefixed cookie, and the plain one cleared. */
export function sessionCookie(request: FastifyRequest, token: string, expiresAt: string): string[] {
  const maxAge = Math.max(0, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000));
  if (!overHttps(request)) return [`${SESSION_COOKIE}=${token}; Max-Age=${maxAge}; ${attributes(request)}`];
  return [`${HOST_SESSION_COOKIE}=${token}; Max-Age=${maxAge}; ${attributes(request)}`, `${SESSION_COOKIE}=; Max-Age=0; ${attributes(request)}`];
}

/** The Set-Cookie values of a sign-out: every name the session may have been kept under here. */
export function clearedSessionCookie(request: FastifyRequest): string[] {
  const names = overHttps(request) ? [SESSION_COOKIE, HOST_SESSION_COOKIE] : [SESSION_COOKIE];
  return names.map((name) => `${name}=; Max-Age=0; ${attributes(request)}`);
}

/** The request's Origin header names this server (as the request reached it: scheme and Host). */
export function isSameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  return origin !== undefined && origin === `${request.protocol}://${request.host}`;
}

/**
 * The cookie that carries a single sign-on attempt (its state, nonce and PKCE verifier) from the
 * redirect to the provider to the return from it. SameSite=Lax, not Strict: the return is a
 * navigation that the provider's page starts, and a Strict cookie would not come with it.
 */
export const SIGN_IN_ATTEMPT_COOKIE = 'annostore_oidc';

export function signInAttemptOf(request: FastifyRequest): string | undefined {
  return cookieOf(request, SIGN_IN_ATTEMPT_COOKIE);
}

function attemptCookie(request: FastifyRequest, value: string, maxAge: number): string {
  const name = overHttps(request) ? `__Host-${SIGN_IN_ATTEMPT_COOKIE}` : SIGN_IN_ATTEMPT_COOKIE;
  return `${name}=${value}; Max-Age=${maxAge}; Path=/; HttpOnly; SameSite=Lax${overHttps(request) ? '; Secure' : ''}`;
}

export function signInAttemptCookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  return attemptCookie(request, value, maxAgeSeconds);
}

export function clearedSignInAttemptCookie(request: FastifyRequest): string {
  return attemptCookie(request, '', 0);
}
