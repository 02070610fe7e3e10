// GET /v2/images/overlays?ids=…: the objects of a page of gallery tiles in one request.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Context } from '../../context.ts';
import { imageOverlaysJson } from '../../services/image-overlays.service.ts';
import { ImageOverlays, ImageOverlaysQuery, MAX_OVERLAY_IMAGES } from '../schemas/image-overlays.ts';
import { problemResponses } from '../schemas/v2.ts';
import { needs } from '../plugins/project-access.ts';

/** JSON text made by the service, sent as it is (the schema documents it). */
const sendJsonText = (reply: FastifyReply, json: string): FastifyReply => reply.type('application/json; charset=utf-8').send(json);

export const imageOverlayRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/images/overlays',
      {
        config: { access: needs('viewer', ['image', 'query.ids']) },
        schema: {
          tags: ['annotations'],
          summary: `The objects of up to ${MAX_OVERLAY_IMAGES} images (classes and shapes, for drawing over thumbnails)`,
          querystring: ImageOverlaysQuery,
          response: { 200: ImageOverlays, ...problemResponses },
        },
      },
      async (request, reply) => {
        const ids = request.query.ids.split(',').map(Number);
        const json = await imageOverlaysJson(ctx.db.kysely, request.principal.teamId, ids, MAX_OVERLAY_IMAGES);
        return sendJsonText(reply, json);
      },
    );
  };
