// Schemas of /v2/images/:id/annotation/revisions: the history of an image's annotation.
import { Type } from 'typebox';
import { Id, Timestamp } from './common.ts';
import { ImageAnnotation } from './image-annotation.ts';
import { ListQuery } from './v2.ts';

const NullableId = (description: string) => Type.Union([Id, Type.Null()], { description });

export const AnnotationRevision = Type.Object(
  {
    id: Id,
    author: Type.Object({
      keyId: NullableId('the API key the change was made with (a browser session counts as its key); null for a task'),
      userId: NullableId('the user account that made the change; null when none is known'),
      taskId: NullableId('the task (an import, a DTL run) that made the change; null for a request'),
    }),
    createdAt: Timestamp,
    objects: Type.Object(
      {
        added: Type.Integer({ minimum: 0 }),
        removed: Type.Integer({ minimum: 0 }),
        changed: Type.Integer({ minimum: 0, description: 'objects kept (same id) whose geometry, class, tags or values changed' }),
      },
      { description: 'objects added, removed and changed by this revision' },
    ),
  },
  { $id: 'AnnotationRevision' },
);

export const RevisionParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
  revisionId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
});

export const RevisionListQuery = Type.Object({ ...ListQuery });

export const RevisionWithAnnotation = Type.Object({
  revision: AnnotationRevision,
  // ImageAnnotation's members, not the schema itself: a schema of an $id is given once.
  annotation: Type.Object(ImageAnnotation.properties, { description: 'the annotation as this revision left it, as GET /v2/images/:id/annotation shows one' }),
});
