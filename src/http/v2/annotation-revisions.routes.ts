// GET /v2/images/:id/annotation/revisions and /revisions/:revisionId: who changed an image's annotation,
// when, and what it was. Restoring one is a write of the annotation (image-annotation.routes.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Context } from '../../context.ts';
import { listImageRevisions, revisionAnnotationJson } from '../../services/annotation-revisions.service.ts';
import { AnnotationRevision, RevisionListQuery, RevisionParams, RevisionWithAnnotation } from '../schemas/annotation-revisions.ts';
import { IdParams, ListOf, problemResponses } from '../schemas/v2.ts';
import { decodeCursor, encodeCursor, isIdKey, sendList } from './cursor.ts';
import { needs } from '../plugins/project-access.ts';

export const annotationRevisionRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/images/:id/annotation/revisions',
      {
        config: { access: needs('viewer', ['image', 'params.id']) },
        schema: {
          tags: ['annotations'],
          summary: 'The revisions of an image’s annotation, newest first: who, when, objects added, removed and changed',
          params: IdParams,
          querystring: RevisionListQuery,
          response: { 200: ListOf(AnnotationRevision), ...problemResponses },
        },
      },
      async (request, reply) => {
        const { limit = 100, cursor, count } = request.query;
        const page = await listImageRevisions(ctx, request.principal.teamId, request.params.id, { limit, total: count, beforeId: decodeCursor(cursor, isIdKey) });
        return sendList(request, reply, { items: page.items, nextCursor: page.nextAfterId === null ? null : encodeCursor(page.nextAfterId), ...(page.total !== undefined ? { total: page.total } : {}) });
      },
    );

    app.get(
      '/images/:id/annotation/revisions/:revisionId',
      {
        config: { access: needs('viewer', ['image', 'params.id']) },
        schema: {
          tags: ['annotations'],
          summary: 'A revision, and the annotation as it left it',
          params: RevisionParams,
          response: { 200: RevisionWithAnnotation, ...problemResponses },
        },
      },
      async (request, reply) => {
        const json = await revisionAnnotationJson(ctx.db.kysely, request.principal.teamId, request.params.id, request.params.revisionId);
        // JSON text already (the stored objects are never parsed), sent as it is.
        return (reply as FastifyReply).type('application/json; charset=utf-8').send(json);
      },
    );
  };
