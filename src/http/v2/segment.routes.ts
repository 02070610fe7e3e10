// The segment tool: which model the server runs, its decoder for the browser, and each image's
// embedding by it (made on first request, kept for good, cached by the client for good).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { queueDatasetEmbeddings } from '../../services/embedding-tasks.ts';
import { ImageFiles } from '../../services/image-files.service.ts';
import { Id } from '../schemas/common.ts';
import { EmbeddingsAnswer, ModelQuery, SegmentModel } from '../schemas/v2-segment.ts';
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
    /** The configured model; a name that is not its own is a model this server does not have. */
    const modelNamed = async (name: string) => {
      const info = await ctx.embeddings.model();
      if (info.model !== name) throw notFound('model', { model: name });
      return info;
    };

    app.get(
      '/segment/model',
      { config: { access: TEAM_ROUTE }, schema: { tags: ['segment'], summary: 'The segment tool’s model: its name, input size and decoder', response: { 200: SegmentModel, ...problemResponses } } },
      async (_request, reply) => {
        const info = await ctx.embeddings.model();
        void reply.header('cache-control', 'no-cache');
        return { model: info.model, inputSize: info.inputSize, decoder: `/v2/segment/decoder?model=${info.model}`, decoderBytes: info.decoderBytes };
      },
    );

    app.get(
      '/segment/decoder',
      { config: { access: TEAM_ROUTE }, schema: { tags: ['segment'], summary: 'The model’s ONNX mask decoder, cacheable for good', querystring: ModelQuery, response: bytesResponses } },
      async (request, reply) => {
        const info = await modelNamed(request.query.model);
        return sendStoredBytes(request, reply, {
          etag: `"${info.model}"`,
          size: info.decoderBytes,
          contentType: 'application/octet-stream',
          open: async () => Readable.from([await ctx.embeddings.decoder()]),
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
        await modelNamed(request.query.model);
        const embedding = await ctx.embeddings.embedding(file.hash);
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
