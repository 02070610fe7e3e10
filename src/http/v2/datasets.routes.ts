// POST /v2/projects/:projectId/datasets, GET /v2/datasets, GET, PATCH and DELETE /v2/datasets/:id.
// A managers-only dataset (docs/jobs.md, Quality) is missing to anybody but the project's managers:
// the access hook answers its id 404, and the lists leave it out.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import * as datasets from '../../services/datasets.service.ts';
import { DatasetBody, DatasetChangeBody, DatasetListItem, DatasetV2, DatasetsQuery, ProjectIdParams } from '../schemas/catalog.ts';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, ListOf, Problem, problemResponses } from '../schemas/v2.ts';
import { ifMatchOf, sendTagged } from './etag.ts';
import { pageRequestOf, sendPage } from './id-cursor.ts';
import { needs } from '../plugins/project-access.ts';

export const datasetRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const tags = ['datasets'];

    app.post(
      '/projects/:projectId/datasets',
      {
        config: { access: needs('manager', ['project', 'params.projectId']) },
        schema: {
          tags,
          summary: 'Create a dataset in a project (managers-only with managersOnly: true); its title must be new in the project',
          params: ProjectIdParams,
          headers: IdempotencyHeaders,
          body: DatasetBody,
          response: { 201: DatasetV2, ...problemResponses, 409: Problem },
        },
      },
      async (request, reply) => {
        const dataset = await datasets.createDataset(db, request.principal.teamId, request.params.projectId, request.body);
        return sendTagged(request, reply, dataset, 201);
      },
    );

    app.get(
      '/datasets',
      {
        config: { access: needs('viewer', ['project', 'query.projectId']) },
        schema: {
          tags,
          summary: 'The team’s datasets (of one project with projectId) in id order, a page at a time; with counts=true each with what it holds',
          querystring: DatasetsQuery,
          response: { 200: ListOf(DatasetListItem), ...problemResponses },
        },
      },
      async (request, reply) => {
        const { projectId, counts } = request.query;
        const page = await datasets.pageOfDatasets(db, request.principal, { ...pageRequestOf(request.query), projectId, counts });
        return sendPage(request, reply, page);
      },
    );

    app.get(
      '/datasets/:id',
      {
        config: { access: needs('viewer', ['dataset', 'params.id']) },
        schema: { tags, summary: 'A dataset', params: IdParams, response: { 200: DatasetV2, 304: Type.Null(), ...problemResponses } },
      },
      async (request, reply) => sendTagged(request, reply, await datasets.describeDataset(db, request.principal.teamId, request.params.id)),
    );

    app.patch(
      '/datasets/:id',
      {
        config: { access: needs('manager', ['dataset', 'params.id']) },
        schema: {
          tags,
          summary: 'Rename a dataset, or make it managers-only (or ordinary again); If-Match makes it conditional',
          params: IdParams,
          headers: IfMatchHeaders,
          body: DatasetChangeBody,
          response: { 200: DatasetV2, ...problemResponses, 409: Problem, 412: Problem },
        },
      },
      async (request, reply) => {
        const dataset = await datasets.changeDataset(db, request.principal.teamId, request.params.id, request.body, ifMatchOf(request));
        return sendTagged(request, reply, dataset);
      },
    );

    app.delete(
      '/datasets/:id',
      {
        config: { access: needs('manager', ['dataset', 'params.id']) },
        schema: {
          tags,
          summary: 'Delete a dataset and its images; If-Match makes it conditional',
          params: IdParams,
          headers: IfMatchHeaders,
          response: { 204: Type.Null(), ...problemResponses, 412: Problem },
        },
      },
      async (request, reply) => {
        await datasets.removeDataset(db, request.principal.teamId, request.params.id, ifMatchOf(request));
        return reply.code(204).send(null);
      },
    );
  };
