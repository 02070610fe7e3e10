// Schemas of /v2 near-duplicates: the images like one image, a project's groups of look-alikes.
import { Type } from 'typebox';
import { DEFAULT_DISTANCE, MAX_DISTANCE } from '../../services/hamming-pairs.ts';

const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });

const Distance = Type.Integer({
  minimum: 0,
  maximum: MAX_DISTANCE,
  default: DEFAULT_DISTANCE,
  description: 'near when the pHashes differ in at most this many of their 64 bits and the dHashes in at most 1.5 times as many',
});

const NearImage = {
  id: Id,
  name: Type.String(),
  datasetId: Id,
  datasetTitle: Type.String(),
};

export const SimilarQuery = Type.Object(
  {
    distance: Type.Optional(Distance),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);

export const SimilarImages = Type.Object({
  distance: Type.Integer(),
  hashed: Type.Boolean({ description: 'false until the image’s perceptual hashes are made (with its thumbnail): nothing is compared before' }),
  items: Type.Array(
    Type.Object({
      ...NearImage,
      projectId: Id,
      phashDistance: Type.Integer({ minimum: 0, maximum: 64 }),
      dhashDistance: Type.Integer({ minimum: 0, maximum: 64 }),
      sameBytes: Type.Boolean({ description: 'an exact copy: the same SHA-256' }),
    }),
    { description: 'images of the team, nearest first; the image itself left out' },
  ),
});

export const NearDuplicatesQuery = Type.Object(
  {
    distance: Type.Optional(Distance),
    crossDataset: Type.Optional(Type.Boolean({ default: false, description: 'only the groups whose images lie in more than one dataset' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'groups in this answer' })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'groups skipped' })),
  },
  { additionalProperties: false },
);

export const NearDuplicateReport = Type.Object({
  distance: Type.Integer(),
  images: Type.Integer({ minimum: 0, description: 'images of the project' }),
  pending: Type.Integer({ minimum: 0, description: 'images without perceptual hashes yet, left out of the groups' }),
  groupCount: Type.Integer({ minimum: 0, description: 'groups in all (of those asked for), over every page' }),
  crossDatasetGroups: Type.Integer({ minimum: 0 }),
  imagesInGroups: Type.Integer({ minimum: 0 }),
  offset: Type.Integer({ minimum: 0 }),
  groups: Type.Array(
    Type.Object({
      size: Type.Integer({ minimum: 2, description: 'images in the group' }),
      crossDataset: Type.Boolean({ description: 'its images lie in more than one dataset (split): a leak between them' }),
      datasets: Type.Array(Type.Object({ id: Id, title: Type.String(), count: Type.Integer({ minimum: 1 }) })),
      images: Type.Array(Type.Object(NearImage), { description: 'in id order, the first 100' }),
    }),
    { description: 'largest first; images linked by near pairs (a chain of them is one group) or by the same bytes' },
  ),
});

export const HashingAnswer = Type.Object({
  blobs: Type.Integer({ minimum: 0, description: 'distinct images (by bytes) queued to be hashed' }),
  taskIds: Type.Array(Type.Integer(), { description: 'the thumbnails tasks that make them; none when nothing lacks hashes' }),
});
