// Schemas of /v2 images: the metadata of an image, and what its routes take.
import { Type } from 'typebox';
import type { Limits } from '../../config.ts';

const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const Timestamp = Type.String({ format: 'date-time' });

export const ImageMetadata = Type.Object(
  {
    id: Id,
    datasetId: Id,
    projectId: Id,
    name: Type.String(),
    hash: Type.String({ description: 'base64 SHA-256 of the bytes' }),
    size: Type.Integer({ minimum: 0, description: 'bytes' }),
    width: Type.Integer({ minimum: 0 }),
    height: Type.Integer({ minimum: 0 }),
    mediaType: Type.String(),
    description: Type.String(),
    tags: Type.Array(
      Type.Object({
        id: Id,
        title: Type.String(),
        value: Type.Union([Type.Number(), Type.String(), Type.Null()]),
      }),
      { description: 'image tags, in tag id order' },
    ),
    objectCounts: Type.Array(
      Type.Object({ classId: Id, classTitle: Type.String(), count: Type.Integer({ minimum: 1 }) }),
      { description: 'how many objects of each class the annotation holds, in class id order' },
    ),
    objectCount: Type.Integer({ minimum: 0, description: 'every object of the annotation, of a class the project has or not' }),
    thumbhash: Type.Union([Type.String(), Type.Null()], { description: 'a tiny placeholder of the image (base64), once its thumbnail is made' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
);

export const ImageParams = Type.Object({ id: Id });
export const DatasetImagesParams = Type.Object({ datasetId: Id });

export const imageChangeBody = (limits: Pick<Limits, 'descriptionLength'>) =>
  Type.Object(
    {
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
      description: Type.Optional(Type.String({ maxLength: limits.descriptionLength })),
      datasetId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'move the image into this dataset of the team' })),
    },
    { additionalProperties: false, minProperties: 1 },
  );

export const ImageCopyBody = Type.Object(
  {
    datasetId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'the copy’s name; the image’s own by default' })),
  },
  { additionalProperties: false },
);

const Ids = (description: string) => Type.Optional(Type.Array(Id, { maxItems: 100, description }));
const Count = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description }));

/** Filters that combine (every one given must hold), shared by the image list and the statistics. */
export const CombinedFilters = {
  datasetIds: Ids('images of any of these datasets of the project'),
  classAny: Ids('images with an object of at least one of these classes'),
  classAll: Ids('images with objects of every one of these classes'),
  classNone: Ids('images with no object of any of these classes'),
  tagAny: Ids('images with at least one of these image tags'),
  tagAll: Ids('images with every one of these image tags'),
  tagNone: Ids('images with none of these image tags'),
  tagValue: Type.Optional(
    Type.Array(Type.String({ minLength: 3, maxLength: 1100 }), {
      maxItems: 100,
      description: 'tagId:value, images whose image tag holds the value; values of one tag: any of them; of several tags: each',
    }),
  ),
  minObjects: Count('images with at least this many objects'),
  maxObjects: Count('images with at most this many objects'),
  boxClassId: Type.Optional(Id),
  boxMinArea: Count('images with an object (of boxClassId, or of any class) whose box has at least this area (px²)'),
  boxMaxArea: Count('… whose box has at most this area (px²)'),
  boxMinSide: Count('… whose box covers a square of this side (px): both sides at least this'),
  boxMaxSide: Count('… whose box fits in a square of this side (px): both sides at most this'),
};

/** Query members of the list, beside ListQuery's. */
export const ImageListFilters = {
  datasetId: Type.Optional(Id),
  projectId: Type.Optional(Id),
  namePrefix: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  nameContains: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1024, description: 'names that hold this text anywhere, without regard to case (Unicode case folding; accents count)' }),
  ),
  tagId: Type.Optional(Id),
  classId: Type.Optional(Id),
  annotated: Type.Optional(Type.Boolean({ description: 'true: images with at least one object; false: images with none' })),
  predictionScore: Type.Optional(
    Type.Number({ minimum: 0, maximum: 1, description: 'images with a prediction scored at least this (of `predictionModel` when given; docs/predictions.md)' }),
  ),
  predictionModel: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'with predictionScore: predictions of this model only' })),
  disagreeModel: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "images whose predictions of this model disagree with the annotation: a prediction or an annotated object unmatched (docs/predictions.md)",
    }),
  ),
  disagreeScore: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'with disagreeModel: the predictions scored at least this are compared (default 0.5)' })),
  disagreeIou: Type.Optional(
    Type.Number({ minimum: 0.5, maximum: 0.95, description: 'with disagreeModel: the IoU a match needs, one of 0.5, 0.55, … 0.95 (default 0.5)' }),
  ),
  disagreeIouType: Type.Optional(
    Type.Union([Type.Literal('bbox'), Type.Literal('segm')], { description: 'with disagreeModel: IoU of boxes (bbox, the default) or of masks (segm)' }),
  ),
  ...CombinedFilters,
  sort: Type.Optional(
    Type.Union([Type.Literal('id'), Type.Literal('-id'), Type.Literal('name'), Type.Literal('objects'), Type.Literal('-objects')], {
      default: 'id',
      description: 'id: in the order the images were added; -id: newest first; name; objects: fewest objects first; -objects: most first (ties by id)',
    }),
  ),
};

/** Where a page starts by position, for a client that jumps into a list (instead of a cursor). */
export const ImagePositionQuery = {
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1_000_000_000,
      description: 'start the page at this position of the list (0-based) instead of at a cursor; a dataset’s or project’s whole list by id finds it from per-block counts, a filtered list or the order by name steps over the positions before it',
    }),
  ),
};

export const UploadedImages = Type.Object({ items: Type.Array(ImageMetadata) });
