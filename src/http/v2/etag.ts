// ETag and conditional requests on the HTTP side: every single resource v2 answers carries its entity
// tag (services/preconditions.ts); a GET whose If-None-Match names it is a 304 without a body.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { entityTag } from '../../services/preconditions.ts';

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** The If-Match header, to hand to a service's change. */
export const ifMatchOf = (request: FastifyRequest): string | undefined => header(request, 'if-match');

/** Whether If-None-Match names `tag` (weak comparison, RFC 9110 13.1.2), or is `*`. */
export function ifNoneMatchHits(request: FastifyRequest, tag: string): boolean {
  const value = header(request, 'if-none-match');
  if (value === undefined) return false;
  if (value.trim() === '*') return true;
  const opaque = (member: string) => member.trim().replace(/^W\//, '');
  return value.split(',').some((member) => opaque(member) === opaque(tag));
}

/** Sends a representation with its ETag, or a 304 when the client already holds it. */
export function sendTagged(request: FastifyRequest, reply: FastifyReply, representation: unknown, status = 200): FastifyReply {
  const tag = entityTag(representation);
  void reply.header('etag', tag);
  if (status === 200 && (request.method === 'GET' || request.method === 'HEAD') && ifNoneMatchHits(request, tag)) {
    return reply.code(304).send();
  }
  return reply.code(status).send(representation);
}
