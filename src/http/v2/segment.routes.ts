// The segment tool: which model the server runs, its decoder for the browser, and each image's
// embedding by it (made on first request, kept for good, cached by the client for good).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { queueDatasetEmbeddings } from '../../services/embedding-tasks.ts';
import { ImageFiles } from '../../services/image-files.service.ts';
import { Id } from '../schemas/common.ts';
import { SegmentModels } from '../../services/segment-models.service.ts';
import { EmbeddingsAnswer, ModelQuery, OptionalModelQuery, SegmentModel, SegmentModelList } from '../schemas/v2-segment.ts';
import { problemResponses } from '../schemas/v2.ts';
import { sendStoredBytes } from './stored-bytes.ts';
import { TEAM_ROUTE, needs } from '../plugins/project-access.ts';

const ImageParams = Type.Object({ id: Id });
const DatasetParams = Type.Object({ datasetId: Id });
const bytesResponses = {
  200: Type.Unknown({ description: 'the bytes' }),
  304: Type.Null({ description: 'the client’s copy (If-None-Match) is current' }),
  ...problemResponses,
};

export const segmentRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const files = new ImageFiles(ctx);
    const models = new SegmentModels(ctx);

    app.get(
      '/segment/model',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['segment'],
          summary: 'The segment tool’s model (the default, or the one named): its name, input size and decoder',
          querystring: OptionalModelQuery,
          response: { 200: SegmentModel, ...problemResponses },
        },
      },
      async (request, reply) => {
        const info = await ctx.embeddings.model();
        const model = request.query.model ?? info.model;
        const { decoderBytes } = await models.resolve(request.principal.teamId, model);
        void reply.header('cache-control', 'no-cache');
        return { model, inputSize: info.inputSize, decoder: `/v2/segment/decoder?model=${model}`, decoderBytes };
      },
    );

    app.get(
      '/segment/models',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['segment'],
          summary: 'The models the segment tool may use: the configured one (the default), then the team’s catalogue models of the SAM family with weights',
          response: { 200: SegmentModelList, ...problemResponses },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-cache');
        return { items: await models.list(request.principal.teamId) };
      },
    );

    app.get(
      '/segment/decoder',
      { config: { access: TEAM_ROUTE }, schema: { tags: ['segment'], summary: 'The model’s ONNX mask decoder, cacheable for good', querystring: ModelQuery, response: bytesResponses } },
      async (request, reply) => {
        const model = request.query.model;
        const { files: modelFiles, decoderBytes } = await models.resolve(request.principal.teamId, model);
        return sendStoredBytes(request, reply, {
          etag: `"${model}"`,
          size: decoderBytes,
          contentType: 'application/octet-stream',
          open: async () => Readable.from([await ctx.embeddings.decoder(modelFiles)]),
        });
      },
    );

    app.get(
      '/images/:id/embedding',
      {
        config: { access: needs('viewer', ['image', 'params.id']) },
        schema: {
          tags: ['segment'],
          summary: 'The image’s embedding by the model (fp16, its shape first), made on first request; cacheable for good',
          params: ImageParams,
          querystring: ModelQuery,
          response: bytesResponses,
        },
      },
      async (request, reply) => {
        const file = await files.file(request.changeStamp, request.principal.teamId, request.params.id);
        const { files: modelFiles } = await models.resolve(request.principal.teamId, request.query.model);
        const embedding = await ctx.embeddings.embedding(file.hash, modelFiles);
        return sendStoredBytes(request, reply, {
          etag: `"${embedding.key}"`,
          size: embedding.bytes,
          contentType: 'application/octet-stream',
          open: (range) => ctx.blobs.read(embedding.key, range),
        });
      },
    );

    app.post(
      '/datasets/:datasetId/embeddings',
      {
        config: { access: needs('manager', ['dataset', 'params.datasetId']) },
        schema: {
          tags: ['segment'],
          summary: 'Queue a task that computes the embeddings the dataset’s images lack, ahead of their first use',
          params: DatasetParams,
          response: { 202: EmbeddingsAnswer, ...problemResponses },
        },
      },
      async (request, reply) => reply.code(202).send(await queueDatasetEmbeddings(ctx, request.principal, request.params.datasetId)),
    );
  };
