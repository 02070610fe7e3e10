// GET, POST and DELETE /images/tags, PUT /images/description. The query names the image: `imageId`,
// or `imageTitle` with `datasetId`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import * as images from '../../services/images.service.ts';
import { Id, SUCCESS, Success, Title, errorResponses } from '../schemas/common.ts';
import { ImageTag } from '../schemas/resources.ts';

const ImageQuery = Type.Object({
  imageId: Type.Optional(Id),
  imageTitle: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'image name; needs datasetId' })),
  datasetId: Type.Optional(Id),
});

/** Exactly one of `id` and `title`; the service says which is missing or doubled. */
const TagChoice = {
  id: Type.Optional(Id),
  title: Type.Optional(Title),
};

export const imageRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;

    app.get(
      '/images/tags',
      {
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
        schema: {
          tags: ['images'],
          summary: 'Attach a tag of the image’s project, by id or by title; `create` makes a missing title',
          querystring: ImageQuery,
          body: Type.Object(
            { ...TagChoice, create: Type.Optional(Type.Boolean()) },
            { additionalProperties: false, description: 'exactly one of id or title' },
          ),
          response: { 200: Success, ...errorResponses },
        },
      },
      async (request) => {
        await images.attachTag(db, request.principal, request.query, request.body);
        return SUCCESS;
      },
    );

    app.delete(
      '/images/tags',
      {
        schema: {
          tags: ['images'],
          summary: 'Detach tags, by id or by title; any tag unknown to the project detaches none',
          querystring: ImageQuery,
          body: Type.Array(
            Type.Object(TagChoice, { additionalProperties: false, description: 'exactly one of id or title' }),
            { maxItems: 1000 },
          ),
          response: { 200: Success, ...errorResponses },
        },
      },
      async (request) => {
        await images.detachTags(db, request.principal.teamId, request.query, request.body);
        return SUCCESS;
      },
    );

    app.put(
      '/images/description',
      {
        schema: {
          tags: ['images'],
          summary: 'Set the image’s description',
          querystring: ImageQuery,
          body: Type.Object(
            { value: Type.String({ maxLength: ctx.config.limits.descriptionLength }) },
            { additionalProperties: false },
          ),
          response: { 200: Success, ...errorResponses },
        },
      },
      async (request) => {
        await images.setDescription(db, request.principal.teamId, request.query, request.body.value);
        return SUCCESS;
      },
    );
  };
