// The import protocol under v2 names, over the same services as v1's /tasks/import/…:
// POST /v2/imports/hash-check, POST /v2/imports/files, POST /v2/imports, POST /v2/imports/local.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Context } from '../../context.ts';
import { missingHashes } from '../../services/check-images.service.ts';
import { startImport, startLocalImport } from '../../services/import.service.ts';
import { getTask } from '../../services/tasks.service.ts';
import { holdHeapForLargeImport, receiveUpload, registerUploadParsing } from '../import-upload.ts';
import { LocalImportBody, importBody } from '../schemas/requests.ts';
import { HashCheckAnswer, HashCheckBody, TaskAnswer, UploadAnswer } from '../schemas/v2-tasks.ts';
import { Problem, problemResponses } from '../schemas/v2.ts';
import { TEAM_ROUTE, needs } from '../plugins/project-access.ts';

export const importRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const limits = ctx.config.limits;

    await registerUploadParsing(app, limits);

    /** Answers a task just queued: 201, where to follow it, and the task itself. */
    const created = async (reply: FastifyReply, teamId: number, taskId: number) => {
      const task = await getTask(db, teamId, taskId);
      return reply.code(201).header('location', `/v2/tasks/${taskId}`).send({ task });
    };

    app.post(
      '/imports/hash-check',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['imports'],
          summary: 'Step 1: which of these image hashes the server does not have yet (upload only those)',
          body: HashCheckBody(limits.checkHashes),
          response: { 200: HashCheckAnswer, ...problemResponses },
        },
      },
      async (request) => ({ missing: await missingHashes(db, request.principal.teamId, request.body.hashes, (index) => `hashes[${index}]`) }),
    );

    app.post(
      '/imports/files',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['imports'],
          summary: `Step 2: upload up to ${limits.uploadFilesPerRequest} files (multipart: a \`<key>\` JSON part {id, hash, type, format} and a \`<key>-file\` part per file); each is answered on its own`,
          consumes: ['multipart/form-data'],
          response: { 200: UploadAnswer, ...problemResponses, 413: Problem, 415: Problem },
        },
      },
      async (request) => ({ files: await receiveUpload(ctx, request) }),
    );

    app.post(
      '/imports',
      {
        config: { access: needs('manager', ['project', 'body.project.id']) },
        bodyLimit: limits.importBodyBytes,
        onRequest: holdHeapForLargeImport,
        schema: {
          tags: ['imports'],
          summary: 'Step 3: start an import of uploaded files into a new or existing project; follow the task at /v2/tasks/{id}/events',
          body: importBody(limits),
          response: { 201: TaskAnswer, ...problemResponses },
        },
      },
      async (request, reply) => created(reply, request.principal.teamId, await startImport(ctx, request.principal, request.body)),
    );

    app.post(
      '/imports/local',
      {
        config: { access: needs('manager', ['dataset', 'body.datasetsIds']) },
        schema: {
          tags: ['imports'],
          summary: 'Copy datasets of the team into a project (a new one when id is null or 0); images are shared by hash',
          body: LocalImportBody,
          response: { 201: TaskAnswer, ...problemResponses },
        },
      },
      async (request, reply) => created(reply, request.principal.teamId, await startLocalImport(ctx, request.principal, request.body)),
    );
  };
