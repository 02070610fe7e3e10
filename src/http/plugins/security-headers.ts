// Headers every answer carries, whatever route, error or file it is. `nosniff`: a browser takes the
// Content-Type as given and never guesses a script or a page from the bytes of an uploaded image,
// model weights or an archive.
import type { FastifyInstance } from 'fastify';

export const NOSNIFF = { 'x-content-type-options': 'nosniff' } as const;

export function registerSecurityHeaders(app: FastifyInstance): void {
  // onSend sees every answer Fastify sends: routes, errors, 404s, files, router errors; an answer
  // taken over from Fastify (an event stream) sets it itself.
  app.addHook('onSend', (_request, reply, payload, done) => {
    void reply.headers(NOSNIFF);
    done(null, payload);
  });
}
