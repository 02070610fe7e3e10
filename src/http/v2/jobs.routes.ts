// Jobs and review (docs/jobs.md): POST /v2/projects/:projectId/jobs (from a gallery filter) and
// /v2/datasets/:datasetId/jobs (a dataset split), the lists, a job, its images and queue, the
// transitions of its images, the review's issues and their threads, and the figures per assignee.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import * as jobs from '../../services/jobs.service.ts';
import { ProjectIdParams } from '../schemas/catalog.ts';
import { Id } from '../schemas/common.ts';
import {
  Comment,
  CommentBody,
  DatasetSplitBody,
  Issue,
  Issues,
  Job,
  JobChangeBody,
  JobFromFilterBody,
  JobImage,
  JobImageParams,
  JobImagesQuery,
  Jobs,
  JobsQuery,
  NextImage,
  NextQuery,
  ProjectJobFigures,
  RejectBody,
  ResolveBody,
} from '../schemas/v2-jobs.ts';
import { TEAM_ROUTE, needs } from '../plugins/project-access.ts';
import type { ProjectRole } from '../../services/project-access.ts';
import { IdParams, IdempotencyHeaders, ListOf, Problem, problemResponses } from '../schemas/v2.ts';
import { decodeCursor, encodeCursor, isIdKey, sendList } from './cursor.ts';
import { pageRequestOf, sendPage } from './id-cursor.ts';

const DatasetParams = Type.Object({ datasetId: Id });
const tags = ['jobs'];
const changeResponses = { ...problemResponses, 409: Problem };

