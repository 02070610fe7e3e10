// POST /v2/datasets/:datasetId/images, GET /v2/images, GET, PATCH and DELETE /v2/images/:id,
// POST /v2/images/:id/copy.
import path from 'node:path';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { rewriteRevisionsOf } from '../../services/annotation-revisions.service.ts';
import { changeImage, copyImage, deleteImage, describeImage } from '../../services/image-changes.service.ts';
import { ImageListPages, type SentPage, readerOfList } from '../../services/image-list.service.ts';
import { type ImageFilePart, RefusedFiles, requireUploadDataset, uploadImages } from '../../services/image-upload.service.ts';
import { StagingFolder } from '../../storage/staging.ts';
import { checkMultipartBoundary } from '../multipart-boundary.ts';
import { tooManyFiles } from '../import-upload.ts';
import { IdempotencyHeaders, IfMatchHeaders, ListOf, ListQuery, Problem, problemResponses } from '../schemas/v2.ts';
import { DatasetImagesParams, ImageCopyBody, ImageListFilters, ImageMetadata, ImageParams, ImagePositionQuery, UploadedImages, imageChangeBody } from '../schemas/v2-images.ts';
import type { ImagePosition, ImageSort } from '../../repositories/image-metadata.repository.ts';
import { decodeCursor, encodeCursor, isCountIdKey, isIdKey, isNameIdKey, nextLink, sendListBody } from './cursor.ts';
import { ifMatchOf, sendTagged } from './etag.ts';
import { needs } from '../plugins/project-access.ts';

/** Every file part of the request, streamed to the staging folder; its filename names the image. */
async function receiveImageFiles(request: FastifyRequest, folder: StagingFolder, maxFiles: number): Promise<ImageFilePart[]> {
  const parts: ImageFilePart[] = [];
  for await (const part of request.parts()) {
    if (part.type !== 'file') throw new AppError('VALIDATION', `part "${part.fieldname}" is not a file: send each image as a file part`, { field: part.fieldname });
    if (parts.length >= maxFiles) throw tooManyFiles(maxFiles);
    parts.push({ name: part.filename, file: await folder.receive(part.file) });
  }
  return parts;
}

