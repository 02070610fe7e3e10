// The statistics of a project's images, or of the images a filter finds. A whole project or dataset
// reads the running totals that triggers keep with every write (migration 0037); a filter, the images
// rows (object counts, sizes) and the summaries of their objects per class (image_classes): a few
// grouped scans of integers, never the objects themselves.
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { Database } from '../db/types.ts';
import { AREA_COLUMNS, ASPECT_COLUMNS, GRID_COLUMNS } from '../formats/object-summary.ts';
import { planNameSearch } from '../db/name-search.ts';
import { type ImageFilter, filteredImages as filtered } from './image-metadata.repository.ts';
import { type Scope, plainScopeOf } from './image-positions.repository.ts';
import { hiddenDatasetsOf } from './hidden-datasets.ts';

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

/**
 * The statistics of a filter's images. A project's or a dataset's whole list reads the running totals
 * (migration 0037); anything narrower, or
 * `recount`, scans the images the filter finds.
 */
export async function imageStats(db: Kysely<Database>, filter: ImageFilter, options: { recount?: boolean } = {}): Promise<ImageStats> {
  // One dataset of a list of datasets is that dataset's whole list.
  const one = filter.datasetIds?.length === 1 && filter.datasetId === undefined ? { ...filter, datasetIds: undefined, datasetId: filter.datasetIds[0] } : filter;
  const scope = options.recount ? undefined : plainScopeOf(one);
  if (scope) return statsFromTotals(db, scope);
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
  const classRows = await groupedClassRows(db, db.selectFrom('image_classes').where('image_classes.image_id', 'in', filteredImages(db, filter).select('images.id')));
  const objectsPerImage = new Array<number>(OBJECTS_PER_IMAGE_CAP + 1).fill(0);
  for (const r of perImageRows) objectsPerImage[n(r.bin)] = n(r.images);
  return {
    datasets: datasetRows.map((r) => ({ datasetId: r.dataset_id, images: n(r.images), objects: n(r.objects), imagesWithoutObjects: n(r.empty) })),
    objectsPerImage,
    imageSizes: sizeRows.map((r) => ({ width: r.width, height: r.height, images: n(r.images) })),
    classes: classRows,
  };
}

const HISTOGRAM = [...AREA_COLUMNS, ...ASPECT_COLUMNS, ...GRID_COLUMNS];

/** Per class, the sums of some image_classes rows. */
async function groupedClassRows(db: Kysely<Database>, rows: SelectQueryBuilder<Database, 'image_classes', object>): Promise<ClassStats[]> {
  const grouped = (await rows
    .select('image_classes.class_id')
    .select(sql<number | string>`count(*)`.as('images'))
    .select(sql<number | string>`sum(objects)`.as('objects'))
    .select(HISTOGRAM.map((c) => sql<number | string>`sum(${sql.ref(c)})`.as(c)))
    .groupBy('image_classes.class_id')
    .orderBy('image_classes.class_id')
    .execute()) as unknown as Record<string, number | string>[];
  return grouped.map(classStatsOf);
}

function classStatsOf(r: Record<string, number | string>): ClassStats {
  return {
    classId: n(r.class_id),
    images: n(r.images),
    objects: n(r.objects),
    area: AREA_COLUMNS.map((c) => n(r[c])),
    aspect: ASPECT_COLUMNS.map((c) => n(r[c])),
    grid: GRID_COLUMNS.map((c) => n(r[c])),
  };
}

/** Per class, the sums of some dataset_class_totals rows. */
async function groupedClassTotals(rows: SelectQueryBuilder<Database, 'dataset_class_totals', object>): Promise<ClassStats[]> {
  const grouped = (await rows
    .select('class_id')
    .select(sql<number | string>`sum(images)`.as('images'))
    .select(sql<number | string>`sum(objects)`.as('objects'))
    .select(HISTOGRAM.map((c) => sql<number | string>`sum(${sql.ref(c)})`.as(c)))
    .where('images', '>', 0)
    .groupBy('class_id')
    .orderBy('class_id')
    .execute()) as unknown as Record<string, number | string>[];
  return grouped.map(classStatsOf);
}

/** The statistics of a whole project or dataset from the running totals: reads of a few hundred rows. */
async function statsFromTotals(db: Kysely<Database>, scope: Scope): Promise<ImageStats> {
  const inScope = <T extends 'dataset_image_totals' | 'dataset_size_totals' | 'dataset_class_totals'>(table: T) =>
    'datasetId' in scope
      ? db.selectFrom(table as 'dataset_image_totals').where('dataset_id', '=', scope.datasetId)
      : db.selectFrom(table as 'dataset_image_totals').where('project_id', '=', scope.projectId).where('dataset_id', 'not in', hiddenDatasetsOf(db, scope.projectId));
  const [binRows, sizeRows, classes] = await Promise.all([
    inScope('dataset_image_totals').select(['dataset_id', 'objects_bin', 'images', 'objects']).where('images', '>', 0).orderBy('dataset_id').execute(),
    (inScope('dataset_size_totals') as unknown as SelectQueryBuilder<Database, 'dataset_size_totals', object>)
      .select(['width', 'height'])
      .select(sql<number | string>`sum(images)`.as('images'))
      .where('images', '>', 0)
      .groupBy(['width', 'height'])
      .orderBy(sql`sum(images)`, 'desc')
      .orderBy('width')
      .orderBy('height')
      .limit(IMAGE_SIZES)
      .execute(),
    groupedClassTotals(inScope('dataset_class_totals' as 'dataset_image_totals') as unknown as SelectQueryBuilder<Database, 'dataset_class_totals', object>),
  ]);
  const datasets = new Map<number, DatasetCount>();
  const objectsPerImage = new Array<number>(OBJECTS_PER_IMAGE_CAP + 1).fill(0);
  for (const r of binRows) {
    let d = datasets.get(r.dataset_id);
    if (!d) datasets.set(r.dataset_id, (d = { datasetId: r.dataset_id, images: 0, objects: 0, imagesWithoutObjects: 0 }));
    d.images += r.images;
    d.objects += n(r.objects);
    if (r.objects_bin === 0) d.imagesWithoutObjects += r.images;
    objectsPerImage[r.objects_bin] = objectsPerImage[r.objects_bin]! + r.images;
  }
  return {
    datasets: [...datasets.values()],
    objectsPerImage,
    imageSizes: sizeRows.map((r) => ({ width: r.width, height: r.height, images: n(r.images) })),
    classes,
  };
}
