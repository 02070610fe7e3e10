// GET, POST and DELETE /images/tags, PUT /images/description. The query names the image: `imageId`,
// or `imageTitle` with `datasetId`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { rewriteRevisionsOf } from '../../services/annotation-revisions.service.ts';
import * as images from '../../services/images.service.ts';
import { SUCCESS, Success, errorResponses } from '../schemas/common.ts';
import { AttachTagBody, DetachTagsBody, ImageQuery, descriptionBody } from '../schemas/requests.ts';
import { ImageTag } from '../schemas/resources.ts';
import { needs } from '../plugins/project-access.ts';

export const imageRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;

    app.get(
      '/images/tags',
      {
        config: { access: needs('viewer', ['image', 'query.imageId'], ['dataset', 'query.datasetId']) },
        schema: {
          tags: ['images'],
          summary: 'The tags attached to an image, in tag id order',
          querystring: ImageQuery,
          response: { 200: Type.Array(ImageTag), ...errorResponses },
        },
      },
      async (request) => images.listImageTags(db, request.principal.teamId, request.query),
    );

    app.post(
      '/images/tags',
      {
        config: { access: needs('annotator', ['image', 'query.imageId'], ['dataset', 'query.datasetId']) },
        schema: {
          tags: ['images'],
          summary: 'Attach a tag of the image’s project, by id or by title; `create` makes a missing title',
          querystring: ImageQuery,
          body: AttachTagBody,
          response: { 200: Success, ...errorResponses },
        },
      },
      async (request) => {
        await images.attachTag(db, request.principal, request.query, request.body, rewriteRevisionsOf(ctx, request.principal));
        return SUCCESS;
      },
    );

    app.delete(
      '/images/tags',
      {
        config: { access: needs('annotator', ['image', 'query.imageId'], ['dataset', 'query.datasetId']) },
        schema: {
          tags: ['images'],
          summary: 'Detach tags, by id or by title; any tag unknown to the project detaches none',
          querystring: ImageQuery,
          body: DetachTagsBody,
          response: { 200: Success, ...errorResponses },
        },
      },
      async (request) => {
        await images.detachTags(db, request.principal.teamId, request.query, request.body, rewriteRevisionsOf(ctx, request.principal));
        return SUCCESS;
      },
    );

    app.put(
      '/images/description',
      {
        config: { access: needs('manager', ['image', 'query.imageId'], ['dataset', 'query.datasetId']) },
        schema: {
          tags: ['images'],
          summary: 'Set the image’s description',
          querystring: ImageQuery,
          body: descriptionBody(ctx.config.limits),
          response: { 200: Success, ...errorResponses },
        },
      },
      async (request) => {
        await images.setDescription(db, request.principal.teamId, request.query, request.body.value, rewriteRevisionsOf(ctx, request.principal));
        return SUCCESS;
      },
    );
  };
