// Jobs and review (docs/jobs.md): the requests that make and move jobs, and how jobs, their images,
// issues and figures are answered.
import { Type } from 'typebox';
import { MAX_COMMENT_LENGTH, MAX_ISSUES_PER_REJECTION, MAX_JOB_IMAGES, MAX_SPLIT_JOBS } from '../../services/jobs.service.ts';
import { Id, Timestamp, Title } from './common.ts';
import { ImageListFilters } from './v2-images.ts';
import { ListQuery } from './v2.ts';
import { MAX_HONEYPOTS_PER_JOB } from '../../services/quality.service.ts';

/** The filters of GET /v2/images but the project (the path's) and the order (a job's is by id). */
function filterMembersOf<T extends { projectId: unknown; sort: unknown }>(filters: T): Omit<T, 'projectId' | 'sort'> {
  const members: Partial<T> = { ...filters };
  delete members.projectId;
  delete members.sort;
  return members as Omit<T, 'projectId' | 'sort'>;
}
const filterMembers = filterMembersOf(ImageListFilters);

const Honeypots = Type.Optional(
  Type.Integer({
    minimum: 0,
    maximum: MAX_HONEYPOTS_PER_JOB,
    description: 'how many honeypots to mix into each job: hidden copies of the project’s ground-truth images, each at a random place, with an empty annotation (docs/jobs.md, Quality); 0 by default',
  }),
);

const People = {
  assigneeId: Id,
  reviewerId: Type.Optional(Type.Union([Id, Type.Null()], { description: 'the user who reviews the job; none: only managers review it' })),
};

export const JobFromFilterBody = Type.Object(
  {
    title: Title,
    ...People,
    honeypots: Honeypots,
    filter: Type.Object(filterMembers, {
      additionalProperties: false,
      description: `the filters of GET /v2/images (the project is the path's): the job takes the images they find that are in no job yet, in id order, at most ${MAX_JOB_IMAGES}`,
    }),
  },
  { additionalProperties: false },
);

export const DatasetSplitBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 240, description: 'the jobs are titled "<title> i/N"; the dataset’s title by default' })),
    imagesPerJob: Type.Integer({ minimum: 1, maximum: MAX_JOB_IMAGES }),
    assigneeIds: Type.Array(Id, { minItems: 1, maxItems: MAX_SPLIT_JOBS, description: 'one job per assignee, in this order' }),
    reviewerId: People.reviewerId,
    honeypots: Honeypots,
  },
  { additionalProperties: false },
);

export const JobChangeBody = Type.Object(
  { title: Type.Optional(Title), assigneeId: Type.Optional(Id), reviewerId: People.reviewerId },
  { additionalProperties: false, minProperties: 1 },
);

const UserRef = Type.Object({ id: Type.Integer(), login: Type.String() });

export const JobStage = Type.Union([Type.Literal('annotate'), Type.Literal('review'), Type.Literal('done')]);
export const JobImageState = Type.Union([Type.Literal('new'), Type.Literal('in_progress'), Type.Literal('submitted'), Type.Literal('accepted'), Type.Literal('rejected')]);

export const JobProgress = Type.Object({
  images: Type.Integer({ description: 'images in the job' }),
  new: Type.Integer({ description: 'images not opened yet' }),
  inProgress: Type.Integer(),
  submitted: Type.Integer({ description: 'images waiting for review' }),
  accepted: Type.Integer({ description: 'images done' }),
  rejected: Type.Integer(),
  acceptedFirstReview: Type.Integer({ description: 'accepted images that were never rejected' }),
  timeSpentMs: Type.Integer({ description: 'the assignee’s time on the images, from their opens and saves' }),
  objectsMade: Type.Integer({ description: 'objects the assignee added to the images since the job was made' }),
});

export const Job = Type.Object({
  id: Type.Integer(),
  projectId: Type.Integer(),
  title: Type.String(),
  stage: JobStage,
  assignee: UserRef,
  reviewer: Type.Union([UserRef, Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  progress: JobProgress,
});

export const Jobs = Type.Object({ items: Type.Array(Job) });

export const JobsQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });

export const JobImage = Type.Object({
  imageId: Type.Integer(),
  position: Type.Integer({ description: 'the image’s place in the job, from 0' }),
  state: JobImageState,
  rejections: Type.Integer(),
  timeSpentMs: Type.Integer(),
  lastActiveAt: Type.Union([Timestamp, Type.Null()]),
  submittedAt: Type.Union([Timestamp, Type.Null()]),
  reviewedAt: Type.Union([Timestamp, Type.Null()]),
});

export const JobImagesQuery = Type.Object({ ...ListQuery, state: Type.Optional(JobImageState) }, { additionalProperties: false });

export const JobImageParams = Type.Object({ id: Id, imageId: Id });

export const NextQuery = Type.Object(
  {
    queue: Type.Optional(Type.Union([Type.Literal('annotate'), Type.Literal('review')], { description: 'annotate: new, in progress and rejected images; review: submitted ones; the reviewer’s is review, anybody else’s annotate' })),
    after: Type.Optional(Id),
  },
  { additionalProperties: false },
);

export const NextImage = Type.Object({
  queue: Type.Union([Type.Literal('annotate'), Type.Literal('review')]),
  image: Type.Union([JobImage, Type.Null()], { description: 'the next image of the queue after `after` (from the start past the end), null when the queue is empty' }),
  remaining: Type.Integer({ description: 'images in the queue' }),
});

const CommentText = Type.String({ minLength: 1, maxLength: MAX_COMMENT_LENGTH });

export const RejectBody = Type.Object(
  {
    issues: Type.Array(
      Type.Object(
        {
          x: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000, description: 'a point of the image, in its pixels' })),
          y: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
          objectId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'an object of the image, by its id' })),
          comment: CommentText,
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_ISSUES_PER_REJECTION },
    ),
  },
  { additionalProperties: false },
);

export const Comment = Type.Object({ id: Type.Integer(), issueId: Type.Integer(), userId: Type.Union([Type.Integer(), Type.Null()]), body: Type.String(), createdAt: Timestamp });

export const Issue = Type.Object({
  id: Type.Integer(),
  jobId: Type.Integer(),
  imageId: Type.Integer(),
  x: Type.Union([Type.Number(), Type.Null()]),
  y: Type.Union([Type.Number(), Type.Null()]),
  objectId: Type.Union([Type.Integer(), Type.Null()]),
  status: Type.Union([Type.Literal('open'), Type.Literal('resolved')]),
  createdBy: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Timestamp,
  resolvedBy: Type.Union([Type.Integer(), Type.Null()]),
  resolvedAt: Type.Union([Timestamp, Type.Null()]),
});

export const IssueWithComments = Type.Object({ ...Issue.properties, comments: Type.Array(Comment) });

export const Issues = Type.Object({ items: Type.Array(IssueWithComments) });

export const CommentBody = Type.Object({ body: CommentText }, { additionalProperties: false });

export const ResolveBody = Type.Object({ comment: Type.Optional(CommentText) }, { additionalProperties: false });

export const AssigneeFigures = Type.Object({
  userId: Type.Integer(),
  login: Type.String(),
  jobs: Type.Integer(),
  images: Type.Integer(),
  accepted: Type.Integer({ description: 'images done' }),
  acceptedFirstReview: Type.Integer(),
  timeSpentMs: Type.Integer(),
  objectsMade: Type.Integer(),
});

export const ProjectJobFigures = Type.Object({ items: Type.Array(AssigneeFigures) });
