// Quality (docs/jobs.md "Quality"): PUT, DELETE and GET /v2/projects/:projectId/ground-truth, and
// GET /v2/projects/:projectId/quality, the report per annotator and class. All for managers.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import * as quality from '../../services/quality.service.ts';
import { needs } from '../plugins/project-access.ts';
import { ProjectIdParams } from '../schemas/catalog.ts';
import { GroundTruthBody, GroundTruthImage, GroundTruthQuery, QualityReport } from '../schemas/v2-quality.ts';
import { ListOf, problemResponses } from '../schemas/v2.ts';
import { pageRequestOf, sendPage } from './id-cursor.ts';

const tags = ['jobs'];
const access = { access: needs('manager', ['project', 'params.projectId']) };

export const qualityRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.put(
      '/projects/:projectId/ground-truth',
      {
        config: access,
        schema: {
          tags,
          summary: 'Mark images of the project as ground truth: their objects as they are now become the reference (marking again freezes them again) (managers)',
          params: ProjectIdParams,
          body: GroundTruthBody,
          response: { 204: Type.Null(), ...problemResponses },
        },
      },
      async (request, reply) => {
        await quality.markGroundTruth(ctx, request.principal, request.params.projectId, request.body.imageIds);
        return reply.code(204).send(null);
      },
    );

    app.delete(
      '/projects/:projectId/ground-truth',
      {
        config: access,
        schema: { tags, summary: 'Unmark ground-truth images (honeypots already made keep their truth) (managers)', params: ProjectIdParams, body: GroundTruthBody, response: { 204: Type.Null(), ...problemResponses } },
      },
      async (request, reply) => {
        await quality.unmarkGroundTruth(ctx, request.principal, request.params.projectId, request.body.imageIds);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/projects/:projectId/ground-truth',
      {
        config: access,
        schema: { tags, summary: 'The project’s ground-truth images, by image id (managers)', params: ProjectIdParams, querystring: GroundTruthQuery, response: { 200: ListOf(GroundTruthImage), ...problemResponses } },
      },
      async (request, reply) => {
        const { afterId, limit } = pageRequestOf(request.query);
        return sendPage(request, reply, await quality.pageOfGroundTruth(ctx, request.principal, request.params.projectId, { afterId, limit }));
      },
    );

    app.get(
      '/projects/:projectId/quality',
      {
        config: access,
        schema: { tags, summary: 'The quality report: honeypots compared with their ground truth, per annotator and class (managers)', params: ProjectIdParams, response: { 200: QualityReport, ...problemResponses } },
      },
      async (request) => quality.qualityReport(ctx, request.principal, request.params.projectId),
    );
  };
