// Where a one-time link points: the web interface's page that sets a password. The token rides in
// the fragment, which browsers never send to a server: it stays out of request logs and proxies.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

export const PASSWORD_PAGE = '/set-password';

/** The origin users reach the server at: PUBLIC_URL when set, else the request's own. */
export function publicOrigin(config: Config, request: FastifyRequest): string {
  return config.accounts.publicUrl ?? `${request.protocol}://${request.host}`;
}

export function passwordLinkUrl(origin: string, token: string): string {
  return `${origin}${PASSWORD_PAGE}#${token}`;
}
