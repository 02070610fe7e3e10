// POST /v2/exports, GET /v2/exports/:id, GET /v2/exports/:id/archive, DELETE /v2/exports/:id.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { pathSegment } from '../../formats/archive-names.ts';
import { deleteExport, describeExport, exportArchive, exportView, startExport } from '../../services/export.service.ts';
import { IfMatchHeaders, Problem, problemResponses } from '../schemas/v2.ts';
import { ExportAnswer, ExportBody, ExportParams } from '../schemas/exports.ts';
import { parseRange } from './byte-range.ts';
import { ifMatchOf, sendTagged } from './etag.ts';
import { needs } from '../plugins/project-access.ts';

/** Percent-encoding as RFC 5987 allows in `filename*`: encodeURIComponent leaves ' ( ) * as they are. */
const rfc5987 = (text: string): string => encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function attachmentName(task: { meta: Record<string, unknown> }): string {
  const name = typeof task.meta.name === 'string' ? task.meta.name : 'export';
  const ascii = name.replace(/[^A-Za-z0-9._ -]+/g, '_').trim() || 'export';
  // A browser strips a path from the name it is given, but a script saving to `filename*` as told
  // would climb out of its folder: the name is one path segment, as inside the archive.
  return `attachment; filename="${ascii}.zip"; filename*=UTF-8''${rfc5987(pathSegment(`${name}.zip`))}`;
}

export const exportRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/exports',
      {
        config: { access: needs('manager', ['project', 'body.projectId'], ['dataset', 'body.datasetIds'], ['version', 'body.version']) },
        schema: {
          tags: ['exports'],
          summary: 'Export a project, or some of its datasets, as a zip archive in a format',
          body: ExportBody,
          response: { 201: ExportAnswer, ...problemResponses },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const task = await startExport(ctx, request.principal, { ...body, options: body.options as Record<string, unknown> | undefined });
        return reply.code(201).send({ task, archive: null });
      },
    );

    app.get(
      '/exports/:id',
      {
        config: { access: needs('viewer', ['task', 'params.id']) },
        schema: {
          tags: ['exports'],
          summary: 'An export task and, once it has finished, its archive’s size',
          params: ExportParams,
          response: { 200: ExportAnswer, 304: Type.Null({ description: 'not modified: If-None-Match names the current ETag' }), ...problemResponses },
        },
      },
      async (request, reply) => sendTagged(request, reply, exportView(await describeExport(ctx, request.principal.teamId, request.params.id))),
    );

    app.get(
      '/exports/:id/archive',
      {
        config: { access: needs('viewer', ['task', 'params.id']) },
        schema: {
          tags: ['exports'],
          summary: 'The archive of a finished export, whole or one byte range',
          params: ExportParams,
          response: {
            200: Type.Unknown({ description: 'the zip archive (application/zip)' }),
            206: Type.Unknown({ description: 'one byte range of the archive' }),
            ...problemResponses,
            409: Problem,
            410: Problem,
            416: Problem,
          },
        },
      },
      async (request, reply) => {
        const { task, stat, open } = await exportArchive(ctx, request.principal.teamId, request.params.id);
        void reply.header('Content-Type', 'application/zip');
        void reply.header('Content-Disposition', attachmentName(task));
        void reply.header('Accept-Ranges', 'bytes');
        void reply.header('ETag', stat.etag);
        const ifRange = request.headers['if-range'];
        const range = parseRange(request.headers.range, stat.size, Array.isArray(ifRange) ? ifRange[0] : ifRange, stat.etag);
        if (range === 'unsatisfiable') {
          void reply.header('Content-Range', `bytes */${stat.size}`);
          throw new AppError('RANGE_NOT_SATISFIABLE', `the range is outside the archive's ${stat.size} bytes`, { size: stat.size });
        }
        if (range) {
          void reply.code(206).header('Content-Range', `bytes ${range.start}-${range.end}/${stat.size}`).header('Content-Length', range.end - range.start + 1);
          return reply.send(await open(range));
        }
        void reply.header('Content-Length', stat.size);
        return reply.send(await open());
      },
    );

    app.delete(
      '/exports/:id',
      {
        config: { access: needs('manager', ['task', 'params.id']) },
        schema: {
          tags: ['exports'],
          summary: 'Remove an export’s archive and its task; a running export is stopped first',
          params: ExportParams,
          headers: IfMatchHeaders,
          response: { 204: Type.Null(), ...problemResponses, 409: Problem, 412: Problem },
        },
      },
      async (request, reply) => {
        await deleteExport(ctx, request.principal.teamId, request.params.id, ifMatchOf(request));
        return reply.code(204).send(null);
      },
    );
  };
