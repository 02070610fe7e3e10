// Every /v1 answer (errors included) announces the deprecation: RFC 9745 Deprecation, RFC 8594 Sunset,
// and Link to the successor version and the deprecation notes. The values are configuration.
import type { FastifyInstance } from 'fastify';
import type { DeprecationPolicy } from '../../config.ts';

export function deprecationHeaders(policy: DeprecationPolicy): Record<string, string> {
  return {
    deprecation: `@${Math.floor(policy.deprecatedAt.getTime() / 1000)}`,
    sunset: policy.sunsetAt.toUTCString(),
    link: `<${policy.successorUrl}>; rel="successor-version", <${policy.docsUrl}>; rel="deprecation"`,
  };
}

export const isV1Url = (url: string): boolean => url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');

export function registerDeprecationHeaders(app: FastifyInstance, policy: DeprecationPolicy): void {
  const headers = deprecationHeaders(policy);
  // A callback hook: nothing here waits, and every request passes through it.
  app.addHook('onRequest', (request, reply, done) => {
    if (isV1Url(request.url)) void reply.headers(headers);
    done();
  });
}
