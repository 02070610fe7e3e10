// POST /tasks/import/check-images, /tasks/import/files, /tasks/import, /tasks/import/local
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { missingHashes } from '../../services/check-images.service.ts';
import { startImport, startLocalImport } from '../../services/import.service.ts';
import { holdHeapForLargeImport, receiveUpload, registerUploadParsing } from '../import-upload.ts';
import { errorResponses } from '../schemas/common.ts';
import { LocalImportBody, MissingHashes, TaskId, UploadResult, checkImagesBody, importBody } from '../schemas/requests.ts';
import { TEAM_ROUTE, needs } from '../plugins/project-access.ts';

export const importRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const limits = ctx.config.limits;

    await registerUploadParsing(app, limits);

    app.post(
      '/tasks/import/check-images',
      {
        config: { access: TEAM_ROUTE },
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
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['import'],
          summary: 'Upload up to 100 files (multipart: a `<key>` JSON part and a `<key>-file` part per file)',
          consumes: ['multipart/form-data'],
          response: { 200: Type.Array(UploadResult), ...errorResponses },
        },
      },
      async (request) => receiveUpload(ctx, request),
    );

    app.post(
      '/tasks/import',
      {
        config: { access: needs('manager', ['project', 'body.project.id']) },
        bodyLimit: limits.importBodyBytes,
        onRequest: holdHeapForLargeImport,
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
        config: { access: needs('manager', ['dataset', 'body.datasetsIds']) },
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
