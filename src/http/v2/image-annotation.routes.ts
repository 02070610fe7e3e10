// GET, PUT and PATCH /v2/images/:id/annotation: one image's annotation, its objects with stable ids,
// changed only under the If-Match the client read.
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../context.ts';
import { type AnnotationAnswer, getAnnotation, patchAnnotation, replaceAnnotation, restoreRevision } from '../../services/annotation-edits.service.ts';
import { keyAuthor } from '../../services/annotation-revisions.service.ts';
import { RevisionParams } from '../schemas/annotation-revisions.ts';
import { WrittenAnnotations } from '../../services/stored-object-texts.ts';
import { AnnotationBody, AnnotationPatchBody, ImageAnnotation } from '../schemas/image-annotation.ts';
import { IdParams, IfMatchHeaders, Problem, problemResponses } from '../schemas/v2.ts';
import { ifMatchOf, ifNoneMatchHits } from './etag.ts';
import { needs } from '../plugins/project-access.ts';

/**
 * Sends the annotation with its ETag, or a 304 to a GET whose If-None-Match names it. The body is JSON
 * text already (see annotation-text.ts), sent as it is.
 */
function sendAnnotation(request: FastifyRequest, reply: FastifyReply, answer: AnnotationAnswer): FastifyReply {
  void reply.header('etag', answer.etag);
  if ((request.method === 'GET' || request.method === 'HEAD') && ifNoneMatchHits(request, answer.etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(answer.json());
}

export const imageAnnotationRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    // What this server wrote last, so a PUT writes unchanged objects as the text they were stored as.
    const written = new WrittenAnnotations();
    const bodyLimit = ctx.config.limits.annotationBodyBytes;
    const changeResponses = { 200: ImageAnnotation, ...problemResponses, 412: Problem, 413: Problem };

    app.get(
      '/images/:id/annotation',
      {
        config: { access: needs('viewer', ['image', 'params.id']) },
        schema: {
          tags: ['annotations'],
          summary: 'The annotation of an image, every object with its stable id; ETag, 304 on If-None-Match',
          params: IdParams,
          response: { 200: ImageAnnotation, 304: Type.Null({ description: 'not modified: If-None-Match names the current ETag' }), ...problemResponses },
        },
      },
      async (request, reply) => sendAnnotation(request, reply, await getAnnotation(ctx, request.principal.teamId, request.params.id)),
    );

    app.put(
      '/images/:id/annotation',
      {
        config: { access: needs('annotator', ['image', 'params.id']) },
        bodyLimit,
        schema: {
          tags: ['annotations'],
          summary: 'Replace the annotation: objects, image tags, description; objects sent with an id keep it',
          params: IdParams,
          headers: IfMatchHeaders,
          body: AnnotationBody,
          response: changeResponses,
        },
      },
      async (request, reply) => {
        const answer = await replaceAnnotation(ctx, written, keyAuthor(request.principal), request.params.id, request.body, ifMatchOf(request));
        return sendAnnotation(request, reply, answer);
      },
    );

    app.patch(
      '/images/:id/annotation',
      {
        config: { access: needs('annotator', ['image', 'params.id']) },
        bodyLimit,
        schema: {
          tags: ['annotations'],
          summary: 'Add, change and remove single objects by id',
          params: IdParams,
          headers: IfMatchHeaders,
          body: AnnotationPatchBody,
          response: changeResponses,
        },
      },
      async (request, reply) => {
        const answer = await patchAnnotation(ctx, written, keyAuthor(request.principal), request.params.id, request.body, ifMatchOf(request));
        return sendAnnotation(request, reply, answer);
      },
    );

    app.post(
      '/images/:id/annotation/revisions/:revisionId/restore',
      {
        config: { access: needs('annotator', ['image', 'params.id']) },
        schema: {
          tags: ['annotations'],
          summary: 'Restore the annotation a revision left, as a new revision; under If-Match as a PUT',
          params: RevisionParams,
          headers: IfMatchHeaders,
          response: changeResponses,
        },
      },
      async (request, reply) => {
        const answer = await restoreRevision(ctx, written, keyAuthor(request.principal), request.params.id, request.params.revisionId, ifMatchOf(request));
        return sendAnnotation(request, reply, answer);
      },
    );
  };
