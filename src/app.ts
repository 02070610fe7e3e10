// buildApp(ctx): every Fastify option, plugin and route. It never listens; server.ts does.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Context } from './context.ts';
import { parseQuery, registerArrayQuery } from './http/plugins/array-query.ts';
import { registerDeprecationHeaders } from './http/plugins/deprecation.ts';
import { answerUnreadableRequest, registerErrorHandling } from './http/plugins/error-handler.ts';
import { registerOpenApi } from './http/plugins/openapi.ts';
import { registerValidation } from './http/plugins/validation.ts';
import { registerHealth } from './http/health.ts';
import { v1Routes } from './http/v1/index.ts';

export interface AppOptions {
  logger?: FastifyServerOptions['logger'];
}

export async function buildApp(ctx: Context, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: ctx.config.limits.jsonBodyBytes,
    routerOptions: { querystringParser: parseQuery, ignoreTrailingSlash: true, maxParamLength: 200 },
    clientErrorHandler: answerUnreadableRequest,
  });
  registerValidation(app);
  registerErrorHandling(app);
  registerArrayQuery(app);
  registerDeprecationHeaders(app, ctx.config.deprecation);
  await registerOpenApi(app);
  registerHealth(app, ctx);
  await app.register(v1Routes(ctx), { prefix: '/v1' });
  return app;
}
