// GET /v2/images/:id/file and GET /v2/images/:id/thumbnail: the bytes of a team's image as uploaded,
// and a WebP thumbnail of it (made on first request when the background task has not made it yet).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { ImageFiles } from '../../services/image-files.service.ts';
import { THUMBNAIL_SIZES, type ThumbnailSize } from '../../services/thumbnails.service.ts';
import type { ImageFileRow } from '../../repositories/image-files.repository.ts';
import type { ThumbnailRecord } from '../../repositories/thumbnails.repository.ts';
import { Id } from '../schemas/common.ts';
import { Problem, problemResponses } from '../schemas/v2.ts';
import { type StoredBytes, sendStoredBytes } from './stored-bytes.ts';
import { needs } from '../plugins/project-access.ts';

const ImageParams = Type.Object({ id: Id });
const ThumbnailQuery = Type.Object(
  { size: Type.Optional(Type.Integer({ enum: [...THUMBNAIL_SIZES], default: 256, description: 'the longest side to fit: 256 (when not given) or 1024' })) },
  { additionalProperties: false },
);

const fileResponses = {
  200: Type.Unknown({ description: 'the bytes' }),
  206: Type.Unknown({ description: 'one byte range of the bytes' }),
  304: Type.Null({ description: 'the client’s copy (If-None-Match) is current' }),
  ...problemResponses,
  416: Problem,
};

export const imageFileRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const files = new ImageFiles(ctx);
    const blobs = ctx.blobs;

    const imageBytes = (file: ImageFileRow): StoredBytes => ({
      etag: `"${file.hash}"`,
      size: file.size,
      contentType: file.mediaType,
      open: (range) => blobs.read(file.hash, range),
    });
    const thumbnailBytes = (thumbnail: ThumbnailRecord): StoredBytes => ({
      etag: `"${thumbnail.key}"`,
      size: thumbnail.bytes,
      contentType: 'image/webp',
      open: (range) => blobs.read(thumbnail.key, range),
    });

    // Plain (not async) handlers: an image or thumbnail already known is sent without a promise of
    // the handler's own; only the store's open is awaited.
    app.get(
      '/images/:id/file',
      {
        config: { access: needs('viewer', ['image', 'params.id']) },
        schema: {
          tags: ['images'],
          summary: 'The image’s bytes as uploaded, whole or one byte range; cacheable for good',
          params: ImageParams,
          response: fileResponses,
        },
      },
      (request, reply) => {
        const file = files.file(request.changeStamp, request.principal.teamId, request.params.id);
        if (file instanceof Promise) return file.then((found) => sendStoredBytes(request, reply, imageBytes(found)));
        return sendStoredBytes(request, reply, imageBytes(file));
      },
    );

    app.get(
      '/images/:id/thumbnail',
      {
        config: { access: needs('viewer', ['image', 'params.id']) },
        schema: {
          tags: ['images'],
          summary: 'A WebP of the image fitted inside size × size (never enlarged, turned upright); cacheable for good',
          params: ImageParams,
          querystring: ThumbnailQuery,
          response: { ...fileResponses, 415: Problem },
        },
      },
      (request, reply) => {
        const size = request.query.size as ThumbnailSize;
        const thumbnail = files.thumbnail(request.changeStamp, request.principal.teamId, request.params.id, size);
        if (thumbnail instanceof Promise) return thumbnail.then((found) => sendStoredBytes(request, reply, thumbnailBytes(found)));
        return sendStoredBytes(request, reply, thumbnailBytes(thumbnail));
      },
    );
  };
