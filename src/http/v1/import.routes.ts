// POST /tasks/import/check-images, /tasks/import/files, /tasks/import, /tasks/import/local
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { AppError, validation } from '../../errors.ts';
import { missingHashes } from '../../services/check-images.service.ts';
import { type UploadEntry, completeUpload, parseMetadata } from '../../services/upload.service.ts';
import { StagingFolder } from '../../storage/staging.ts';
import { checkMultipartBoundary } from '../multipart-boundary.ts';
import { LARGE_IMPORT_BODY_BYTES, collectGarbage, holdHeapGrowth } from '../../heap-growth.ts';
import { startImport, startLocalImport } from '../../services/import.service.ts';
import { errorResponses } from '../schemas/common.ts';
import { LocalImportBody, MissingHashes, TaskId, UploadResult, checkImagesBody, importBody } from '../schemas/requests.ts';
import path from 'node:path';

/** Reads the multipart parts: metadata fields in order, file parts streamed to the staging folder. */
async function receiveParts(request: FastifyRequest, folder: StagingFolder, maxFiles: number): Promise<UploadEntry[]> {
  const order: string[] = [];
  const metadata = new Map<string, string>();
  const files = new Map<string, UploadEntry['file']>();
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const key = part.fieldname.endsWith('-file') ? part.fieldname.slice(0, -'-file'.length) : part.fieldname;
      if (files.has(key)) throw validation(`part "${part.fieldname}" appears more than once`);
      files.set(key, await folder.receive(part.file));
    } else {
      if (metadata.has(part.fieldname)) throw validation(`part "${part.fieldname}" appears more than once`);
      if (order.length >= maxFiles) {
        throw new AppError('PAYLOAD_TOO_LARGE', `at most ${maxFiles} files per request`, { limit: maxFiles });
      }
      order.push(part.fieldname);
      // A part sent as application/json arrives parsed: it is checked as the text the client sent.
      metadata.set(part.fieldname, typeof part.value === 'string' ? part.value : JSON.stringify(part.value));
    }
  }
  return order.map((key) => ({ key, metadata: metadata.get(key)!, file: files.get(key) }));
}

export const importRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const limits = ctx.config.limits;

    await app.register(multipart, {
      throwFileSizeLimit: false, // an oversized file is a per-file TOO_LARGE, not a failed request
      limits: {
        fieldNameSize: 1024,
        fieldSize: 64 * 1024,
        fields: limits.uploadFilesPerRequest + 1,
        files: limits.uploadFilesPerRequest,
        fileSize: limits.uploadFileBytes,
        parts: 2 * limits.uploadFilesPerRequest + 1,
        headerPairs: 100,
      },
    });

    app.post(
      '/tasks/import/check-images',
      {
        schema: {
          tags: ['import'],
          summary: 'Which of these image hashes are not stored yet',
          body: checkImagesBody(limits),
          response: { 200: MissingHashes, ...errorResponses },
        },
      },
      async (request) => missingHashes(db, request.principal.teamId, request.body),
    );

    app.post(
      '/tasks/import/files',
      {
        schema: {
          tags: ['import'],
          summary: 'Upload up to 100 files (multipart: a `<key>` JSON part and a `<key>-file` part per file)',
          consumes: ['multipart/form-data'],
          response: { 200: Type.Array(UploadResult), ...errorResponses },
        },
      },
      async (request) => {
        if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send multipart/form-data');
        checkMultipartBoundary(request.headers['content-type']);
        // Files the store adopts as they are get flushed while the rest of the request streams in.
        const folder = await StagingFolder.create(path.join(ctx.config.dataDir, 'tmp', 'uploads'), { flush: ctx.blobs.adoptsLocalFiles });
        try {
          const entries = await receiveParts(request, folder, limits.uploadFilesPerRequest);
          const metadata = entries.map((e) => {
            const parsed = parseMetadata(e.key, e.metadata);
            if (typeof parsed === 'string') throw validation(parsed, { field: e.key });
            return parsed;
          });
          return await completeUpload(ctx, request.principal, entries, metadata);
        } finally {
          await folder.remove();
        }
      },
    );

    app.post(
      '/tasks/import',
      {
        bodyLimit: limits.importBodyBytes,
        // A large file list: memory held tight from before the body is parsed until the answer is gone,
        // or the connection is (a pipelined request whose connection drops never gets an answer).
        onRequest: async (request, reply) => {
          if (Number(request.headers['content-length']) < LARGE_IMPORT_BODY_BYTES) return;
          const releaseHeap = holdHeapGrowth();
          let released = false;
          const release = () => {
            if (released) return;
            released = true;
            releaseHeap();
            // The request's file list and plan are garbage once it is answered: give that memory back.
            setImmediate(collectGarbage);
          };
          reply.raw.once('close', release);
          request.raw.socket.once('close', release);
        },
        schema: {
          tags: ['import'],
          summary: 'Start an import of uploaded files into a new or existing project',
          body: importBody(limits),
          response: { 200: TaskId, ...errorResponses },
        },
      },
      async (request) => ({ taskId: await startImport(ctx, request.principal, request.body) }),
    );

    app.post(
      '/tasks/import/local',
      {
        schema: {
          tags: ['import'],
          summary: 'Copy datasets of the team into a project (a new one when id is null or 0); images are shared by hash',
          body: LocalImportBody,
          response: { 200: TaskId, ...errorResponses },
        },
      },
      async (request) => ({ taskId: await startLocalImport(ctx, request.principal, request.body) }),
    );
  };
