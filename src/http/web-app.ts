// The web interface at `/`: the same index.html for each of its pages (the page reads its own URL
// and asks /v2 for its data), and the bundled script and stylesheet under /assets/. The pages hold no
// key: they sign in through POST /v2/session and send its cookie. A browser that asks for a page that
// is not one (a mistyped or stale address) gets the interface too, answered 404, which shows a "Not
// found" page with a way back instead of the API's JSON.
import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { type WebAsset, type WebBundle, lazyWebBundle } from './web-bundle.ts';

/** The interface's own paths; anything else stays the API's (and its 404), but for a browser's page. */
const PAGES = ['/', '/sign-in', '/projects/:projectId', '/projects/:projectId/images', '/projects/:projectId/tags', '/projects/:projectId/settings', '/projects/:projectId/near-duplicates', '/projects/:projectId/versions', '/projects/:projectId/evaluation', '/projects/:projectId/stats', '/projects/:projectId/quality', '/projects/:projectId/jobs', '/datasets/:datasetId/images', '/images/:id', '/tasks', '/my-work', '/set-password', '/team/users', '/account'];

/** Paths a browser never gets the interface for, even asking for HTML: the API and the app's files. */
const NOT_PAGES = /^\/(v1|v2|assets|docs|openapi\.json|healthz?|readyz|livez|metrics)(\/|$)/;

// The page may load only this server's own script, styles and images; nothing inline runs.
export const CONTENT_SECURITY_POLICY = "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Every page is cross-origin isolated, so that the segment tool's decoder may run on several
 * WebAssembly threads (SharedArrayBuffer): the pages load nothing from another origin, and the app's
 * pages are one document (moving between them loads no page), so all of them send it. The scripts
 * send the embedder policy too, which the decoder's worker and its threads take from their script.
 */
export const ISOLATION = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };

function send(request: FastifyRequest, reply: FastifyReply, asset: WebAsset): FastifyReply {
  void reply.header('content-type', asset.contentType).header('etag', asset.etag).header('cache-control', 'no-cache');
  if (asset.contentType.startsWith('text/javascript')) void reply.headers(ISOLATION);
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  if (Buffer.isBuffer(asset.body)) return reply.send(asset.body);
  return reply.header('content-length', asset.body.size).send(fs.createReadStream(asset.body.file));
}

/** A page's ids are whole numbers: another (`/images/abc`) is no page, and is answered so. */
const idsAreNumbers = (params: Record<string, string>): boolean => Object.values(params).every((value) => /^[1-9]\d{0,15}$/.test(value));

export interface WebInterface {
  register(app: FastifyInstance): void;
  /** Answers a browser's GET of a path that is no route with the interface (404); false for anyone else. */
  notFoundPage(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
}

export function webInterface(ctx: Context): WebInterface {
  const bundle = lazyWebBundle(ctx.config.webDir);
  const sendPage = async (request: FastifyRequest, reply: FastifyReply, status: number) => {
    let built: WebBundle;
    try {
      built = await bundle();
    } catch {
      return false;
    }
    void reply.code(status).header('content-security-policy', CONTENT_SECURITY_POLICY).header('x-frame-options', 'DENY').header('referrer-policy', 'same-origin').headers(ISOLATION);
    // A 404 is not cached or revalidated: the same address may be a page of a later version.
    if (status !== 200) void reply.header('content-type', built.page.contentType).header('cache-control', 'no-store').send(built.page.body);
    else send(request, reply, built.page);
    return true;
  };
  return {
    register(app) {
      for (const url of PAGES) {
        app.get(url, { schema: { hide: true } }, async (request, reply) => {
          // An id that is no id is no page: the not-found answer, the interface's for a browser, else the API's JSON.
          if (!idsAreNumbers(request.params as Record<string, string>)) return reply.callNotFound();
          await sendPage(request, reply, 200);
          return reply;
        });
      }
      app.get('/assets/:name', { schema: { hide: true } }, async (request, reply) => {
        const { name } = request.params as { name: string };
        const found = (await bundle()).assets.get(name);
        if (!found) return reply.code(404).send({ error: 'NOT_FOUND', details: { message: 'no such asset' } });
        return send(request, reply, found);
      });
    },
    async notFoundPage(request, reply) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return false;
      const pathname = request.url.split('?')[0]!;
      if (NOT_PAGES.test(pathname) || !(request.headers.accept ?? '').includes('text/html')) return false;
      return sendPage(request, reply, 404);
    },
  };
}

/** Builds the bundle now, so that the first visitor does not wait for it; a failure is logged only. */
export function warmWebApp(app: FastifyInstance): void {
  void app.inject({ method: 'GET', url: '/assets/app.js' }).then((res) => {
    if (res.statusCode !== 200) app.log.warn({ status: res.statusCode }, 'the web interface could not be built');
  });
}