export const jobRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/projects/:projectId/jobs',
      {
        config: { access: needs('manager', ['project', 'params.projectId']) },
        schema: {
          tags,
          summary: 'Make a job of the project’s images that a gallery filter finds and that are in no job yet (managers)',
          params: ProjectIdParams,
          headers: IdempotencyHeaders,
          body: JobFromFilterBody,
          response: { 201: Job, ...changeResponses },
        },
      },
      async (request, reply) => {
        const job = await jobs.createJobFromFilter(ctx, request.principal, request.params.projectId, request.body);
        void reply.header('location', `/v2/jobs/${job.id}`);
        return reply.code(201).send(job);
      },
    );

    app.post(
      '/datasets/:datasetId/jobs',
      {
        config: { access: needs('manager', ['dataset', 'params.datasetId']) },
        schema: {
          tags,
          summary: 'Split a dataset into jobs: one per assignee, each of the next imagesPerJob images in no job yet (managers)',
          params: DatasetParams,
          headers: IdempotencyHeaders,
          body: DatasetSplitBody,
          response: { 201: Jobs, ...changeResponses },
        },
      },
      async (request, reply) => reply.code(201).send({ items: await jobs.splitDataset(ctx, request.principal, request.params.datasetId, request.body) }),
    );

    app.get(
      '/projects/:projectId/jobs',
      { config: { access: needs('viewer', ['project', 'params.projectId']) }, schema: { tags, summary: 'The project’s jobs with their progress, oldest first', params: ProjectIdParams, querystring: JobsQuery, response: { 200: ListOf(Job), ...problemResponses } } },
      async (request, reply) => {
        const { afterId, limit } = pageRequestOf(request.query);
        return sendPage(request, reply, await jobs.pageOfJobs(ctx, { teamId: request.principal.teamId, projectId: request.params.projectId, afterId, limit }));
      },
    );

    app.get(
      '/jobs/mine',
      { config: { access: TEAM_ROUTE }, schema: { tags, summary: 'My work: the jobs the caller is the assignee or the reviewer of, with their progress', querystring: JobsQuery, response: { 200: ListOf(Job), ...problemResponses } } },
      async (request, reply) => {
        const { afterId, limit } = pageRequestOf(request.query);
        return sendPage(request, reply, await jobs.pageOfJobs(ctx, { teamId: request.principal.teamId, userId: request.principal.userId, afterId, limit }));
      },
    );

    app.get(
      '/projects/:projectId/jobs/figures',
      { config: { access: needs('viewer', ['project', 'params.projectId']) }, schema: { tags, summary: 'The project’s jobs’ figures per assignee', params: ProjectIdParams, response: { 200: ProjectJobFigures, ...problemResponses } } },
      async (request) => ({ items: await jobs.projectFigures(ctx, request.principal.teamId, request.params.projectId) }),
    );

    app.get(
      '/jobs/:id',
      { config: { access: needs('viewer', ['job', 'params.id']) }, schema: { tags, summary: 'A job with its progress', params: IdParams, response: { 200: Job, ...problemResponses } } },
      async (request) => jobs.describeJob(ctx, request.principal.teamId, request.params.id),
    );

    app.patch(
      '/jobs/:id',
      { config: { access: needs('manager', ['job', 'params.id']) }, schema: { tags, summary: 'Retitle a job, or give it to another assignee or reviewer (managers)', params: IdParams, body: JobChangeBody, response: { 200: Job, ...changeResponses } } },
      async (request) => jobs.changeJob(ctx, request.principal, request.params.id, request.body),
    );

    app.delete(
      '/jobs/:id',
      { config: { access: needs('manager', ['job', 'params.id']) }, schema: { tags, summary: 'Delete a job (its images stay as they are) (managers)', params: IdParams, response: { 204: Type.Null(), ...problemResponses } } },
      async (request, reply) => {
        await jobs.removeJob(ctx, request.principal, request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/jobs/:id/images',
      { config: { access: needs('viewer', ['job', 'params.id']) }, schema: { tags, summary: 'The job’s images in their order, each with its state', params: IdParams, querystring: JobImagesQuery, response: { 200: ListOf(JobImage), ...problemResponses } } },
      async (request, reply) => {
        const { limit = 100, cursor, state } = request.query;
        // The cursor is the last position sent plus one (a position starts at 0, a cursor's key at 1).
        const after = decodeCursor(cursor, isIdKey);
        const page = await jobs.pageOfJobImages(ctx, request.principal.teamId, request.params.id, { afterPosition: after === undefined ? undefined : after - 1, limit, state });
        return sendList(request, reply, { items: page.items, nextCursor: page.nextAfter === null ? null : encodeCursor(page.nextAfter + 1) });
      },
    );

    app.get(
      '/jobs/:id/next',
      { config: { access: needs('annotator', ['job', 'params.id']) }, schema: { tags, summary: 'The next image of the caller’s queue in the job', params: IdParams, querystring: NextQuery, response: { 200: NextImage, ...problemResponses } } },
      async (request) => jobs.nextImage(ctx, request.principal, request.params.id, request.query.queue, request.query.after),
    );

    const imageTransition = (path: string, summary: string, run: typeof jobs.openImage, role?: ProjectRole): void => {
      app.post(path, { config: { access: role === undefined ? needs('annotator', ['job', 'params.id']) : needs(role, ['job', 'params.id']) }, schema: { tags, summary, params: JobImageParams, response: { 200: JobImage, ...changeResponses } } }, async (request) =>
        run(ctx, request.principal, request.params.id, request.params.imageId),
      );
    };
    imageTransition('/jobs/:id/images/:imageId/open', 'The assignee opens an image: new → in_progress, and its clock starts', jobs.openImage);
    imageTransition('/jobs/:id/images/:imageId/submit', 'The assignee submits an image for review (a rejected one once its issues are resolved)', jobs.submitImage);
    imageTransition('/jobs/:id/images/:imageId/accept', 'The reviewer accepts a submitted image', jobs.acceptImage, 'reviewer');

    app.post(
      '/jobs/:id/images/:imageId/reject',
      { config: { access: needs('reviewer', ['job', 'params.id']) }, schema: { tags, summary: 'The reviewer rejects a submitted image with issues, each pinned to a point or an object', params: JobImageParams, body: RejectBody, response: { 200: JobImage, ...changeResponses } } },
      async (request) => jobs.rejectImage(ctx, request.principal, request.params.id, request.params.imageId, request.body.issues),
    );

    app.post(
      '/jobs/:id/submit',
      { config: { access: needs('annotator', ['job', 'params.id']) }, schema: { tags, summary: 'The assignee submits the whole job: every image not yet submitted is, and the job goes to review', params: IdParams, response: { 200: Job, ...changeResponses } } },
      async (request) => jobs.submitJob(ctx, request.principal, request.params.id),
    );

    app.get(
      '/jobs/:id/images/:imageId/issues',
      { config: { access: needs('viewer', ['job', 'params.id']) }, schema: { tags, summary: 'The issues of an image of the job, each with its thread of comments', params: JobImageParams, response: { 200: Issues, ...problemResponses } } },
      async (request) => ({ items: await jobs.imageIssues(ctx, request.principal.teamId, request.params.id, request.params.imageId) }),
    );

    app.post(
      '/issues/:id/comments',
      { config: { access: needs('annotator', ['issue', 'params.id']) }, schema: { tags, summary: 'Comment on an issue’s thread (the job’s assignee, reviewer or a manager)', params: IdParams, body: CommentBody, response: { 201: Comment, ...changeResponses } } },
      async (request, reply) => reply.code(201).send(await jobs.addComment(ctx, request.principal, request.params.id, request.body.body)),
    );

    app.post(
      '/issues/:id/resolve',
      { config: { access: needs('annotator', ['issue', 'params.id']) }, schema: { tags, summary: 'The assignee resolves an issue, with a last comment when given', params: IdParams, body: ResolveBody, response: { 200: Issue, ...changeResponses } } },
      async (request) => jobs.resolveIssue(ctx, request.principal, request.params.id, request.body.comment),
    );
  };
