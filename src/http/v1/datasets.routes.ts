// GET /datasets, DELETE /datasets/:datasetId
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import * as datasets from '../../services/datasets.service.ts';
import { SUCCESS, Success, errorResponses } from '../schemas/common.ts';
import { DatasetParams, DatasetsQuery } from '../schemas/requests.ts';
import { Dataset } from '../schemas/resources.ts';
import { needs } from '../plugins/project-access.ts';

export const datasetRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;

    app.get(
      '/datasets',
      {
        config: { access: needs('viewer', ['project', 'query.projectId']) },
        schema: {
          tags: ['datasets'],
          summary: 'List datasets, of one project or of every project of the team',
          querystring: DatasetsQuery,
          response: { 200: Type.Array(Dataset), ...errorResponses },
        },
      },
      async (request) => datasets.listDatasets(db, request.principal, request.query.projectId),
    );

    app.delete(
      '/datasets/:datasetId',
      {
        config: { access: needs('manager', ['dataset', 'params.datasetId']) },
        schema: {
          tags: ['datasets'],
          summary: 'Delete a dataset and its images',
          params: DatasetParams,
          response: { 200: Success, ...errorResponses },
        },
      },
      async (request) => {
        await datasets.deleteDataset(db, request.principal.teamId, request.params.datasetId);
        return SUCCESS;
      },
    );
  };