export const imageRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const limits = ctx.config.limits;
    // A list by id resumes after an id, a list by name after a name and id: a cursor of the one is a
    // 400 in the other.
    const pages = new ImageListPages(db, (sort, next) =>
      encodeCursor(sort === 'name' ? [next.name, next.id] : sort === 'objects' || sort === '-objects' ? [next.objects, next.id] : next.id),
    );
    const positionOf = (sort: ImageSort, cursor: string | undefined): ImagePosition | undefined => {
      if (sort === 'name') {
        const key = decodeCursor(cursor, isNameIdKey);
        return key && { name: key[0], id: key[1] };
      }
      if (sort === 'objects' || sort === '-objects') {
        const key = decodeCursor(cursor, isCountIdKey);
        return key && { objects: key[0], id: key[1] };
      }
      const id = decodeCursor(cursor, isIdKey);
      return id === undefined ? undefined : { id };
    };
    // The Link header of a kept page, for the URL it was last asked by: building it (URL parsing and
    // searchParams) costs more than the rest of sending a kept page.
    const links = new WeakMap<SentPage, { url: string; link: string }>();
    const linkOf = (request: FastifyRequest, page: SentPage): string | undefined => {
      if (page.nextCursor === null) return undefined;
      const kept = links.get(page);
      if (kept?.url === request.url) return kept.link;
      const link = nextLink(request, page.nextCursor);
      links.set(page, { url: request.url, link });
      return link;
    };

    await app.register(multipart, {
      throwFileSizeLimit: false, // an oversized file is refused by the upload's checks, by name
      limits: {
        fieldNameSize: 1024,
        fieldSize: 64 * 1024,
        // One field is let through, to be refused by name: images come as file parts only.
        fields: 1,
        // One file past the limit, refused by the route's own check (tooManyFiles).
        files: limits.uploadFilesPerRequest + 1,
        fileSize: limits.uploadFileBytes,
        parts: limits.uploadFilesPerRequest + 2,
        headerPairs: 100,
      },
    });

    app.post(
      '/datasets/:datasetId/images',
      {
        config: { access: needs('manager', ['dataset', 'params.datasetId']) },
        schema: {
          tags: ['images'],
          summary: 'Upload images into a dataset (multipart: one file part per image, its filename the image’s name)',
          consumes: ['multipart/form-data'],
          params: DatasetImagesParams,
          headers: IdempotencyHeaders,
          response: { 201: UploadedImages, ...problemResponses, 409: Problem, 413: Problem, 415: Problem },
        },
      },
      async (request, reply) => {
        if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send multipart/form-data');
        checkMultipartBoundary(request.headers['content-type']);
        const { datasetId } = request.params;
        await requireUploadDataset(ctx, request.principal.teamId, datasetId);
        const folder = await StagingFolder.create(path.join(ctx.config.dataDir, 'tmp', 'uploads'), { flush: ctx.blobs.adoptsLocalFiles });
        try {
          const parts = await receiveImageFiles(request, folder, limits.uploadFilesPerRequest);
          const items = await uploadImages(ctx, request.principal, datasetId, parts);
          return await reply.code(201).send({ items });
        } catch (error) {
          if (error instanceof RefusedFiles) {
            throw new AppError('VALIDATION', error.message, { errors: error.problems.map((p) => ({ pointer: `/files/${p.index}`, detail: p.detail })) });
          }
          throw error;
        } finally {
          await folder.remove();
        }
      },
    );

    app.get(
      '/images',
      {
        config: { access: needs('viewer', ['project', 'query.projectId'], ['dataset', 'query.datasetId']) },
        schema: {
          tags: ['images'],
          summary: 'A page of a dataset’s or a project’s images, by id or by name, with filters',
          querystring: Type.Object({ ...ListQuery, ...ImageListFilters, ...ImagePositionQuery }, { additionalProperties: false }),
          response: { 200: ListOf(ImageMetadata), ...problemResponses },
        },
      },
      async (request, reply) => {
        const { cursor, limit, ...query } = request.query;
        if (cursor !== undefined && query.offset !== undefined) throw new AppError('VALIDATION', 'give a cursor or an offset, not both', { field: 'offset' });
        const after = positionOf(query.sort ?? 'id', cursor);
        const reader = await readerOfList(db, request.principal, query);
        const page = await pages.page(request.principal.teamId, reader, { ...query, limit: limit ?? 100, after }, cursor, request.changeStamp);
        return sendListBody(request, reply, page.body, page.nextCursor, linkOf(request, page));
      },
    );

    app.get(
      '/images/:id',
      {
        config: { access: needs('viewer', ['image', 'params.id']) },
        schema: {
          tags: ['images'],
          summary: 'An image’s metadata, with an ETag',
          params: ImageParams,
          response: { 200: ImageMetadata, 304: Type.Null({ description: 'not modified: If-None-Match names the current ETag' }), ...problemResponses },
        },
      },
      async (request, reply) => sendTagged(request, reply, await describeImage(db, request.principal.teamId, request.params.id)),
    );

    app.patch(
      '/images/:id',
      {
        config: { access: needs('manager', ['image', 'params.id'], ['dataset', 'body.datasetId']) },
        schema: {
          tags: ['images'],
          summary: 'Rename an image, set its description, or move it to another dataset of the team (If-Match honoured)',
          params: ImageParams,
          headers: IfMatchHeaders,
          body: imageChangeBody(limits),
          response: { 200: ImageMetadata, ...problemResponses, 409: Problem, 412: Problem },
        },
      },
      async (request, reply) => {
        const image = await changeImage(db, request.principal.teamId, request.params.id, request.body, ifMatchOf(request), rewriteRevisionsOf(ctx, request.principal));
        return sendTagged(request, reply, image);
      },
    );

    app.post(
      '/images/:id/copy',
      {
        config: { access: needs('manager', ['image', 'params.id'], ['dataset', 'body.datasetId']) },
        schema: {
          tags: ['images'],
          summary: 'Copy an image into a dataset of the team: the same bytes, annotation and tags',
          params: ImageParams,
          headers: IdempotencyHeaders,
          body: ImageCopyBody,
          response: { 201: ImageMetadata, ...problemResponses, 409: Problem },
        },
      },
      async (request, reply) => {
        const copy = await copyImage(db, request.principal.teamId, request.params.id, request.body, rewriteRevisionsOf(ctx, request.principal));
        return sendTagged(request, reply, copy, 201);
      },
    );

    app.delete(
      '/images/:id',
      {
        config: { access: needs('manager', ['image', 'params.id']) },
        schema: {
          tags: ['images'],
          summary: 'Delete an image (If-Match honoured); its bytes go when nothing else uses them',
          params: ImageParams,
          headers: IfMatchHeaders,
          response: { 204: Type.Null(), ...problemResponses, 412: Problem },
        },
      },
      async (request, reply) => {
        await deleteImage(db, request.principal.teamId, request.params.id, ifMatchOf(request));
        return reply.code(204).send(null);
      },
    );
  };
