// GET and POST /v2/projects/:projectId/classes, GET, PATCH and DELETE /v2/classes/:id, GET /v2/classes/:id/usage.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import * as classes from '../../services/classes.service.ts';
import { rewriteRevisionsOf } from '../../services/annotation-revisions.service.ts';
import { ClassChangeBody, ClassDeleteQuery, ClassUsage, ClassV2, ClassesQuery, NewClassBody, ProjectIdParams } from '../schemas/catalog.ts';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, ListOf, Problem, problemResponses } from '../schemas/v2.ts';
import { ifMatchOf, sendTagged } from './etag.ts';
import { pageRequestOf, sendPage } from './id-cursor.ts';
import { needs } from '../plugins/project-access.ts';

export const classRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const tags = ['classes'];

    app.get(
      '/projects/:projectId/classes',
      {
        config: { access: needs('viewer', ['project', 'params.projectId']) },
        schema: {
          tags,
          summary: 'A project’s classes in id order, a page at a time',
          params: ProjectIdParams,
          querystring: ClassesQuery,
          response: { 200: ListOf(ClassV2), ...problemResponses },
        },
      },
      async (request, reply) => {
        const page = await classes.pageOfClasses(db, request.principal.teamId, request.params.projectId, pageRequestOf(request.query));
        return sendPage(request, reply, page);
      },
    );

    app.post(
      '/projects/:projectId/classes',
      {
        config: { access: needs('manager', ['project', 'params.projectId']) },
        schema: {
          tags,
          summary: 'Create a class; its title must be new in the project',
          params: ProjectIdParams,
          headers: IdempotencyHeaders,
          body: NewClassBody,
          response: { 201: ClassV2, ...problemResponses, 409: Problem },
        },
      },
      async (request, reply) => {
        const created = await classes.createClass(db, request.principal.teamId, request.params.projectId, request.body);
        return sendTagged(request, reply, created, 201);
      },
    );

    app.get(
      '/classes/:id',
      {
        config: { access: needs('viewer', ['class', 'params.id']) },
        schema: { tags, summary: 'A class', params: IdParams, response: { 200: ClassV2, 304: Type.Null(), ...problemResponses } },
      },
      async (request, reply) => sendTagged(request, reply, await classes.describeClass(db, request.principal.teamId, request.params.id)),
    );

    app.get(
      '/classes/:id/usage',
      {
        config: { access: needs('viewer', ['class', 'params.id']) },
        schema: {
          tags,
          summary: 'How many objects of the class are stored, in how many images: what a delete with cascade=true removes',
          params: IdParams,
          response: { 200: ClassUsage, ...problemResponses },
        },
      },
      async (request) => classes.classUsage(db, request.principal, request.params.id),
    );

    app.patch(
      '/classes/:id',
      {
        config: { access: needs('manager', ['class', 'params.id']) },
        schema: {
          tags,
          summary: 'Rename and/or recolour a class; a rename reaches every object of the class. If-Match makes it conditional',
          params: IdParams,
          headers: IfMatchHeaders,
          body: ClassChangeBody,
          response: { 200: ClassV2, ...problemResponses, 409: Problem, 412: Problem },
        },
      },
      async (request, reply) => {
        const changed = await classes.changeClass(db, request.principal.teamId, request.params.id, request.body, ifMatchOf(request), rewriteRevisionsOf(ctx, request.principal));
        return sendTagged(request, reply, changed);
      },
    );

    app.delete(
      '/classes/:id',
      {
        config: { access: needs('manager', ['class', 'params.id']) },
        schema: {
          tags,
          summary: 'Delete a class. While objects of it are stored: 409 naming how many, unless cascade=true, which removes them too',
          params: IdParams,
          headers: IfMatchHeaders,
          querystring: ClassDeleteQuery,
          response: { 204: Type.Null(), ...problemResponses, 409: Problem, 412: Problem },
        },
      },
      async (request, reply) => {
        await classes.removeClass(db, request.principal.teamId, request.params.id, { cascade: request.query.cascade ?? false, ifMatch: ifMatchOf(request), revisions: rewriteRevisionsOf(ctx, request.principal) });
        return reply.code(204).send(null);
      },
    );
  };
