// Versions: the request to make one, and how a version, its images and a diff are answered.
import { Type } from 'typebox';
import { DEFAULT_DISTANCE, MAX_DISTANCE } from '../../services/hamming-pairs.ts';
import { Id, Timestamp, Title } from './common.ts';
import { ListQuery } from './v2.ts';

const SubsetName = Type.String({ minLength: 1, maxLength: 64 });

export const SplitRule = Type.Union(
  [
    Type.Object({ method: Type.Literal('none') }, { additionalProperties: false, description: 'no subsets' }),
    Type.Object(
      {
        method: Type.Literal('random'),
        ratios: Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Type.Number({ exclusiveMinimum: 0 }), {
          minProperties: 1,
          maxProperties: 16,
          description: 'subset name → share, e.g. {"train": 0.8, "val": 0.2}; shares are normalised',
        }),
        seed: Type.Integer({ minimum: 0, maximum: 4_294_967_295, description: 'the same seed and images give the same subsets' }),
        stratify: Type.Optional(Type.Boolean({ description: 'split each class (an image’s most frequent class) by the ratios on its own' })),
      },
      { additionalProperties: false },
    ),
    Type.Object({ method: Type.Literal('datasets') }, { additionalProperties: false, description: 'each dataset is a subset of its title' }),
  ],
  { description: 'how the images are divided into subsets' },
);

export const VersionBody = Type.Object(
  {
    name: Title,
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    datasetIds: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 10_000, description: 'only these datasets of the project' })),
    split: Type.Optional(SplitRule),
  },
  { additionalProperties: false },
);

export const Version = Type.Object({
  id: Type.Integer(),
  projectId: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  split: SplitRule,
  imageCount: Type.Integer(),
  objectCount: Type.Integer(),
  createdAt: Timestamp,
  subsets: Type.Record(Type.String(), Type.Integer(), { description: 'images per subset ("" for images of a version without a split)' }),
  classes: Type.Array(
    Type.Object({
      index: Type.Integer({ minimum: 1, description: 'stable: 0 is the background of masks; a later version keeps the index of every class it shares' }),
      classId: Type.Integer(),
      title: Type.String(),
      shape: Type.String(),
      color: Type.String(),
    }),
  ),
  tags: Type.Array(Type.Object({ tagId: Type.Integer(), title: Type.String(), scope: Type.String(), valueType: Type.String() })),
});

export const VersionImage = Type.Object({
  imageId: Type.Integer(),
  datasetId: Type.Integer(),
  dataset: Type.String(),
  name: Type.String(),
  hash: Type.String({ description: 'base64 SHA-256 of the bytes: GET /v2/versions/:id/images/:imageId/file' }),
  width: Type.Integer(),
  height: Type.Integer(),
  subset: Type.String(),
  description: Type.String(),
  tags: Type.Array(Type.Object({ title: Type.String(), value: Type.Unknown() })),
  objects: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'the objects as they were, each with its id, tags with their values' }),
});

export const VersionImagesQuery = Type.Object({ limit: ListQuery.limit, cursor: ListQuery.cursor, subset: Type.Optional(SubsetName) }, { additionalProperties: false });
export const VersionsQuery = Type.Object({ limit: ListQuery.limit, cursor: ListQuery.cursor }, { additionalProperties: false });
export const DiffQuery = Type.Object({ from: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'the version compared against' }) }, { additionalProperties: false });

export const VersionDiff = Type.Object({
  from: Type.Integer(),
  to: Type.Integer(),
  images: Type.Object({ added: Type.Integer(), removed: Type.Integer(), changed: Type.Integer(), unchanged: Type.Integer() }),
  classes: Type.Array(Type.Object({ title: Type.String(), added: Type.Integer(), removed: Type.Integer(), changed: Type.Integer() }), { description: 'objects per class title; changed: the same object id with other content' }),
});

export const LeakageQuery = Type.Object(
  {
    maxDistance: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_DISTANCE,
        default: DEFAULT_DISTANCE,
        description: 'near when the pHashes differ in at most this many of their 64 bits and the dHashes in at most 1.5 times as many (as the near-duplicates report)',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 })),
  },
  { additionalProperties: false },
);

export const Leakage = Type.Object({
  versionId: Type.Integer(),
  maxDistance: Type.Integer(),
  images: Type.Integer({ description: 'images of the version' }),
  pending: Type.Integer({ description: 'images whose blobs have no perceptual hashes yet: only their exact copies are found' }),
  groupCount: Type.Integer({ description: 'groups of copies and near-duplicates that sit in two subsets or more' }),
  imagesInGroups: Type.Integer(),
  offset: Type.Integer(),
  groups: Type.Array(
    Type.Object({
      size: Type.Integer(),
      subsets: Type.Array(Type.Object({ subset: Type.String(), count: Type.Integer() })),
      images: Type.Array(Type.Object({ imageId: Type.Integer(), name: Type.String(), dataset: Type.String(), subset: Type.String() }), { description: 'the first 100' }),
      pairs: Type.Array(Type.Object({ a: Type.Integer(), b: Type.Integer(), distance: Type.Integer({ minimum: 0, maximum: 64 }), sameBytes: Type.Boolean() }), {
        description: 'image pairs in different subsets within maxDistance, nearest first (the first 100)',
      }),
    }),
    { description: 'largest first' },
  ),
});
