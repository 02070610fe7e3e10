// The OpenAPI document is generated from the route schemas; /docs renders it.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Annostore API',
        version: '1.0.0',
        description:
          'REST API v1 (deprecated; every answer carries Deprecation, Sunset and Link headers). ' +
          'Every /v1 request needs the x-api-key header. Errors answer {error, details: {message}}.',
      },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      security: [{ apiKey: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
