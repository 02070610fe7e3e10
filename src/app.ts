// buildApp(ctx): every Fastify option, plugin and route. It never listens; server.ts does.
import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify';
import type { Context } from './context.ts';
import { parseQuery, registerArrayQuery } from './http/plugins/array-query.ts';
import { deprecationHeaders, isV1Url, registerDeprecationHeaders } from './http/plugins/deprecation.ts';
import { answerError, answerUnreadableRequest, registerErrorHandling } from './http/plugins/error-handler.ts';
import { registerOpenApi } from './http/plugins/openapi.ts';
import { registerValidation } from './http/plugins/validation.ts';
import { registerHealth } from './http/health.ts';
import { registerWebApp } from './http/web-app.ts';
import { v1Routes } from './http/v1/index.ts';
import { v2Routes } from './http/v2/index.ts';
import { answerProblem } from './http/v2/problem.ts';

export interface AppOptions {
  logger?: FastifyServerOptions['logger'];
  /** Told of every route as it is registered, so that a caller can list them all. */
  onRoute?: (route: RouteOptions) => void;
}

const isV2Url = (url: string): boolean => url === '/v2' || url.startsWith('/v2/') || url.startsWith('/v2?');

export async function buildApp(ctx: Context, options: AppOptions = {}): Promise<FastifyInstance> {
  const v1Headers = deprecationHeaders(ctx.config.deprecation);
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: ctx.config.limits.jsonBodyBytes,
    trustProxy: ctx.config.trustProxy,
    routerOptions: { querystringParser: parseQuery, ignoreTrailingSlash: true, maxParamLength: 200 },
    clientErrorHandler: answerUnreadableRequest,
    // A URL the router cannot read (bad percent-encoding, a parameter over maxParamLength) is answered
    // before any hook runs: the contract's body and the /v1 headers are given here.
    frameworkErrors: (error, request, reply) => {
      if (isV1Url(request.url)) void reply.headers(v1Headers);
      if (isV2Url(request.url)) answerProblem(error, request, reply);
      else answerError(error, request, reply);
    },
  });
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  registerValidation(app);
  registerErrorHandling(app);
  registerArrayQuery(app);
  registerDeprecationHeaders(app, ctx.config.deprecation);
  await registerOpenApi(app);
  registerHealth(app, ctx);
  registerWebApp(app, ctx);
  await app.register(v1Routes(ctx), { prefix: '/v1' });
  await app.register(v2Routes(ctx), { prefix: '/v2' });
  return app;
}
