// GET /projects, DELETE /projects/:projectId
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { StampedCache } from '../../db/stamped-cache.ts';
import { managedProjectsOf, narrowedTo } from '../../services/project-access.ts';
import * as projects from '../../services/projects.service.ts';
import { SUCCESS, Success, errorResponses } from '../schemas/common.ts';
import { ProjectParams, ProjectsQuery } from '../schemas/requests.ts';
import { Project } from '../schemas/resources.ts';
import { LIST_ROUTE, needs } from '../plugins/project-access.ts';

/** How many answers of GET /projects are kept, and up to what size each (at most 64 MiB in all). */
const KEPT_LISTINGS = 256;
const KEPT_LISTING_BYTES = 256 * 1024;

export const projectRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    // Clients poll this list; it is read again only after the database changed.
    const listings = new StampedCache<Buffer>(KEPT_LISTINGS);

    app.get(
      '/projects',
      {
        config: { access: LIST_ROUTE },
        schema: {
          tags: ['projects'],
          summary: 'List the projects of the caller’s team',
          querystring: ProjectsQuery,
          response: { 200: Type.Array(Project), ...errorResponses },
        },
      },
      async (request, reply) => {
        const { teamId } = request.principal;
        const { projectId } = request.query;
        const stamp = request.changeStamp;
        // A member sees the projects they have a role in, and sizes without the managers-only datasets
        // of those they do not manage (a read key manages none): their answer is theirs alone.
        const key = `${teamId}:${narrowedTo(request.principal) ?? ''}:${JSON.stringify(managedProjectsOf(request.principal))}:${projectId ?? ''}`;
        let body = listings.get(stamp, key);
        if (!body) {
          // Serialised by the route's schema, as the returned array would be; kept and sent as bytes.
          body = Buffer.from(reply.serialize(await projects.listProjects(db, request.principal, projectId)) as string);
          if (body.length <= KEPT_LISTING_BYTES) listings.set(stamp, key, body);
        }
        return (reply as FastifyReply).type('application/json; charset=utf-8').send(body);
      },
    );

    app.delete(
      '/projects/:projectId',
      {
        config: { access: needs('manager', ['project', 'params.projectId']) },
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
