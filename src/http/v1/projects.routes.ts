// GET /projects, DELETE /projects/:projectId
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import * as projects from '../../services/projects.service.ts';
import { SUCCESS, Success, errorResponses } from '../schemas/common.ts';
import { ProjectParams, ProjectsQuery } from '../schemas/requests.ts';
import { Project } from '../schemas/resources.ts';

export const projectRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;

    app.get(
      '/projects',
      {
        schema: {
          tags: ['projects'],
          summary: 'List the projects of the caller’s team',
          querystring: ProjectsQuery,
          response: { 200: Type.Array(Project), ...errorResponses },
        },
      },
      async (request) => projects.listProjects(db, request.principal.teamId, request.query.projectId),
    );

    app.delete(
      '/projects/:projectId',
      {
        schema: {
          tags: ['projects'],
          summary: 'Delete a project and everything in it',
          params: ProjectParams,
          response: { 200: Success, ...errorResponses },
        },
      },
      async (request) => {
        await projects.deleteProject(db, request.principal.teamId, request.params.projectId);
        return SUCCESS;
      },
    );
  };
