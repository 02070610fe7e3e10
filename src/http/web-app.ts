// The web interface at `/`: the same index.html for each of its pages (the page reads its own URL
// and asks /v2 for its data), and the bundled script and stylesheet under /assets/. The pages hold no
// key: they sign in through POST /v2/session and send its cookie.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { type WebAsset, lazyWebBundle } from './web-bundle.ts';

/** The interface's own paths; anything else stays the API's (and its 404). */
const PAGES = ['/', '/sign-in', '/projects/:projectId/images', '/projects/:projectId/near-duplicates', '/datasets/:datasetId/images', '/images/:id', '/tasks'];

// The page may load only this server's own script, styles and images; nothing inline runs.
const CONTENT_SECURITY_POLICY = "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'";

function send(request: FastifyRequest, reply: FastifyReply, asset: WebAsset): FastifyReply {
  void reply.header('content-type', asset.contentType).header('etag', asset.etag).header('cache-control', 'no-cache');
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  return reply.send(asset.body);
}

export function registerWebApp(app: FastifyInstance, ctx: Context): void {
  const bundle = lazyWebBundle(ctx.config.webDir);
  for (const url of PAGES) {
    app.get(url, { schema: { hide: true } }, async (request, reply) => {
      const { page } = await bundle();
      void reply.header('content-security-policy', CONTENT_SECURITY_POLICY).header('x-frame-options', 'DENY').header('referrer-policy', 'same-origin');
      return send(request, reply, page);
    });
  }
  app.get('/assets/:name', { schema: { hide: true } }, async (request, reply) => {
    const { name } = request.params as { name: string };
    const found = (await bundle()).assets.get(name);
    if (!found) return reply.code(404).send({ error: 'NOT_FOUND', details: { message: 'no such asset' } });
    return send(request, reply, found);
  });
}

/** Builds the bundle now, so that the first visitor does not wait for it; a failure is logged only. */
export function warmWebApp(app: FastifyInstance): void {
  void app.inject({ method: 'GET', url: '/assets/app.js' }).then((res) => {
    if (res.statusCode !== 200) app.log.warn({ status: res.statusCode }, 'the web interface could not be built');
  });
}
