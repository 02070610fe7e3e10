// buildApp(ctx): every Fastify option, plugin and route. It never listens; server.ts does.
import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify';
import type { TrustProxy } from './config.ts';
import type { Context } from './context.ts';
import { parseQuery, registerArrayQuery } from './http/plugins/array-query.ts';
import { deprecationHeaders, isV1Url, registerDeprecationHeaders } from './http/plugins/deprecation.ts';
import { answerError, answerUnreadableRequest, registerErrorHandling } from './http/plugins/error-handler.ts';
import { registerOpenApi } from './http/plugins/openapi.ts';
import { registerRateLimits } from './http/plugins/rate-limits.ts';
import { NOSNIFF, registerSecurityHeaders } from './http/plugins/security-headers.ts';
import { registerValidation } from './http/plugins/validation.ts';
import { guardConnections } from './http/connections.ts';
import { registerHealth } from './http/health.ts';
import { registerOperations } from './http/operations.ts';
import { type AnswerObserver, requestLogOptions } from './http/plugins/request-log.ts';
import { webInterface } from './http/web-app.ts';
import { v1Routes } from './http/v1/index.ts';
import { v2Routes } from './http/v2/index.ts';
import { answerProblem } from './http/v2/problem.ts';

export interface AppOptions {
  logger?: FastifyServerOptions['logger'];
  /** Told of every route as it is registered, so that a caller can list them all. */
  onRoute?: (route: RouteOptions) => void;
}

/** Fastify takes a hop count at run time but not in its types: as the function it makes of one. */
function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

const isV2Url = (url: string): boolean => url === '/v2' || url.startsWith('/v2/') || url.startsWith('/v2?');

export async function buildApp(ctx: Context, options: AppOptions = {}): Promise<FastifyInstance> {
  const v1Headers = deprecationHeaders(ctx.config.deprecation);
  let answeredOutsideRoutes: AnswerObserver = () => {};
  const app = Fastify({
    logger: options.logger ?? false,
    ...requestLogOptions(),
    bodyLimit: ctx.config.limits.jsonBodyBytes,
    trustProxy: fastifyTrustProxy(ctx.config.trustProxy),
    routerOptions: { querystringParser: parseQuery, ignoreTrailingSlash: true, maxParamLength: 200 },
    clientErrorHandler: answerUnreadableRequest,
    // A plugin's start (the API docs' static files, the web bundle) waits for the disk and the CPU: on
    // a machine busy with other work, 10 s (Fastify's default) is not always enough, and a start that
    // times out is a server that never comes up.
    pluginTimeout: 120_000,
    // A URL the router cannot read (bad percent-encoding, a parameter over maxParamLength) is answered
    // before any hook runs: the contract's body and the /v1 headers are given here, and the request
    // id, the log line and the metrics are seen to.
    frameworkErrors: (error, request, reply) => {
      answeredOutsideRoutes(request, reply);
      void reply.headers(NOSNIFF);
      if (isV1Url(request.url)) void reply.headers(v1Headers);
      if (isV2Url(request.url)) answerProblem(error, request, reply);
      else answerError(error, request, reply);
    },
  });
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  guardConnections(app, ctx.config.connections);
  registerSecurityHeaders(app);
  answeredOutsideRoutes = registerOperations(app, ctx);
  registerValidation(app);
  // No route takes plain text: a text body to a JSON route is a 415, as XML or a form is, rather than a
  // string that the schema then refuses as a 400.
  app.removeContentTypeParser('text/plain');
  const web = webInterface(ctx);
  registerErrorHandling(app, web.notFoundPage);
  registerArrayQuery(app);
  registerDeprecationHeaders(app, ctx.config.deprecation);
  registerRateLimits(app, ctx);
  await registerOpenApi(app);
  registerHealth(app, ctx);
  web.register(app);
  await app.register(v1Routes(ctx), { prefix: '/v1' });
  await app.register(v2Routes(ctx), { prefix: '/v2' });
  return app;
}
