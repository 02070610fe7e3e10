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
  sort: Type.Optional(Type.Union([Type.Literal('id'), Type.Literal('name')], { default: 'id' })),
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
