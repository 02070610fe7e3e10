// GET /models (the team's) and GET /architectures (one catalogue for everybody).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import * as catalogue from '../../repositories/catalogue.repository.ts';
import { errorResponses, toOffset } from '../schemas/common.ts';
import { CatalogueQuery } from '../schemas/requests.ts';
import { Architecture, Model } from '../schemas/resources.ts';
import { TEAM_ROUTE } from '../plugins/project-access.ts';

export const catalogueRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;

    app.get(
      '/models',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['models'],
          summary: 'List the team’s models',
          querystring: CatalogueQuery,
          response: { 200: Type.Array(Model), ...errorResponses },
        },
      },
      async (request) => {
        const { id, page, perPage } = request.query;
        return catalogue.listModels(db, request.principal.teamId, { ids: id, ...toOffset(page, perPage) });
      },
    );

    app.get(
      '/architectures',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['architectures'],
          summary: 'List model architectures',
          querystring: CatalogueQuery,
          response: { 200: Type.Array(Architecture), ...errorResponses },
        },
      },
      async (request) => {
        const { id, page, perPage } = request.query;
        return catalogue.listArchitectures(db, { ids: id, ...toOffset(page, perPage) });
      },
    );
  };
