// GET /tasks, POST /tasks/:id/stop
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { narrowedTo } from '../../services/project-access.ts';
import { withSeenDatasets } from '../../services/task-datasets-seen.ts';
import * as tasks from '../../services/tasks.service.ts';
import { ErrorBody, errorResponses } from '../schemas/common.ts';
import { StopAnswer, TaskParams, TasksQuery } from '../schemas/requests.ts';
import { Task } from '../schemas/resources.ts';
import { TEAM_ROUTE, needs } from '../plugins/project-access.ts';

export const taskRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;

    app.get(
      '/tasks',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['tasks'],
          summary: 'List the team’s tasks',
          querystring: TasksQuery,
          response: { 200: Type.Array(Task), ...errorResponses },
        },
      },
      // A plain member sees the tasks of the projects they have a role in (docs/accounts.md).
      async (request) => withSeenDatasets(db, request.principal, await tasks.listTasks(db, request.principal.teamId, request.query.id, narrowedTo(request.principal))),
    );

    app.post(
      '/tasks/:id/stop',
      {
        config: { access: needs('manager', ['task', 'params.id']) },
        schema: {
          tags: ['tasks'],
          summary: 'Stop a queued or running task',
          params: TaskParams,
          response: { 200: StopAnswer, ...errorResponses, 409: ErrorBody },
        },
      },
      async (request) => tasks.stopTask(db, request.principal.teamId, request.params.id),
    );
  };
