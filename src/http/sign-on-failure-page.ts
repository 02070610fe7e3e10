// What a browser sees when single sign-on does not complete: the provider sent it back to
// /v2/session/oidc/callback, and the answer is a refusal. A program gets the problem JSON; a browser
// (it asks for text/html) gets this small page instead, with the same status (so the refusal still
// counts as a failed sign-in), the reason in words, and a way back to the sign-in page. It is served
// by the server, not the web interface's script: the callback's address is no page of the interface.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CONTENT_SECURITY_POLICY, ISOLATION } from './web-app.ts';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Whether the request is a browser's navigation, which reads a page rather than JSON. */
export const wantsPage = (request: FastifyRequest): boolean => (request.headers.accept ?? '').includes('text/html');

export function signOnFailurePage(status: number, reason: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Single sign-on did not complete · Annostore</title>
    <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="/assets/app.css" />
  </head>
  <body>
    <main class="sign-in">
      <form role="alert" aria-labelledby="failure-title">
        <h1 id="failure-title">Single sign-on did not complete</h1>
        <p class="error">${escapeHtml(reason)}</p>
        <p>Nothing was signed in (${status}). Try again, or sign in with your login and password.</p>
        <a class="single-sign-on" href="/sign-in">Back to sign in</a>
      </form>
    </main>
  </body>
</html>
`;
}

export function sendSignOnFailurePage(reply: FastifyReply, status: number, reason: string): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin')
    .headers(ISOLATION)
    .send(signOnFailurePage(status, reason));
}
