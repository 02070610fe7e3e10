// GET /v2/projects/:projectId/stats: what a project's images hold, or those a filter finds.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Context } from '../../context.ts';
import { ProjectStatsCache } from '../../services/project-stats.service.ts';
import { ProjectIdParams } from '../schemas/catalog.ts';
import { ProjectStats, ProjectStatsQuery } from '../schemas/v2-stats.ts';
import { problemResponses } from '../schemas/v2.ts';
import { needs } from '../plugins/project-access.ts';

export const projectStatsRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const cache = new ProjectStatsCache(ctx.db.kysely);
    app.get(
      '/projects/:projectId/stats',
      {
        config: { access: needs('viewer', ['project', 'params.projectId']) },
        schema: {
          tags: ['projects'],
          summary: 'Images and objects per class and dataset, objects per image, box area, aspect and place, image sizes; with the image list’s filters',
          params: ProjectIdParams,
          querystring: ProjectStatsQuery,
          response: { 200: ProjectStats, ...problemResponses },
        },
      },
      async (request) => cache.stats(request.principal, request.params.projectId, request.query, request.changeStamp),
    );
  };
