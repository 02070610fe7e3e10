// The v1 resources as the contract shows them.
import { Type } from 'typebox';
import { CLASS_SHAPES } from '../../formats/canonical.ts';
import { SizeString, Timestamp } from './common.ts';
import { TASK_STATUSES } from '../../tasks/statuses.ts';

export const ClassShape = Type.Enum([...CLASS_SHAPES]);

export const Class = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  shape: ClassShape,
  color: Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' }),
});

export const Project = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    size: SizeString,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    classes: Type.Array(Class),
    tags: Type.Array(Type.Object({ id: Type.Integer(), title: Type.String() })),
  },
  { $id: 'Project' },
);

export const Dataset = Type.Object(
  {
    id: Type.Integer(),
    projectId: Type.Integer(),
    title: Type.String(),
    size: SizeString,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Dataset' },
);

export const ProjectTag = Type.Object(
  {
    id: Type.Integer(),
    projectId: Type.Integer(),
    title: Type.String(),
    createdBy: Type.Union([Type.Integer(), Type.Null()]),
    hotkey: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'ProjectTag' },
);

export const ImageTag = Type.Object({ id: Type.Integer(), title: Type.String() }, { $id: 'ImageTag' });

export const Point = Type.Array(Type.Number(), { minItems: 2, maxItems: 2 });

export const AnnotationObject = Type.Object({
  classTitle: Type.String(),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  bitmap: Type.Union([
    Type.Null(),
    Type.Object({ origin: Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 }), data: Type.String() }),
  ]),
  points: Type.Object({ exterior: Type.Array(Point), interior: Type.Array(Type.Array(Point)) }),
});

export const AnnotationRecord = Type.Object(
  {
    imageId: Type.Integer(),
    data: Type.Object({
      description: Type.String(),
      tags: Type.Array(Type.String()),
      name: Type.String(),
      size: Type.Object({ width: Type.Integer(), height: Type.Integer() }),
      objects: Type.Array(AnnotationObject),
    }),
  },
  { $id: 'AnnotationRecord' },
);

export const Model = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    architectureId: Type.Integer(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    path: Type.Object({ bucket: Type.String(), objectName: Type.String() }),
  },
  { $id: 'Model' },
);

export const Architecture = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    description: Type.String(),
    categoryId: Type.Integer(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    trainImage: Type.String(),
    inferenceImage: Type.String(),
    deployImage: Type.String(),
  },
  { $id: 'Architecture' },
);

export { TASK_STATUSES };

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
