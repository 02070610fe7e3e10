// GET and POST /v2/projects/:projectId/tags, GET, PATCH and DELETE /v2/tags/:id: a project's tags of
// both scopes, under the rules v1's tag routes follow.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import * as projectTags from '../../services/project-tags.service.ts';
import { rewriteRevisionsOf } from '../../services/annotation-revisions.service.ts';
import { NewTagBody, ProjectIdParams, TagChangeBody, TagUsageV2, TagV2, TagsQuery } from '../schemas/catalog.ts';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, ListOf, Problem, problemResponses } from '../schemas/v2.ts';
import { ifMatchOf, sendTagged } from './etag.ts';
import { pageRequestOf, sendPage } from './id-cursor.ts';
import { needs } from '../plugins/project-access.ts';

export const projectTagRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const tags = ['project tags'];

    app.get(
      '/projects/:projectId/tags',
      {
        config: { access: needs('viewer', ['project', 'params.projectId']) },
        schema: {
          tags,
          summary: 'A project’s tags of both scopes (or of `scope`) in id order, a page at a time',
          params: ProjectIdParams,
          querystring: TagsQuery,
          response: { 200: ListOf(TagV2), ...problemResponses },
        },
      },
      async (request, reply) => {
        const page = await projectTags.pageOfTags(db, request.principal.teamId, request.params.projectId, { ...pageRequestOf(request.query), scope: request.query.scope });
        return sendPage(request, reply, page);
      },
    );

    app.post(
      '/projects/:projectId/tags',
      {
        config: { access: needs('manager', ['project', 'params.projectId']) },
        schema: {
          tags,
          summary: 'Create a tag; its title must be new in the project and scope',
          params: ProjectIdParams,
          headers: IdempotencyHeaders,
          body: NewTagBody,
          response: { 201: TagV2, ...problemResponses, 409: Problem },
        },
      },
      async (request, reply) => {
        const tag = await projectTags.createProjectTag(db, request.principal, request.params.projectId, request.body);
        return sendTagged(request, reply, tag, 201);
      },
    );

    app.get(
      '/tags/:id',
      {
        config: { access: needs('viewer', ['tag', 'params.id']) },
        schema: { tags, summary: 'A project tag', params: IdParams, response: { 200: TagV2, 304: Type.Null(), ...problemResponses } },
      },
      async (request, reply) => sendTagged(request, reply, await projectTags.describeProjectTag(db, request.principal.teamId, request.params.id)),
    );

    app.get(
      '/tags/:id/usage',
      {
        config: { access: needs('viewer', ['tag', 'params.id']) },
        schema: { tags, summary: 'How many images and objects carry the tag (what its delete takes away)', params: IdParams, response: { 200: TagUsageV2, ...problemResponses } },
      },
      async (request) => projectTags.projectTagUsage(db, request.principal, request.params.id),
    );

    app.patch(
      '/tags/:id',
      {
        config: { access: needs('manager', ['tag', 'params.id']) },
        schema: {
          tags,
          summary: 'Rename a tag, set its hotkey, value type or possible values; a figure tag’s rename reaches every object. If-Match makes it conditional',
          params: IdParams,
          headers: IfMatchHeaders,
          body: TagChangeBody,
          response: { 200: TagV2, ...problemResponses, 409: Problem, 412: Problem },
        },
      },
      async (request, reply) => {
        const tag = await projectTags.changeProjectTag(db, request.principal.teamId, request.params.id, request.body, ifMatchOf(request), rewriteRevisionsOf(ctx, request.principal));
        return sendTagged(request, reply, tag);
      },
    );

    app.delete(
      '/tags/:id',
      {
        config: { access: needs('manager', ['tag', 'params.id']) },
        schema: {
          tags,
          summary: 'Delete a tag, detaching it from every image and object; If-Match makes it conditional',
          params: IdParams,
          headers: IfMatchHeaders,
          response: { 204: Type.Null(), ...problemResponses, 412: Problem },
        },
      },
      async (request, reply) => {
        await projectTags.removeProjectTag(db, request.principal.teamId, request.params.id, ifMatchOf(request), rewriteRevisionsOf(ctx, request.principal));
        return reply.code(204).send(null);
      },
    );
  };
