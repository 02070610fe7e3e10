// GET /v2/tasks, GET /v2/tasks/events, GET /v2/tasks/:id, GET /v2/tasks/:id/events, POST /v2/tasks/:id/stop, DELETE /v2/tasks/:id
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { narrowedTo } from '../../services/project-access.ts';
import { seenTask, withSeenDatasets } from '../../services/task-datasets-seen.ts';
import { type TaskUpdate, watchTask } from '../../services/task-watch.ts';
import * as tasks from '../../services/tasks.service.ts';
import { type TeamTaskEvent, watchTeamTasks } from '../../services/team-task-watch.ts';
import { TaskEventsQuery, TaskListQuery, TaskView } from '../schemas/v2-tasks.ts';
import { IdParams, IfMatchHeaders, ListOf, Problem, problemResponses } from '../schemas/v2.ts';
import { decodeCursor, encodeCursor, isIdKey, sendList } from './cursor.ts';
import { ifMatchOf, sendTagged } from './etag.ts';
import { openEventStream } from './event-stream.ts';
import { TEAM_ROUTE, needs } from '../plugins/project-access.ts';

/** Event streams one team may hold open on this server at once (of one task or of all): each reads on its own. */
export const MAX_STREAMS_PER_TEAM = 32;
/** The Retry-After of a stream refused for the limit: streams end as their tasks do, seconds apart. */
export const STREAM_RETRY_AFTER_SECONDS = 5;

/** Open event streams per team, refused with a 429 past the limit. */
class StreamCount {
  readonly #open = new Map<number, number>();

  constructor(private readonly limit: number) {}

  /** Counts one more stream of the team and answers its release (which counts only once). */
  take(teamId: number): () => void {
    const open = this.#open.get(teamId) ?? 0;
    if (open >= this.limit) {
      throw new AppError('RATE_LIMITED', `at most ${this.limit} task event streams open at once; close one first`, { limit: this.limit });
    }
    this.#open.set(teamId, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(teamId) ?? 1) - 1;
      if (left > 0) this.#open.set(teamId, left);
      else this.#open.delete(teamId);
    };
  }
}

/** The time a resumed stream left off (its Last-Event-ID), when it is one this server sent. */
function resumedFrom(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  if (!text || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(text) || Number.isNaN(Date.parse(text))) return undefined;
  // A time ahead of this server's clock resumes from now.
  return Date.parse(text) > Date.now() ? new Date().toISOString() : text;
}

/** Whether the client has closed the connection the answer would go on. */
const clientGone = (request: FastifyRequest, reply: FastifyReply): boolean => reply.raw.destroyed || request.raw.socket.destroyed;

