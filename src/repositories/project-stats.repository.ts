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
  return statsOfMatches(db, filtered(db, filter, search, 'every'));
}

/** Which of the three groupings of statsOfMatches a row is of. */
const PER_BIN = 0;
const PER_SIZE = 1;
const PER_CLASS = 2;

/**
 * The statistics of the images `matches` finds, in one statement that finds them once: the matches'
 * rows are kept (a materialised common table expression, in both databases), then grouped three ways
 * (by dataset and object count; by size, the most common first; their image_classes rows by class),
 * each grouping's rows in one result of the same columns. Four statements each finding the matches
 * again took four times as long.
 */
async function statsOfMatches(db: Kysely<Database>, matches: SelectQueryBuilder<Database, 'images', object>): Promise<ImageStats> {
  const cap = sql.lit(OBJECTS_PER_IMAGE_CAP);
  const bin = sql`case when m.object_count >= ${cap} then ${cap} else m.object_count end`;
  const none = sql.join(HISTOGRAM.map((c) => sql`0 as ${sql.ref(c)}`));
  const sums = sql.join(HISTOGRAM.map((c) => sql`sum(ic.${sql.ref(c)}) as ${sql.ref(c)}`));
  const kept = matches.select(['images.id', 'images.dataset_id', 'images.object_count', 'images.width', 'images.height']);
  const { rows } = await sql<Record<string, number | string | null>>`
    with m as materialized ${kept}
    select ${sql.lit(PER_BIN)} as part, m.dataset_id as a, ${bin} as b, count(*) as images, sum(m.object_count) as objects, ${none} from m group by m.dataset_id, ${bin}
    union all
    select * from (select ${sql.lit(PER_SIZE)} as part, m.width as a, m.height as b, count(*) as images, 0 as objects, ${none} from m
      group by m.width, m.height order by count(*) desc, m.width, m.height limit ${sql.lit(IMAGE_SIZES)}) as sizes
    union all
    select ${sql.lit(PER_CLASS)} as part, ic.class_id as a, 0 as b, count(*) as images, sum(ic.objects) as objects, ${sums}
      from m join image_classes ic on ic.image_id = m.id group by ic.class_id`.execute(db);
  const datasets = new Map<number, DatasetCount>();
  const objectsPerImage = new Array<number>(OBJECTS_PER_IMAGE_CAP + 1).fill(0);
  const imageSizes: ImageStats['imageSizes'] = [];
  const classes: ClassStats[] = [];
  for (const r of rows) {
    const [part, a, b, images, objects] = [n(r.part), n(r.a), n(r.b), n(r.images), n(r.objects)];
    if (part === PER_BIN) {
      let d = datasets.get(a);
      if (!d) datasets.set(a, (d = { datasetId: a, images: 0, objects: 0, imagesWithoutObjects: 0 }));
      d.images += images;
      d.objects += objects;
      if (b === 0) d.imagesWithoutObjects += images;
      objectsPerImage[b] = objectsPerImage[b]! + images;
    } else if (part === PER_SIZE) imageSizes.push({ width: a, height: b, images });
    else classes.push(classStatsOf({ ...r, class_id: a } as Record<string, number | string>));
  }
  imageSizes.sort((x, y) => y.images - x.images || x.width - y.width || x.height - y.height);
  return {
    datasets: [...datasets.values()].sort((x, y) => x.datasetId - y.datasetId),
    objectsPerImage,
    imageSizes,
    classes: classes.sort((x, y) => x.classId - y.classId),
  };
}

const HISTOGRAM = [...AREA_COLUMNS, ...ASPECT_COLUMNS, ...GRID_COLUMNS];

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
      : db.selectFrom(table as 'dataset_image_totals').where('project_id', '=', scope.projectId).where('dataset_id', 'not in', hiddenDatasetsOf(db, scope.projectId, scope.reader));
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
