// POST and GET /v2/projects/:projectId/versions, GET and DELETE /v2/versions/:id,
// GET /v2/versions/:id/images, /images/:imageId/file, /diff and /leakage: frozen snapshots of a project.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { DEFAULT_DISTANCE } from '../../services/hamming-pairs.ts';
import { versionLeakage } from '../../services/version-leakage.service.ts';
import * as versions from '../../services/versions.service.ts';
import { ProjectIdParams } from '../schemas/catalog.ts';
import { Id } from '../schemas/common.ts';
import { IdParams, IdempotencyHeaders, ListOf, Problem, problemResponses } from '../schemas/v2.ts';
import { DiffQuery, Leakage, LeakageQuery, Version, VersionBody, VersionDiff, VersionImage, VersionImagesQuery, VersionsQuery } from '../schemas/v2-versions.ts';
import { sendTagged } from './etag.ts';
import { pageRequestOf, sendPage } from './id-cursor.ts';
import { sendStoredBytes } from './stored-bytes.ts';
import { needs } from '../plugins/project-access.ts';

const VersionImageParams = Type.Object({ id: Id, imageId: Id });

export const versionRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const tags = ['versions'];

    app.post(
      '/projects/:projectId/versions',
      {
        config: { access: needs('manager', ['project', 'params.projectId']) },
        schema: {
          tags,
          summary: 'Freeze the project (or some datasets) as a version: images by hash, annotations as they are, classes with stable indices, subsets',
          params: ProjectIdParams,
          headers: IdempotencyHeaders,
          body: VersionBody,
          response: { 201: Version, ...problemResponses, 409: Problem },
        },
      },
      async (request, reply) => {
        const version = await versions.createVersion(db, request.principal.teamId, request.principal.userId, request.params.projectId, request.body);
        void reply.header('location', `/v2/versions/${version.id}`);
        return sendTagged(request, reply, version, 201);
      },
    );

    app.get(
      '/projects/:projectId/versions',
      { config: { access: needs('viewer', ['project', 'params.projectId']) }, schema: { tags, summary: 'The project’s versions, oldest first', params: ProjectIdParams, querystring: VersionsQuery, response: { 200: ListOf(Version), ...problemResponses } } },
      async (request, reply) => {
        const { afterId, limit } = pageRequestOf(request.query);
        return sendPage(request, reply, await versions.pageOfVersions(db, request.principal.teamId, request.params.projectId, afterId, limit));
      },
    );

    app.get(
      '/versions/:id',
      { config: { access: needs('viewer', ['version', 'params.id']) }, schema: { tags, summary: 'A version', params: IdParams, response: { 200: Version, 304: Type.Null(), ...problemResponses } } },
      async (request, reply) => sendTagged(request, reply, await versions.describeVersion(db, request.principal.teamId, request.params.id)),
    );

    app.get(
      '/versions/:id/images',
      {
        config: { access: needs('viewer', ['version', 'params.id']) },
        schema: {
          tags,
          summary: 'The version’s images in image id order, each with its annotation as it was; of one subset with `subset`',
          params: IdParams,
          querystring: VersionImagesQuery,
          response: { 200: ListOf(VersionImage), ...problemResponses },
        },
      },
      async (request, reply) => {
        const { afterId, limit } = pageRequestOf(request.query);
        return sendPage(request, reply, await versions.pageOfVersionImages(db, request.principal.teamId, request.params.id, request.query.subset, afterId, limit));
      },
    );

    app.get(
      '/versions/:id/images/:imageId/file',
      {
        config: { access: needs('viewer', ['version', 'params.id']) },
        schema: {
          tags,
          summary: 'The bytes of an image as the version holds them (by its hash), even after the image is deleted; whole or one byte range; cacheable for good',
          params: VersionImageParams,
          response: {
            200: Type.Unknown({ description: 'the bytes' }),
            206: Type.Unknown({ description: 'one byte range of the bytes' }),
            304: Type.Null({ description: 'the client’s copy (If-None-Match) is current' }),
            ...problemResponses,
            416: Problem,
          },
        },
      },
      async (request, reply) => {
        const file = await versions.versionImageFile(db, request.principal.teamId, request.params.id, request.params.imageId);
        return sendStoredBytes(request, reply, { etag: `"${file.hash}"`, size: file.size, contentType: file.mediaType, open: (range) => ctx.blobs.read(file.hash, range) });
      },
    );

    app.get(
      '/versions/:id/diff',
      {
        config: { access: needs('viewer', ['version', 'params.id']) },
        schema: {
          tags,
          summary: 'What changed from version `from` to this one: images added, removed, changed; objects per class',
          params: IdParams,
          querystring: DiffQuery,
          response: { 200: VersionDiff, ...problemResponses },
        },
      },
      async (request) => versions.diffVersions(db, request.principal.teamId, request.query.from, request.params.id),
    );

    app.get(
      '/versions/:id/leakage',
      {
        config: { access: needs('viewer', ['version', 'params.id']) },
        schema: {
          tags,
          summary: 'Split leakage: groups of exact copies and near-duplicates that sit in two or more of the version’s subsets',
          params: IdParams,
          querystring: LeakageQuery,
          response: { 200: Leakage, ...problemResponses },
        },
      },
      async (request) =>
        versionLeakage(db, request.principal.teamId, request.params.id, {
          maxDistance: request.query.maxDistance ?? DEFAULT_DISTANCE,
          limit: request.query.limit ?? 50,
          offset: request.query.offset ?? 0,
        }),
    );

    app.delete(
      '/versions/:id',
      { config: { access: needs('manager', ['version', 'params.id']) }, schema: { tags, summary: 'Delete a version (a version is never changed, only deleted)', params: IdParams, response: { 204: Type.Null(), ...problemResponses } } },
      async (request, reply) => {
        await versions.deleteVersion(db, request.principal.teamId, request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
