// GET /tasks, POST /tasks/:id/stop
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import * as tasks from '../../services/tasks.service.ts';
import { ErrorBody, Id, SizeString, Timestamp, errorResponses } from '../schemas/common.ts';

const TASK_STATUSES = ['queued', 'started', 'finished', 'error', 'terminating', 'stopped'] as const;

export const Task = Type.Object(
  {
    id: Type.Integer(),
    type: Type.String(),
    size: SizeString,
    status: Type.Enum([...TASK_STATUSES]),
    meta: Type.Object({}, { additionalProperties: true, description: 'depends on the type; `error` = {code, message} on failure, `progress` = {done, total} while running' }),
    startedAt: Type.Union([Timestamp, Type.Null()]),
    finishedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'Task' },
);

export const taskRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;

    app.get(
      '/tasks',
      {
        schema: {
          tags: ['tasks'],
          summary: 'List the team’s tasks',
          querystring: Type.Object({ id: Type.Optional(Id) }),
          response: { 200: Type.Array(Task), ...errorResponses },
        },
      },
      async (request) => tasks.listTasks(db, request.principal.teamId, request.query.id),
    );

    app.post(
      '/tasks/:id/stop',
      {
        schema: {
          tags: ['tasks'],
          summary: 'Stop a queued or running task',
          params: Type.Object({ id: Id }),
          response: { 200: Type.Object({ status: Type.Literal('terminating') }), ...errorResponses, 409: ErrorBody },
        },
      },
      async (request) => tasks.stopTask(db, request.principal.teamId, request.params.id),
    );
  };
