// Schemas of API v2's tasks and imports.
import { Type } from 'typebox';
import { Timestamp } from './common.ts';
import { TASK_STATUSES } from './resources.ts';
import { ListQuery } from './v2.ts';

export const TaskView = Type.Object({
  id: Type.Integer(),
  type: Type.String({ description: 'import, import_local, export' }),
  status: Type.Enum([...TASK_STATUSES]),
  size: Type.Integer({ minimum: 0, description: 'bytes' }),
  meta: Type.Object({}, {
    additionalProperties: true,
    description:
      'depends on the type; `error` = {code, message} on failure, `progress` = {done, total} while running; an import’s `warnings` = [{path, message}] (the first 100) and `moreWarnings` = how many more',
  }),
  project: Type.Union([Type.Object({ id: Type.Integer(), title: Type.Union([Type.String(), Type.Null()], { description: 'null once the project is gone' }) }), Type.Null()], {
    description: 'the project it works on: an import’s target, an export’s source, the thumbnails of an import’s images; null for an upload’s thumbnails and a DTL graph',
  }),
  format: Type.Union([Type.String(), Type.Null()], { description: 'an import’s or an export’s format; null for other work' }),
  createdAt: Timestamp,
  startedAt: Type.Union([Timestamp, Type.Null()]),
  finishedAt: Type.Union([Timestamp, Type.Null()]),
});

export const TaskListQuery = Type.Object({
  ...ListQuery,
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'only tasks of this type' })),
  status: Type.Optional(Type.Enum([...TASK_STATUSES], { description: 'only tasks in this status' })),
  projectId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'only tasks of this project' })),
  housekeeping: Type.Optional(
    Type.Boolean({ default: true, description: 'false leaves out housekeeping (`thumbnails` tasks, which follow every import and upload); a `type` filter names its type either way' }),
  ),
});

export const TaskEventsQuery = Type.Object({
  housekeeping: Type.Optional(Type.Boolean({ default: true, description: 'false leaves out the events of `thumbnails` tasks' })),
});

export const TaskAnswer = Type.Object({ task: TaskView });

export const HashCheckBody = (maxHashes: number) =>
  Type.Object({ hashes: Type.Array(Type.String({ maxLength: 64 }), { maxItems: maxHashes, description: 'base64 SHA-256 of each image' }) }, { additionalProperties: false });

export const HashCheckAnswer = Type.Object({ missing: Type.Array(Type.String(), { description: 'the hashes the server does not have yet: upload those' }) });

export const UploadAnswer = Type.Object({
  files: Type.Array(
    Type.Object({
      id: Type.String(),
      fileId: Type.Optional(Type.String()),
      hash: Type.Optional(Type.String()),
      errors: Type.Array(Type.Object({ code: Type.String(), message: Type.String() })),
    }),
  ),
});
