// Schemas of GET /v2/projects/:projectId/stats.
import { Type } from 'typebox';
import { CombinedFilters } from './v2-images.ts';

const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const Count = Type.Integer({ minimum: 0 });
const Counts = (description: string) => Type.Array(Count, { description });

export const ProjectStatsQuery = Type.Object(
  {
    nameContains: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    annotated: Type.Optional(Type.Boolean()),
    ...CombinedFilters,
  },
  { additionalProperties: false },
);

const Histogram = (what: string) =>
  Type.Object({
    edges: Type.Array(Type.Number(), { description: `upper edges of the ${what} bins; the last bin holds what lies at or above the last edge` }),
    counts: Counts('objects per bin: one more than the edges'),
  });

export const ProjectStats = Type.Object({
  images: Count,
  objects: Count,
  imagesWithoutObjects: Count,
  classes: Type.Array(
    Type.Object({
      classId: Id,
      title: Type.String(),
      color: Type.String(),
      images: Type.Integer({ minimum: 0, description: 'images with at least one object of the class' }),
      objects: Count,
      area: Counts('the class’s objects per box area bin (the edges of `area`)'),
      aspect: Counts('the class’s objects per box aspect bin (the edges of `aspect`)'),
      heatmap: Counts('the class’s objects whose box centre lies in each cell of a grid × grid split of the image, row by row from the top left'),
    }),
    { description: 'every class of the project, in id order' },
  ),
  datasets: Type.Array(
    Type.Object({ datasetId: Id, title: Type.String(), images: Count, objects: Count, imagesWithoutObjects: Count }),
    { description: 'the datasets of the project (those of datasetIds when given), in id order' },
  ),
  objectsPerImage: Counts('images with 0, 1, 2 … objects; the last entry counts the images with that many or more'),
  area: Histogram('box area (as the side of a square of that area, px)'),
  aspect: Histogram('box aspect (width ÷ height)'),
  grid: Type.Integer({ minimum: 1, description: 'cells per side of the heatmaps' }),
  imageSizes: Type.Array(Type.Object({ width: Count, height: Count, images: Count }), { description: 'the most common image sizes, most images first (20 at most)' }),
});
