// Schemas of /v2/images/:id/annotation. They give the request its shape and bounds; the geometry
// rules (point counts per shape, bitmaps, classes, tags) are the import's, applied by the service.
import { Type } from 'typebox';
import { MAX_OBJECTS_PER_ANNOTATION } from '../../formats/supervisely/index.ts';
import { Point } from './resources.ts';

/** Tags an image or an object may carry in one request: far more than any project defines. */
const MAX_TAGS = 1000;

const TagValue = Type.Union([Type.Null(), Type.Number(), Type.String()]);

/** Tag values by tag title, as a request may set them: a tag of the list left out has no value. */
const TagValuesInput = Type.Record(Type.String({ minLength: 1 }), TagValue, {
  maxProperties: MAX_TAGS,
  description: 'values by tag title, each typed by its tag’s value type; when sent, a tag left out has no value (otherwise a tag keeps the value it had)',
});

/** Tag values by tag title, as a read shows them: only tags that have a value. */
const TagValues = Type.Record(Type.String(), Type.Union([Type.Number(), Type.String()]), {
  description: 'the values of the tags that have one, by tag title; absent when none has',
});

/** A tag as the reader takes it: a title, or {name, value} as Supervisely files write it. */
const TagInput = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object({ name: Type.String({ minLength: 1 }), value: Type.Optional(TagValue) }, { additionalProperties: false }),
]);

const ObjectMembers = {
  classTitle: Type.String({ minLength: 1, description: 'a class of the project; the geometry must fit its shape' }),
  description: Type.Optional(Type.String()),
  tags: Type.Optional(Type.Array(TagInput, { maxItems: MAX_TAGS, description: 'object tags (scope `figures`) of the project' })),
  tagValues: Type.Optional(TagValuesInput),
  bitmap: Type.Optional(
    Type.Union([Type.Null(), Type.Object({ origin: Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 }), data: Type.String() }, { additionalProperties: false })]),
  ),
  points: Type.Optional(Type.Object({ exterior: Type.Array(Point), interior: Type.Optional(Type.Array(Type.Array(Point))) }, { additionalProperties: false })),
  geometryType: Type.Optional(Type.String({ description: 'if given, the class’s shape' })),
};

const ObjectInput = Type.Object(
  { id: Type.Optional(Type.Integer({ minimum: 1, description: 'the id of an object of the image, kept; leave it out for a new object' })), ...ObjectMembers },
  { additionalProperties: false },
);

/** PUT: the annotation as GET answers it, ids where objects keep theirs. */
export const AnnotationBody = Type.Object(
  {
    description: Type.Optional(Type.String()),
    tags: Type.Optional(Type.Array(TagInput, { maxItems: MAX_TAGS, description: 'image tags (scope `images`) of the project' })),
    tagValues: Type.Optional(TagValuesInput),
    name: Type.Optional(Type.String({ description: 'the image’s name, as read; it is not changed here' })),
    size: Type.Optional(Type.Object({ width: Type.Integer(), height: Type.Integer() }, { description: 'the image’s size, as read; it is not changed here' })),
    objects: Type.Array(ObjectInput, { maxItems: MAX_OBJECTS_PER_ANNOTATION }),
  },
  { additionalProperties: false },
);

/** PATCH: objects added, changed by id (only the members given), removed by id. */
export const AnnotationPatchBody = Type.Object(
  {
    add: Type.Optional(Type.Array(Type.Object(ObjectMembers, { additionalProperties: false }), { maxItems: MAX_OBJECTS_PER_ANNOTATION })),
    change: Type.Optional(
      Type.Array(Type.Object({ id: Type.Integer({ minimum: 1 }), ...Type.Partial(Type.Object(ObjectMembers)).properties }, { additionalProperties: false }), {
        maxItems: MAX_OBJECTS_PER_ANNOTATION,
      }),
    ),
    remove: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: MAX_OBJECTS_PER_ANNOTATION })),
  },
  { additionalProperties: false },
);

const IdentifiedObject = Type.Object({
  id: Type.Integer({ description: 'stable within the image: kept by every edit, never given to another object' }),
  classTitle: Type.String(),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  tagValues: Type.Optional(TagValues),
  bitmap: Type.Union([Type.Null(), Type.Object({ origin: Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 }), data: Type.String() })]),
  points: Type.Object({ exterior: Type.Array(Point), interior: Type.Array(Type.Array(Point)) }),
});

export const ImageAnnotation = Type.Object(
  {
    description: Type.String(),
    tags: Type.Array(Type.String(), { description: 'image tag titles, in tag id order' }),
    tagValues: Type.Optional(TagValues),
    name: Type.String(),
    size: Type.Object({ width: Type.Integer(), height: Type.Integer() }),
    objects: Type.Array(IdentifiedObject),
  },
  { $id: 'ImageAnnotation', description: 'v1’s annotation record `data`, every object with its id' },
);
