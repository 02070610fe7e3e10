// GET and POST /projects/:id/tags, PUT and DELETE /projects/:projectId/tags/:id. `type` is the tag's
// scope: in the body for POST and PUT, in the query for GET and DELETE.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { rewriteRevisionsOf } from '../../services/annotation-revisions.service.ts';
import * as tags from '../../services/tags.service.ts';
import { ErrorBody, SUCCESS, Success, errorResponses } from '../schemas/common.ts';
import { CreatedId, ProjectIdParams, ProjectTagBody, ProjectTagParams, TagScopeQuery } from '../schemas/requests.ts';
import { ProjectTag } from '../schemas/resources.ts';
import { needs } from '../plugins/project-access.ts';

export const projectTagRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;

    app.get(
      '/projects/:id/tags',
      {
        config: { access: needs('viewer', ['project', 'params.id']) },
        schema: {
          tags: ['project tags'],
          summary: 'List the project’s tags of one scope, in id order',
          params: ProjectIdParams,
          querystring: TagScopeQuery,
          response: { 200: Type.Array(ProjectTag), ...errorResponses },
        },
      },
      async (request) => tags.listTags(db, request.principal.teamId, request.params.id, request.query.type),
    );

    app.post(
      '/projects/:id/tags',
      {
        config: { access: needs('manager', ['project', 'params.id']) },
        schema: {
          tags: ['project tags'],
          summary: 'Create a tag; its title must be new in the project and scope',
          params: ProjectIdParams,
          body: ProjectTagBody,
          response: { 200: CreatedId, ...errorResponses, 409: ErrorBody },
        },
      },
      async (request) => {
        const { type, title, hotkey } = request.body;
        const id = await tags.createTag(db, request.principal, request.params.id, { scope: type, title, hotkey });
        return { id };
      },
    );

    app.put(
      '/projects/:projectId/tags/:id',
      {
        config: { access: needs('manager', ['project', 'params.projectId'], ['tag', 'params.id']) },
        schema: {
          tags: ['project tags'],
          summary: 'Rename a tag and set its hotkey (kept when not given)',
          params: ProjectTagParams,
          body: ProjectTagBody,
          response: { 200: Success, ...errorResponses, 409: ErrorBody },
        },
      },
      async (request) => {
        const { type, title, hotkey } = request.body;
        const { projectId, id } = request.params;
        await tags.updateTag(db, request.principal.teamId, projectId, id, { scope: type, title, hotkey }, rewriteRevisionsOf(ctx, request.principal));
        return SUCCESS;
      },
    );

    app.delete(
      '/projects/:projectId/tags/:id',
      {
        config: { access: needs('manager', ['project', 'params.projectId'], ['tag', 'params.id']) },
        schema: {
          tags: ['project tags'],
          summary: 'Delete a tag, detaching it from every image and object',
          params: ProjectTagParams,
          querystring: TagScopeQuery,
          response: { 200: Success, ...errorResponses },
        },
      },
      async (request) => {
        const { projectId, id } = request.params;
        await tags.deleteTag(db, request.principal.teamId, projectId, id, request.query.type, rewriteRevisionsOf(ctx, request.principal));
        return SUCCESS;
      },
    );
  };
