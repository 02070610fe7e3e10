// POST and GET /v2/projects, GET, PATCH and DELETE /v2/projects/:id.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import * as projects from '../../services/projects.service.ts';
import { ProjectListItem, ProjectV2, ProjectsQuery, newProjectBody, projectChangeBody } from '../schemas/catalog.ts';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, ListOf, Problem, problemResponses } from '../schemas/v2.ts';
import { ifMatchOf, sendTagged } from './etag.ts';
import { pageRequestOf, sendPage } from './id-cursor.ts';
import { LIST_ROUTE, TEAM_ROUTE, needs } from '../plugins/project-access.ts';

export const projectRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const tags = ['projects'];

    app.post(
      '/projects',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags,
          summary: 'Create a project',
          headers: IdempotencyHeaders,
          body: newProjectBody(ctx.config.limits),
          response: { 201: ProjectV2, ...problemResponses },
        },
      },
      async (request, reply) => {
        const project = await projects.createProject(db, request.principal, request.body);
        return sendTagged(request, reply, project, 201);
      },
    );

    app.get(
      '/projects',
      {
        config: { access: LIST_ROUTE },
        schema: {
          tags,
          summary: 'The team’s projects in id order, a page at a time; with counts=true each with what it holds and its classes',
          querystring: ProjectsQuery,
          response: { 200: ListOf(ProjectListItem), ...problemResponses },
        },
      },
      async (request, reply) => {
        const { title, counts } = request.query;
        const page = await projects.pageOfProjects(db, request.principal, { ...pageRequestOf(request.query), titlePrefix: title, counts });
        return sendPage(request, reply, page);
      },
    );

    app.get(
      '/projects/:id',
      {
        config: { access: needs('viewer', ['project', 'params.id']) },
        schema: { tags, summary: 'A project', params: IdParams, response: { 200: ProjectV2, 304: Type.Null(), ...problemResponses } },
      },
      async (request, reply) => sendTagged(request, reply, await projects.describeProject(db, request.principal, request.params.id)),
    );

    app.patch(
      '/projects/:id',
      {
        config: { access: needs('manager', ['project', 'params.id']) },
        schema: {
          tags,
          summary: 'Rename a project or set its description; If-Match makes it conditional',
          params: IdParams,
          headers: IfMatchHeaders,
          body: projectChangeBody(ctx.config.limits),
          response: { 200: ProjectV2, ...problemResponses, 412: Problem },
        },
      },
      async (request, reply) => {
        const project = await projects.changeProject(db, request.principal.teamId, request.params.id, request.body, ifMatchOf(request));
        return sendTagged(request, reply, project);
      },
    );

    app.delete(
      '/projects/:id',
      {
        config: { access: needs('manager', ['project', 'params.id']) },
        schema: {
          tags,
          summary: 'Delete a project with its datasets, images, classes and tags; If-Match makes it conditional',
          params: IdParams,
          headers: IfMatchHeaders,
          response: { 204: Type.Null(), ...problemResponses, 412: Problem },
        },
      },
      async (request, reply) => {
        await projects.removeProject(db, request.principal.teamId, request.params.id, ifMatchOf(request));
        return reply.code(204).send(null);
      },
    );
  };
