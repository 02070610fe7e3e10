// GET /annotations: one record per image, paged by image id.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { AnnotationPages } from '../../services/annotations.service.ts';
import { errorResponses, toOffset } from '../schemas/common.ts';
import { AnnotationsQuery } from '../schemas/requests.ts';
import { AnnotationRecord } from '../schemas/resources.ts';
import { needs } from '../plugins/project-access.ts';
import { readerOf } from '../../services/project-access.ts';

export const annotationRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const pages = new AnnotationPages(ctx.db);

    app.get(
      '/annotations',
      {
        config: { access: needs('viewer', ['project', 'query.projectId'], ['dataset', 'query.datasetIds']) },
        schema: {
          tags: ['annotations'],
          summary: 'Annotation records of a project, ordered by image id',
          querystring: AnnotationsQuery,
          response: { 200: Type.Array(AnnotationRecord), ...errorResponses },
        },
      },
      async (request, reply) => {
        const { projectId, datasetIds, page, perPage } = request.query;
        // The page is already JSON bytes; a Buffer payload is sent as it is, not serialised again.
        const query = { projectId, datasetIds, ...toOffset(page, perPage) };
        const reader = await readerOf(ctx.db.kysely, request.principal, projectId);
        const body = await pages.page(request.principal.teamId, reader, query, request.changeStamp);
        return (reply as FastifyReply).type('application/json; charset=utf-8').send(body);
      },
    );
  };
