// The queries, parameters and bodies of the v1 routes, and the answers that are not resources. The
// routes validate with them and the client in src/client takes its types from them.
import { Type } from 'typebox';
import type { Limits } from '../../config.ts';
import { ON_CONFLICT } from '../../services/import.service.ts';
import { Id, IdList, PagingQuery, TagScope, Title } from './common.ts';

// Projects and datasets
export const ProjectsQuery = Type.Object({ projectId: Type.Optional(Id) });
export const ProjectParams = Type.Object({ projectId: Id });
export const DatasetsQuery = Type.Object({ projectId: Type.Optional(Id) });
export const DatasetParams = Type.Object({ datasetId: Id });

// Annotations, models, architectures
export const AnnotationsQuery = Type.Object({ projectId: Id, datasetIds: Type.Optional(IdList), ...PagingQuery });
export const CatalogueQuery = Type.Object({ id: Type.Optional(IdList), ...PagingQuery });

// Project tags: `type` is the scope, in the body for POST and PUT, in the query for GET and DELETE.
export const Hotkey = Type.String({ maxLength: 64, description: 'may be empty' });
export const ProjectTagBody = Type.Object(
  { type: TagScope, title: Title, hotkey: Type.Optional(Hotkey) },
  { additionalProperties: false },
);
export const TagScopeQuery = Type.Object({ type: TagScope });
export const ProjectIdParams = Type.Object({ id: Id });
export const ProjectTagParams = Type.Object({ projectId: Id, id: Id });
export const CreatedId = Type.Object({ id: Type.Integer() });

// Image tags and description: the query names the image, by `imageId` or by `imageTitle` with `datasetId`.
export const ImageQuery = Type.Object({
  imageId: Type.Optional(Id),
  imageTitle: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'image name; needs datasetId' })),
  datasetId: Type.Optional(Id),
});
/** Exactly one of `id` and `title`; the service says which is missing or doubled. */
const TagChoice = {
  id: Type.Optional(Id),
  title: Type.Optional(Title),
};
export const AttachTagBody = Type.Object(
  { ...TagChoice, create: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, description: 'exactly one of id or title' },
);
export const DetachTagsBody = Type.Array(
  Type.Object(TagChoice, { additionalProperties: false, description: 'exactly one of id or title' }),
  { maxItems: 1000 },
);
export const descriptionBody = (limits: Pick<Limits, 'descriptionLength'>) =>
  Type.Object({ value: Type.String({ maxLength: limits.descriptionLength }) }, { additionalProperties: false });

// Tasks
export const TasksQuery = Type.Object({ id: Type.Optional(Id) });
export const TaskParams = Type.Object({ id: Id });
export const StopAnswer = Type.Object({ status: Type.Literal('terminating') });

// Import
export const checkImagesBody = (limits: Pick<Limits, 'checkHashes'>) =>
  Type.Array(Type.String({ maxLength: 64 }), { maxItems: limits.checkHashes });
export const MissingHashes = Type.Array(Type.String());

/** The JSON part `<key>` of a file of POST /tasks/import/files (checked by the upload service). */
export const UploadMetadata = Type.Object({
  id: Type.String(),
  hash: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  type: Type.String({ description: 'image, annotation or class' }),
  format: Type.String({ description: 'supervisely, coco, yolo, pascal_voc or images' }),
});

export const UploadResult = Type.Object({
  id: Type.String(),
  fileId: Type.Optional(Type.String()),
  hash: Type.Optional(Type.String()),
  errors: Type.Array(Type.Object({ code: Type.String(), message: Type.String() })),
});

export const ImportFileRef = Type.Union([
  Type.Object({ hash: Type.String({ maxLength: 64 }), path: Type.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false }),
  Type.Object({ fileId: Type.String({ maxLength: 64 }), path: Type.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false }),
]);

export const OnConflict = Type.Enum([...ON_CONFLICT]);

export const importBody = (limits: Pick<Limits, 'importFiles'>) =>
  Type.Object(
    {
      project: Type.Object({ id: Type.Union([Id, Type.Null()]), title: Type.Optional(Title) }, { additionalProperties: false }),
      preset: Type.Integer({ minimum: 0, maximum: 5 }),
      onConflict: Type.Optional(OnConflict),
      files: Type.Array(ImportFileRef, { minItems: 1, maxItems: limits.importFiles }),
    },
    { additionalProperties: false },
  );

export const LocalImportBody = Type.Object(
  {
    id: Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()]),
    title: Type.Optional(Title),
    datasetsIds: Type.Array(Id, { minItems: 1, maxItems: 10_000 }),
  },
  { additionalProperties: false },
);

export const TaskId = Type.Object({ taskId: Type.Integer() });
