// Schemas of the /v2/exports routes, shared with the typed client.
import { Type } from 'typebox';
import { MAX_LAYERS } from '../../dtl/config.ts';
import { EXPORT_FORMATS } from '../../formats/writers.ts';
import { Id } from './common.ts';
import { TaskView } from './v2-tasks.ts';

export const ExportBody = Type.Object(
  {
    projectId: Type.Optional(Id),
    datasetIds: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
    version: Type.Optional(
      Type.Union([Id, Type.String({ minLength: 1, maxLength: 255 })], { description: 'export this version of the project instead of the project as it is now: its id, or its name (with projectId)' }),
    ),
    format: Type.Optional(Type.String({ maxLength: 64, description: `one of ${EXPORT_FORMATS.join(', ')}` })),
    options: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'includeImages, onlyAnnotated, classes, and the format’s own (see docs/exports.md)' }),
    ),
    config: Type.Optional(
      Type.Array(Type.Object({}, { additionalProperties: true }), {
        maxItems: MAX_LAYERS,
        description: 'a DTL graph instead of projectId, datasetIds, format and options: data layers, processing layers, one output layer (docs/dtl.md)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ExportParams = Type.Object({ id: Id });

export const ExportAnswer = Type.Object({
  task: TaskView,
  archive: Type.Union([Type.Object({ size: Type.Integer() }), Type.Null()], { description: 'the archive, once the export has finished' }),
});
