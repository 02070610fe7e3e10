// GET /v2/images/:id/similar, GET /v2/projects/:projectId/near-duplicates and
// POST /v2/projects/:projectId/near-duplicates/hashes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Context } from '../../context.ts';
import { DEFAULT_DISTANCE } from '../../services/hamming-pairs.ts';
import { hashProject, nearDuplicateReport, similarImages } from '../../services/near-duplicates.service.ts';
import { ProjectIdParams } from '../schemas/catalog.ts';
import { HashingAnswer, NearDuplicateReport, NearDuplicatesQuery, SimilarImages, SimilarQuery } from '../schemas/v2-near-duplicates.ts';
import { IdParams, problemResponses } from '../schemas/v2.ts';
import { needs } from '../plugins/project-access.ts';

export const nearDuplicateRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const tags = ['near-duplicates'];

    app.get(
      '/images/:id/similar',
      {
        config: { access: needs('viewer', ['image', 'params.id']) },
        schema: {
          tags,
          summary: 'Images of the team that look like this one (perceptual hashes), nearest first',
          params: IdParams,
          querystring: SimilarQuery,
          response: { 200: SimilarImages, ...problemResponses },
        },
      },
      async (request) => similarImages(db, request.principal, request.params.id, request.query.distance ?? DEFAULT_DISTANCE, request.query.limit ?? 50),
    );

    app.get(
      '/projects/:projectId/near-duplicates',
      {
        config: { access: needs('viewer', ['project', 'params.projectId']) },
        schema: {
          tags,
          summary: 'The project’s groups of near-duplicate images, each flagged when it spans datasets',
          params: ProjectIdParams,
          querystring: NearDuplicatesQuery,
          response: { 200: NearDuplicateReport, ...problemResponses },
        },
      },
      async (request) =>
        nearDuplicateReport(db, request.principal, request.params.projectId, {
          distance: request.query.distance ?? DEFAULT_DISTANCE,
          limit: request.query.limit ?? 50,
          offset: request.query.offset ?? 0,
          crossDatasetOnly: request.query.crossDataset ?? false,
        }),
    );

    app.post(
      '/projects/:projectId/near-duplicates/hashes',
      {
        config: { access: needs('manager', ['project', 'params.projectId']) },
        schema: {
          tags,
          summary: 'Queue the making of the perceptual hashes the project’s images lack (images from before hashes were made)',
          params: ProjectIdParams,
          response: { 202: HashingAnswer, ...problemResponses },
        },
      },
      async (request, reply) => reply.code(202).send(await hashProject(ctx, request.principal, request.params.projectId)),
    );
  };
