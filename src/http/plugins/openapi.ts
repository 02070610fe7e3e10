// The OpenAPI documents are generated from the route schemas: /openapi.json for v1, /v2/openapi.json
// (OpenAPI 3.1, also at /v2) for v2; /docs renders either.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

interface Document {
  paths?: Record<string, unknown>;
  components?: Record<string, unknown>;
  [member: string]: unknown;
}

/** The document's paths under `prefix` only. */
function pathsUnder(document: Document, prefix: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(document.paths ?? {}).filter(([path]) => path.startsWith(prefix)));
}

function v2Document(document: Document): Record<string, unknown> {
  return {
    ...document,
    openapi: '3.1.0',
    info: {
      title: 'Annostore API v2',
      version: '2.0.0',
      description:
        'Resource-oriented REST under /v2 (docs/api-v2.md). Authenticate with `Authorization: Bearer <key>` or `x-api-key`. ' +
        'Errors are RFC 9457 problem details; lists page by cursor; single resources carry an ETag and writes honour If-Match; ' +
        'creates honour Idempotency-Key.',
    },
    components: {
      ...(document.components ?? {}),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    },
    security: [{ bearer: [] }, { apiKey: [] }],
    paths: pathsUnder(document, '/v2/'),
  };
}

/**
 * /docs runs Swagger UI's own scripts and styles from this server and reads the documents from it;
 * no other site may frame it. Swagger UI sets style attributes as it renders, hence 'unsafe-inline'
 * for styles (never for scripts); its icons are data: URLs.
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Annostore API',
        version: '1.0.0',
        description:
          'REST API v1 (deprecated; every answer carries Deprecation, Sunset and Link headers; its successor is described at /v2/openapi.json). ' +
          'Every /v1 request needs the x-api-key header. Errors answer {error, details: {message}}.',
      },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      security: [{ apiKey: [] }],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // No validator badge: it would send the document's address to validator.swagger.io.
    uiConfig: { urls: [{ url: '/v2/openapi.json', name: 'v2' }, { url: '/openapi.json', name: 'v1 (deprecated)' }], validatorUrl: null },
    staticCSP: DOCS_CONTENT_SECURITY_POLICY,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => {
    const document = app.swagger() as Document;
    return { ...document, paths: pathsUnder(document, '/v1/') };
  });
  // Outside the /v2 plugin: the document is public, like /openapi.json. /v2 itself, where v1's
  // successor-version links point, answers it too.
  const v2 = async () => v2Document(app.swagger() as Document);
  app.get('/v2/openapi.json', { schema: { hide: true } }, v2);
  app.get('/v2', { schema: { hide: true } }, v2);
}
