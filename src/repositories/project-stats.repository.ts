// The statistics of a project's images, or of the images a filter finds, read from the images rows
// (object counts, sizes) and the summaries of their objects per class (image_classes): a few grouped
// scans of integers, never the objects themselves.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/types.ts';
import { AREA_COLUMNS, ASPECT_COLUMNS, GRID_COLUMNS } from '../formats/object-summary.ts';
import { planNameSearch } from '../db/name-search.ts';
import { type ImageFilter, filteredImages as filtered } from './image-metadata.repository.ts';
import { plainScopeOf } from './image-positions.repository.ts';

/** Objects per image are counted one by one up to this, then together. */
export const OBJECTS_PER_IMAGE_CAP = 20;
/** The most common image sizes listed. */
const IMAGE_SIZES = 20;

export interface DatasetCount {
  datasetId: number;
  images: number;
  objects: number;
  imagesWithoutObjects: number;
}

export interface ClassStats {
  classId: number;
  images: number;
  objects: number;
  area: number[];
  aspect: number[];
  grid: number[];
}

export interface ImageStats {
  datasets: DatasetCount[];
  /** Images by object count: index i holds the images with i objects; the last, those with the cap or more. */
  objectsPerImage: number[];
  imageSizes: { width: number; height: number; images: number }[];
  classes: ClassStats[];
}

const n = (v: unknown) => Number(v ?? 0);

export async function imageStats(db: Kysely<Database>, filter: ImageFilter): Promise<ImageStats> {
  const search = filter.nameContains ? await planNameSearch(db, filter.nameContains) : undefined;
  const filteredImages = (d: Kysely<Database>, f: ImageFilter) => filtered(d, f, search);
  const cap = sql.lit(OBJECTS_PER_IMAGE_CAP);
  const datasetRows = await filteredImages(db, filter)
    .select('images.dataset_id')
    .select(sql<number | string>`count(*)`.as('images'))
    .select(sql<number | string | null>`sum(images.object_count)`.as('objects'))
    .select(sql<number | string | null>`sum(case when images.object_count = 0 then 1 else 0 end)`.as('empty'))
    .groupBy('images.dataset_id')
    .orderBy('images.dataset_id')
    .execute();
  const perImageRows = await filteredImages(db, filter)
    .select(sql<number>`case when images.object_count >= ${cap} then ${cap} else images.object_count end`.as('bin'))
    .select(sql<number | string>`count(*)`.as('images'))
    .groupBy(sql`case when images.object_count >= ${cap} then ${cap} else images.object_count end`)
    .execute();
  const sizeRows = await filteredImages(db, filter)
    .select(['images.width', 'images.height'])
    .select(sql<number | string>`count(*)`.as('images'))
    .groupBy(['images.width', 'images.height'])
    .orderBy(sql`count(*)`, 'desc')
    .orderBy('images.width')
    .orderBy('images.height')
    .limit(IMAGE_SIZES)
    .execute();
  const histogram = [...AREA_COLUMNS, ...ASPECT_COLUMNS, ...GRID_COLUMNS];
  // A project's whole list reads its rows by project; anything narrower, the rows of the images it finds.
  const scope = plainScopeOf(filter);
  let rows = db.selectFrom('image_classes');
  if (scope && 'projectId' in scope) rows = rows.where('image_classes.project_id', '=', scope.projectId);
  else rows = rows.where('image_classes.image_id', 'in', filteredImages(db, filter).select('images.id'));
  const classRows = (await rows
    .select('image_classes.class_id')
    .select(sql<number | string>`count(*)`.as('images'))
    .select(sql<number | string>`sum(objects)`.as('objects'))
    .select(histogram.map((c) => sql<number | string>`sum(${sql.ref(c)})`.as(c)))
    .groupBy('image_classes.class_id')
    .orderBy('image_classes.class_id')
    .execute()) as unknown as Record<string, number | string>[];
  const objectsPerImage = new Array<number>(OBJECTS_PER_IMAGE_CAP + 1).fill(0);
  for (const r of perImageRows) objectsPerImage[n(r.bin)] = n(r.images);
  return {
    datasets: datasetRows.map((r) => ({ datasetId: r.dataset_id, images: n(r.images), objects: n(r.objects), imagesWithoutObjects: n(r.empty) })),
    objectsPerImage,
    imageSizes: sizeRows.map((r) => ({ width: r.width, height: r.height, images: n(r.images) })),
    classes: classRows.map((r) => ({
      classId: n(r.class_id),
      images: n(r.images),
      objects: n(r.objects),
      area: AREA_COLUMNS.map((c) => n(r[c])),
      aspect: ASPECT_COLUMNS.map((c) => n(r[c])),
      grid: GRID_COLUMNS.map((c) => n(r[c])),
    })),
  };
}