export const taskRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const openStreams = new StreamCount(MAX_STREAMS_PER_TEAM);

    app.get(
      '/tasks',
      {
        config: { access: needs('viewer', ['project', 'query.projectId']) },
        schema: {
          tags: ['tasks'],
          summary: 'The team’s tasks, newest first, a page at a time',
          querystring: TaskListQuery,
          response: { 200: ListOf(TaskView), ...problemResponses },
        },
      },
      async (request, reply) => {
        const { limit = 100, cursor, count, type, status, projectId, housekeeping } = request.query;
        const page = await tasks.listTaskPage(db, request.principal.teamId, {
          type,
          status,
          projectId,
          housekeeping,
          limit,
          count,
          afterId: decodeCursor(cursor, isIdKey),
          readerId: narrowedTo(request.principal),
        });
        const { nextId, ...rest } = page;
        const items = await withSeenDatasets(db, request.principal, rest.items);
        return sendList(request, reply, { ...rest, items, nextCursor: nextId === null ? null : encodeCursor(nextId) });
      },
    );

    app.get(
      '/tasks/events',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['tasks'],
          summary: 'Server-Sent Events of all the team’s tasks: a `snapshot`, then a `task` event each time one is created or changes',
          description: [
            'One stream for a page that shows many tasks (a browser holds at most 6 connections to a host). Events:',
            '`snapshot` {tasks: [Task]} first: the tasks not ended yet (on a resumed stream, also those that ended since);',
            '`task` Task: a task created or changed (an ended task is sent once, as it ended);',
            '`removed` {id}: a task last seen running was removed. Each event’s id is the time of the read it came from:',
            'an EventSource that reconnects sends it back (Last-Event-ID) and its snapshot also holds the tasks that ended meanwhile.',
            `A team holds at most ${MAX_STREAMS_PER_TEAM} event streams at once on a server, of one task or of all (429 past it).`,
          ].join(' '),
          querystring: TaskEventsQuery,
          produces: ['text/event-stream'],
          response: { 200: Type.String({ description: 'text/event-stream' }), ...problemResponses, 429: Problem },
        },
      },
      async (request, reply) => {
        const teamId = request.principal.teamId;
        const release = takeStream(reply, teamId);
        try {
          return await streamTeamEvents(request, reply, teamId, request.query.housekeeping !== false, narrowedTo(request.principal), release);
        } catch (error) {
          release();
          throw error;
        }
      },
    );

    /** A stream slot of the team, or a 429 with its Retry-After. */
    function takeStream(reply: FastifyReply, teamId: number): () => void {
      try {
        return openStreams.take(teamId);
      } catch (error) {
        void reply.header('retry-after', String(STREAM_RETRY_AFTER_SECONDS));
        throw error;
      }
    }

    /** Answers the team's event stream; `release` is called once it has ended. */
    async function streamTeamEvents(request: FastifyRequest, reply: FastifyReply, teamId: number, housekeeping: boolean, readerId: number | undefined, release: () => void): Promise<FastifyReply> {
      const abandoned = new AbortController();
      const leave = () => abandoned.abort();
      reply.raw.once('close', leave);
      if (clientGone(request, reply)) leave();
      const since = resumedFrom(request.headers['last-event-id']);
      const exceptTypes = housekeeping ? [] : tasks.HOUSEKEEPING_TYPES;
      const updates = watchTeamTasks(ctx.db, teamId, { signal: abandoned.signal, exceptTypes, readerId, ...(since ? { since } : {}) });
      const first = await updates.next();
      reply.raw.off('close', leave);
      if (abandoned.signal.aborted || clientGone(request, reply) || first.done) {
        await updates.return(undefined);
        release();
        return reply.code(204).send(null);
      }
      const stream = openEventStream(reply);
      stream.signal.addEventListener('abort', () => abandoned.abort(), { once: true });
      const send = async (event: TeamTaskEvent) => {
        if (event.kind === 'snapshot') stream.send('snapshot', { tasks: await withSeenDatasets(db, request.principal, event.tasks) }, event.at);
        else if (event.kind === 'task') stream.send('task', await seenTask(db, request.principal, event.task), event.at);
        else stream.send('removed', { id: event.id }, event.at);
      };
      const pump = async () => {
        try {
          for (let update: IteratorResult<TeamTaskEvent> = first; !update.done; update = await updates.next()) await send(update.value);
        } catch (error) {
          request.log.error({ err: error }, 'team task event stream failed');
        } finally {
          stream.close();
          release();
        }
      };
      void pump();
      return reply;
    }

    app.get(
      '/tasks/:id',
      {
        config: { access: needs('viewer', ['task', 'params.id']) },
        schema: {
          tags: ['tasks'],
          summary: 'One task: its status, progress and, once it has ended, its outcome',
          params: IdParams,
          response: { 200: TaskView, 304: Type.Null({ description: 'not modified: If-None-Match names the current ETag' }), ...problemResponses },
        },
      },
      async (request, reply) => sendTagged(request, reply, await seenTask(db, request.principal, await tasks.getTask(db, request.principal.teamId, request.params.id))),
    );

    app.get(
      '/tasks/:id/events',
      {
        config: { access: needs('viewer', ['task', 'params.id']) },
        schema: {
          tags: ['tasks'],
          summary: 'Server-Sent Events: a `progress` event with the task each time it changes, then a `final` event with its last state, and the stream ends',
          description:
            'A task that has already ended answers its `final` event at once. An EventSource that reconnects (Last-Event-ID) to an ended task gets 204, which tells it to stop.',
          params: IdParams,
          produces: ['text/event-stream'],
          response: { 200: Type.String({ description: 'text/event-stream' }), 204: Type.Null(), ...problemResponses, 429: Problem },
        },
      },
      async (request, reply) => {
        const teamId = request.principal.teamId;
        const release = takeStream(reply, teamId);
        try {
          return await streamEvents(request, reply, teamId, request.params.id, release);
        } catch (error) {
          release();
          throw error;
        }
      },
    );

    /** Answers the task's event stream; `release` is called once the stream has ended. */
    async function streamEvents(request: FastifyRequest, reply: FastifyReply, teamId: number, id: number, release: () => void): Promise<FastifyReply> {
      const abandoned = new AbortController();
      // Listened for before the first read: a client that leaves while it runs (or before this
      // handler ran) must not leave the stream's work running and its slot taken. The event stream
      // listens on its own once it opens.
      const leave = () => abandoned.abort();
      reply.raw.once('close', leave);
      if (clientGone(request, reply)) leave();
      const updates = watchTask(ctx.db, teamId, id, abandoned.signal);
      // The first state before the stream opens: a task that is not the team's is a plain 404.
      const first = await updates.next();
      reply.raw.off('close', leave);
      const gone = abandoned.signal.aborted || clientGone(request, reply);
      // Nobody reads a 204 to a client that has gone; it completes Fastify's reply.
      if (gone || first.done || (first.value.final && request.headers['last-event-id'] !== undefined)) {
        await updates.return(undefined);
        release();
        return reply.code(204).send(null);
      }
      const stream = openEventStream(reply);
      stream.signal.addEventListener('abort', () => abandoned.abort(), { once: true });
      const pump = async () => {
        try {
          for (let update: IteratorResult<TaskUpdate> = first; !update.done; update = await updates.next()) {
            stream.send(update.value.final ? 'final' : 'progress', await seenTask(db, request.principal, update.value.task));
          }
        } catch (error) {
          request.log.error({ err: error }, 'task event stream failed');
        } finally {
          stream.close();
          release();
        }
      };
      void pump();
      return reply;
    }

    app.post(
      '/tasks/:id/stop',
      {
        config: { access: needs('manager', ['task', 'params.id']) },
        schema: {
          tags: ['tasks'],
          summary: 'Stop a queued or running task: a queued one stops at once, a running one at its next checkpoint',
          params: IdParams,
          response: { 202: TaskView, ...problemResponses, 409: Problem },
        },
      },
      async (request, reply) => sendTagged(request, reply, await tasks.requestTaskStop(db, request.principal.teamId, request.params.id), 202),
    );

    app.delete(
      '/tasks/:id',
      {
        config: { access: needs('manager', ['task', 'params.id']) },
        schema: {
          tags: ['tasks'],
          summary: 'Remove a task that has ended (an export’s archive with it); 409 while it is queued or running',
          params: IdParams,
          headers: IfMatchHeaders,
          response: { 204: Type.Null(), ...problemResponses, 409: Problem, 412: Problem },
        },
      },
      async (request, reply) => {
        await tasks.deleteTask(ctx, request.principal.teamId, request.params.id, ifMatchOf(request));
        return reply.code(204).send(null);
      },
    );
  };
