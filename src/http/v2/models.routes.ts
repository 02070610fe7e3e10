// Architectures (one catalogue for everybody; admins change it) and the team's models with their
// weights file: /v2/architectures[/:id], /v2/models[/:id], /v2/models/:id/weights.
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { AppError } from '../../errors.ts';
import * as models from '../../services/models.service.ts';
import { requireAdmin } from '../plugins/auth.ts';
import { Architecture, Model } from '../schemas/resources.ts';
import { ArchitectureBody, ModelBody, ModelChange, WeightsAnswer } from '../schemas/v2-models.ts';
import { IdParams, IfMatchHeaders, ListOf, ListQuery, Problem, problemResponses } from '../schemas/v2.ts';
import { parseRange } from './byte-range.ts';
import { decodeCursor, encodeCursor, isIdKey, sendList } from './cursor.ts';
import { ifMatchOf, sendTagged } from './etag.ts';
import { TEAM_ROUTE } from '../plugins/project-access.ts';

const PageQuery = Type.Object(ListQuery);

export const modelRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const weightsLimit = ctx.config.limits.uploadFileBytes;

    app.get(
      '/architectures',
      {
        config: { access: TEAM_ROUTE },
        schema: { tags: ['architectures'], summary: 'Model architectures, a page at a time', querystring: PageQuery, response: { 200: ListOf(Architecture), ...problemResponses } },
      },
      async (request, reply) => {
        const { limit = 100, cursor, count } = request.query;
        const { nextId, ...page } = await models.listArchitectures(db, { limit, count, afterId: decodeCursor(cursor, isIdKey) });
        return sendList(request, reply, { ...page, nextCursor: nextId === null ? null : encodeCursor(nextId) });
      },
    );

    app.get(
      '/architectures/:id',
      { config: { access: TEAM_ROUTE }, schema: { tags: ['architectures'], summary: 'One architecture', params: IdParams, response: { 200: Architecture, 304: Type.Null({ description: 'not modified: If-None-Match names the current ETag' }), ...problemResponses } } },
      async (request, reply) => sendTagged(request, reply, await models.getArchitecture(db, request.params.id)),
    );

    app.post(
      '/architectures',
      {
        config: { access: TEAM_ROUTE },
        schema: { tags: ['architectures'], summary: 'Add an architecture (admin scope)', body: ArchitectureBody, response: { 201: Architecture, ...problemResponses } },
      },
      async (request, reply) => {
        requireAdmin(request);
        const architecture = await models.createArchitecture(db, request.body);
        void reply.header('location', `/v2/architectures/${architecture.id}`);
        return sendTagged(request, reply, architecture, 201);
      },
    );

    app.delete(
      '/architectures/:id',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['architectures'],
          summary: 'Remove an architecture (admin scope); 409 while models use it',
          params: IdParams,
          headers: IfMatchHeaders,
          response: { 204: Type.Null(), ...problemResponses, 409: Problem, 412: Problem },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        await models.deleteArchitecture(db, request.params.id, ifMatchOf(request));
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/models',
      { config: { access: TEAM_ROUTE }, schema: { tags: ['models'], summary: 'The team’s models, a page at a time', querystring: PageQuery, response: { 200: ListOf(Model), ...problemResponses } } },
      async (request, reply) => {
        const { limit = 100, cursor, count } = request.query;
        const { nextId, ...page } = await models.listModels(db, request.principal.teamId, { limit, count, afterId: decodeCursor(cursor, isIdKey) });
        return sendList(request, reply, { ...page, nextCursor: nextId === null ? null : encodeCursor(nextId) });
      },
    );

    app.post(
      '/models',
      { config: { access: TEAM_ROUTE }, schema: { tags: ['models'], summary: 'Register a model of the team; upload its weights with PUT /v2/models/{id}/weights', body: ModelBody, response: { 201: Model, ...problemResponses } } },
      async (request, reply) => {
        const model = await models.createModel(ctx, request.principal.teamId, request.body);
        void reply.header('location', `/v2/models/${model.id}`);
        return sendTagged(request, reply, model, 201);
      },
    );

    app.get(
      '/models/:id',
      { config: { access: TEAM_ROUTE }, schema: { tags: ['models'], summary: 'One of the team’s models', params: IdParams, response: { 200: Model, 304: Type.Null({ description: 'not modified: If-None-Match names the current ETag' }), ...problemResponses } } },
      async (request, reply) => sendTagged(request, reply, await models.getModel(db, request.principal.teamId, request.params.id)),
    );

    app.patch(
      '/models/:id',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['models'],
          summary: 'Rename a model; with If-Match, only while it is still the version that ETag names',
          params: IdParams,
          headers: IfMatchHeaders,
          body: ModelChange,
          response: { 200: Model, ...problemResponses, 412: Problem },
        },
      },
      async (request, reply) => sendTagged(request, reply, await models.renameModel(db, request.principal.teamId, request.params.id, request.body.title, ifMatchOf(request))),
    );

    app.delete(
      '/models/:id',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['models'],
          summary: 'Remove a model and its weights; with If-Match, only while it is still the version that ETag names',
          params: IdParams,
          headers: IfMatchHeaders,
          response: { 204: Type.Null(), ...problemResponses, 412: Problem },
        },
      },
      async (request, reply) => {
        await models.deleteModel(ctx, request.principal.teamId, request.params.id, ifMatchOf(request));
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/models/:id/weights',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['models'],
          summary: 'The model’s weights file, whole or one byte range',
          params: IdParams,
          response: {
            200: Type.Unknown({ description: 'the weights (application/octet-stream)' }),
            206: Type.Unknown({ description: 'one byte range of the weights' }),
            ...problemResponses,
            416: Problem,
          },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const { stat, open } = await models.modelWeights(ctx, request.principal.teamId, id);
        void reply.header('content-type', 'application/octet-stream');
        void reply.header('content-disposition', `attachment; filename="model-${id}.weights"`);
        void reply.header('accept-ranges', 'bytes');
        void reply.header('etag', stat.etag);
        const ifRange = request.headers['if-range'];
        const range = parseRange(request.headers.range, stat.size, Array.isArray(ifRange) ? ifRange[0] : ifRange, stat.etag);
        if (range === 'unsatisfiable') {
          void reply.header('content-range', `bytes */${stat.size}`);
          throw new AppError('RANGE_NOT_SATISFIABLE', `the range is outside the weights' ${stat.size} bytes`, { size: stat.size });
        }
        if (range) {
          void reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${stat.size}`).header('content-length', range.end - range.start + 1);
          return reply.send(await open(range));
        }
        void reply.header('content-length', stat.size);
        return reply.send(await open());
      },
    );

    // The weights arrive as the raw body, whatever its declared type: streamed, never parsed.
    const weightsUpload: FastifyPluginAsyncTypebox = async (raw) => {
      raw.removeAllContentTypeParsers();
      raw.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

      raw.put(
        '/models/:id/weights',
        {
          config: { access: TEAM_ROUTE },
          schema: {
            tags: ['models'],
            summary: `Upload the model’s weights file as the request body (at most ${weightsLimit} bytes); replaces earlier weights once it has arrived whole`,
            params: IdParams,
            headers: IfMatchHeaders,
            response: { 200: WeightsAnswer, ...problemResponses, 412: Problem, 413: Problem },
          },
        },
        async (request) => {
          const declared = Number(request.headers['content-length']);
          if (declared > weightsLimit) throw new AppError('PAYLOAD_TOO_LARGE', `a weights file is at most ${weightsLimit} bytes`, { limit: weightsLimit });
          const body = (request.body as Readable | undefined) ?? request.raw;
          const stat = await models.putWeights(ctx, request.principal.teamId, request.params.id, body, weightsLimit, ifMatchOf(request));
          return { size: stat.size };
        },
      );
    };
    await app.register(weightsUpload);
  };
