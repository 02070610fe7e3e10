// Image metadata as API v2 shows it, one image or a page of them. A page costs four statements
// whatever its length: the rows, then the tags, the objects and the classes of all its images.
// Counting and filtering by class read the stored objects' text (stored-objects.ts) instead of
// parsing them, which cost the database ten times as long (50 ms for a page of 1,000 images of 10
// objects each, against 5 ms).
import { type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { containsText } from '../db/dialect.ts';
import { startsWithText } from '../db/json-text.ts';
import { type NameSearch, nameContains, nameMatches, planNameSearch } from '../db/name-search.ts';
import type { Database } from '../db/types.ts';
import { NO_OBJECTS, OBJECT_START, countClassTitles } from './stored-objects.ts';
import { type DatasetReader, hiddenDatasetsOf, shownDatasetId } from './hidden-datasets.ts';

export interface ImageTagValue {
  id: number;
  title: string;
  /** A Supervisely tag value, or null for a tag without one. */
  value: number | string | null;
}

export interface ClassCount {
  classId: number;
  classTitle: string;
  count: number;
}

export interface ImageMetadata {
  id: number;
  datasetId: number;
  projectId: number;
  name: string;
  hash: string;
  size: number;
  width: number;
  height: number;
  mediaType: string;
  description: string;
  tags: ImageTagValue[];
  objectCounts: ClassCount[];
  /** Every object of the image, of a class the project has or not. */
  objectCount: number;
  thumbhash: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Which images a list holds: those of one dataset or one project, narrowed by the rest. */
export interface ImageFilter {
  datasetId?: number;
  projectId?: number;
  /**
   * With projectId: the project's hidden datasets (hidden-datasets.ts), read before the query. A list of
   * a project without any then tests no image for them, so a walk along an index reads the index alone;
   * without this field, the query looks them up itself.
   */
  hiddenDatasetIds?: number[];
  /**
   * With projectId: who reads (hidden-datasets.ts): a manager of the project sees its managers-only
   * datasets, anybody else (and a filter that does not say) does not.
   */
  reader?: DatasetReader;
  /** Names that begin with exactly this text (case counts). */
  namePrefix?: string;
  /** Names that hold this text anywhere, case aside (Unicode case: CAFÉ holds café). */
  nameContains?: string;
  /** Images with this image tag attached. */
  tagId?: number;
  /** Images with at least one object of the class of this title. */
  classTitle?: string;
  /** true: images with at least one object; false: images with none. */
  annotated?: boolean;
  /** Images with a prediction scored at least this, of `predictionModel` when given. */
  predictionScore?: number;
  predictionModel?: string;
  /**
   * Images whose predictions of `model` scored at least `score` do not match the annotation at IoU
   * `iou` (hundredths) of `iouType` (prediction_agreement).
   */
  disagreement?: { model: string; score: number; iou: number; iouType: 'bbox' | 'segm' };
  /** Images of any of these datasets (of the project). */
  datasetIds?: number[];
  /** Images with an object of at least one of these classes. */
  classAny?: number[];
  /** Images with objects of every one of these classes. */
  classAll?: number[];
  /** Images with no object of any of these classes. */
  classNone?: number[];
  /** Images with at least one of these image tags, with every one of `tagAll`, with none of `tagNone`. */
  tagAny?: number[];
  tagAll?: number[];
  tagNone?: number[];
  /** Images with each of these tags holding one of the values (as stored: JSON text). */
  tagValues?: { tagId: number; values: string[] }[];
  /** Images with at least `minObjects` and at most `maxObjects` objects. */
  minObjects?: number;
  maxObjects?: number;
  /** Images with an object (of `classId`, or of any class) whose box meets the bounds: see boxBounds. */
  box?: BoxBounds;
}

/**
 * Bounds on the boxes of a class's objects, answered from each image's summary of the class (its
 * smallest and largest box area, its smallest longer side, its largest shorter side). Each bound
 * alone is exact: `maxArea` finds the images with an object of area ≤ it, `minArea` ≥ it, `maxSide`
 * an object that fits in a square of that side, `minSide` one that covers such a square. Bounds
 * together are met by the image's objects of the class, not necessarily by one of them.
 */
export interface BoxBounds {
  classId?: number;
  minArea?: number;
  maxArea?: number;
  minSide?: number;
  maxSide?: number;
}

/** id: the order images were added in; -id newest first; objects: fewest objects first; -objects most first. */
export type ImageSort = 'id' | '-id' | 'name' | 'objects' | '-objects';

/** Where a page starts: after the image of this sort key and id. */
export interface ImagePosition {
  id: number;
  name?: string;
  objects?: number;
}


type ImagesQuery = SelectQueryBuilder<Database, 'images', object>;

/**
 * How a query walks the filter's matches. `page`: in the list's order, testing image after image until
 * the page is full, so each class or tag set is a probe per image (EXISTS). `every`: every match is
 * read (a count, the statistics): in a whole project, the first class or tag set is looked up from its
 * own index and leads (`images.id IN (…)`), which SQLite walks first, so a class on 1% of the images
 * reads that 1% instead of probing every image of the project. The set holds images of every dataset
 * of the project: a filter of some datasets still walks their images, which may be far fewer.
 */
export type FilterWalk = 'page' | 'every';

/** The images the filter finds, unsorted and unselected. */
export function filteredImages(db: Kysely<Database>, filter: ImageFilter, search?: NameSearch, walk: FilterWalk = 'page'): ImagesQuery {
  return filtered(db, filter, search, walk);
}

/** `search`: the plan of filter.nameContains (planNameSearch), when it has one. */
function filtered(db: Kysely<Database>, filter: ImageFilter, search?: NameSearch, walk: FilterWalk = 'page'): ImagesQuery {
  let query = db.selectFrom('images') as ImagesQuery;
  if (filter.datasetId !== undefined) query = query.where('images.dataset_id', '=', filter.datasetId);
  if (filter.projectId !== undefined) {
    query = query.where('images.project_id', '=', filter.projectId);
    const hidden = filter.hiddenDatasetIds;
    if (hidden === undefined) query = query.where('images.dataset_id', 'not in', hiddenDatasetsOf(db, filter.projectId, filter.reader ?? 'member'));
    else if (hidden.length > 0) query = query.where('images.dataset_id', 'not in', hidden);
  }
  if (filter.namePrefix !== undefined && filter.namePrefix !== '') {
    const prefix = filter.namePrefix;
    // The range bound lets the (…, name) indexes find the first name; startsWithText is the exact
    // test, counting code points as both databases do (not UTF-16 units) and with case.
    query = query.where('images.name', '>=', prefix).where(startsWithText('images.name', prefix));
  }
  if (search) query = query.where(nameContains(db, search));
  if (filter.tagId !== undefined) {
    const tagId = filter.tagId;
    query = query.where(({ exists, selectFrom }) =>
      exists(selectFrom('image_tags').select('image_tags.tag_id').whereRef('image_tags.image_id', '=', 'images.id').where('image_tags.tag_id', '=', tagId)),
    );
  }
  if (filter.classTitle !== undefined) {
    query = query.where(containsText(db, 'images.objects_json', `${OBJECT_START}${JSON.stringify(filter.classTitle)}`));
  }
  if (filter.annotated !== undefined) query = query.where('images.objects_json', filter.annotated ? '<>' : '=', NO_OBJECTS);
  if (filter.predictionScore !== undefined) {
    const score = filter.predictionScore;
    const model = filter.predictionModel;
    query = query.where(({ exists, selectFrom }) => {
      let predictions = selectFrom('image_predictions').select('image_predictions.model').whereRef('image_predictions.image_id', '=', 'images.id').where('image_predictions.max_score', '>=', score);
      if (model !== undefined) predictions = predictions.where('image_predictions.model', '=', model);
      return exists(predictions);
    });
  }
  if (filter.disagreement !== undefined) {
    const { model, score, iou, iouType } = filter.disagreement;
    query = query.where(({ exists, selectFrom, or }) =>
      exists(
        selectFrom('prediction_agreement')
          .select('prediction_agreement.iou')
          .whereRef('prediction_agreement.image_id', '=', 'images.id')
          .where('prediction_agreement.model', '=', model)
          .where('prediction_agreement.iou_type', '=', iouType)
          .where('prediction_agreement.iou', '=', iou)
          .where((eb) => or([eb('prediction_agreement.agree_above', '>=', score), eb('prediction_agreement.agree_upto', '<', score)])),
      ),
    );
  }
  return combined(query, filter, walk);
}

type SetTable = 'image_classes' | 'image_tags';

/** The filters answered from image_classes, image_tags and images.object_count. */
function combined(start: ImagesQuery, filter: ImageFilter, walk: FilterWalk): ImagesQuery {
  let query = start;
  if (filter.datasetIds?.length) query = query.where('images.dataset_id', 'in', filter.datasetIds);
  // The images holding any of `ids` (classes or image tags); `probed`: those rows of the image at hand.
  const rowsOf = (eb: ExpressionBuilder<Database, 'images'>, table: SetTable, ids: number[], probed: boolean) => {
    if (table === 'image_classes') {
      const rows = eb.selectFrom('image_classes').select('image_classes.image_id').where('image_classes.class_id', 'in', ids);
      return probed ? rows.whereRef('image_classes.image_id', '=', 'images.id') : rows;
    }
    const rows = eb.selectFrom('image_tags').select('image_tags.image_id').where('image_tags.tag_id', 'in', ids);
    return probed ? rows.whereRef('image_tags.image_id', '=', 'images.id') : rows;
  };
  const probe = (table: SetTable, ids: number[]) => (eb: ExpressionBuilder<Database, 'images'>) => eb.exists(rowsOf(eb, table, ids, true));
  const lookup = (table: SetTable, ids: number[]) => (eb: ExpressionBuilder<Database, 'images'>) => eb('images.id', 'in', rowsOf(eb, table, ids, false));
  const sets: [SetTable, number[]][] = [];
  if (filter.classAny?.length) sets.push(['image_classes', filter.classAny]);
  for (const id of filter.classAll ?? []) sets.push(['image_classes', [id]]);
  if (filter.tagAny?.length) sets.push(['image_tags', filter.tagAny]);
  for (const id of filter.tagAll ?? []) sets.push(['image_tags', [id]]);
  const leads = walk === 'every' && filter.datasetId === undefined && !filter.datasetIds?.length;
  sets.forEach(([table, ids], i) => {
    query = query.where((leads && i === 0 ? lookup : probe)(table, ids));
  });
  if (filter.classNone?.length) query = query.where((eb) => eb.not(probe('image_classes', filter.classNone!)(eb)));
  if (filter.tagNone?.length) query = query.where((eb) => eb.not(probe('image_tags', filter.tagNone!)(eb)));
  for (const { tagId, values } of filter.tagValues ?? []) {
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('image_tags')
          .select('image_tags.tag_id')
          .whereRef('image_tags.image_id', '=', 'images.id')
          .where('image_tags.tag_id', '=', tagId)
          .where('image_tags.value', 'in', values),
      ),
    );
  }
  // One count (no objects: maxObjects=0) is an equality, so the (…, object_count, id) indexes give the
  // list's order by id at once; a range of counts is sorted.
  const only = filter.maxObjects !== undefined && (filter.minObjects ?? 0) === filter.maxObjects ? filter.maxObjects : undefined;
  if (only !== undefined) query = query.where('images.object_count', '=', only);
  else {
    if (filter.minObjects !== undefined) query = query.where('images.object_count', '>=', filter.minObjects);
    if (filter.maxObjects !== undefined) query = query.where('images.object_count', '<=', filter.maxObjects);
  }
  const box = filter.box;
  if (box) {
    query = query.where(({ exists, selectFrom }) => {
      let rows = selectFrom('image_classes').select('image_classes.class_id').whereRef('image_classes.image_id', '=', 'images.id');
      if (box.classId !== undefined) rows = rows.where('image_classes.class_id', '=', box.classId);
      if (box.maxArea !== undefined) rows = rows.where('image_classes.min_area', '<=', box.maxArea);
      if (box.minArea !== undefined) rows = rows.where('image_classes.max_area', '>=', box.minArea);
      if (box.maxSide !== undefined) rows = rows.where('image_classes.min_side', '<=', box.maxSide);
      if (box.minSide !== undefined) rows = rows.where('image_classes.max_side', '>=', box.minSide);
      return exists(rows);
    });
  }
  return query;
}

/** Orders the query by `sort`, starting after `after` when given. */
export function sorted(query: ImagesQuery, sort: ImageSort, after: ImagePosition | undefined): ImagesQuery {
  switch (sort) {
    case 'name':
      if (after) query = query.where(sql<boolean>`(images.name, images.id) > (${after.name ?? ''}, ${after.id})`);
      return query.orderBy('images.name').orderBy('images.id');
    case 'objects':
      if (after) query = query.where(sql<boolean>`(images.object_count, images.id) > (${after.objects ?? 0}, ${after.id})`);
      return query.orderBy('images.object_count').orderBy('images.id');
    case '-objects':
      if (after) query = query.where(sql<boolean>`(images.object_count, images.id) < (${after.objects ?? 0}, ${after.id})`);
      return query.orderBy('images.object_count', 'desc').orderBy('images.id', 'desc');
    case '-id':
      if (after) query = query.where('images.id', '<', after.id);
      return query.orderBy('images.id', 'desc');
    case 'id':
      if (after) query = query.where('images.id', '>', after.id);
      return query.orderBy('images.id');
  }
}

/** The position of a row in `sort` order, for a cursor. */
export function positionOfRow(sort: ImageSort, row: { id: number; name: string; object_count: number }): ImagePosition {
  if (sort === 'name') return { id: row.id, name: row.name };
  if (sort === 'objects' || sort === '-objects') return { id: row.id, objects: row.object_count };
  return { id: row.id };
}

interface MetadataRow {
  id: number;
  dataset_id: number;
  project_id: number;
  name: string;
  hash: string;
  size: number | string;
  width: number;
  height: number;
  media_type: string;
  description: string;
  thumbhash: string | null;
  object_count: number;
  created_at: string;
  updated_at: string;
}

function withColumns(query: ImagesQuery) {
  return query
    .innerJoin('blobs', 'blobs.hash', 'images.hash')
    .select(shownDatasetId().as('dataset_id'))
    .select([
      'images.id',
      'images.project_id',
      'images.name',
      'images.hash',
      'images.size',
      'images.width',
      'images.height',
      'blobs.media_type',
      'images.description',
      // Made with the 256 px thumbnail of the image's bytes; null until then.
      'blobs.thumbhash',
      'images.object_count',
      'images.created_at',
      'images.updated_at',
    ]);
}

/** A page of images in `sort` order, after `after` when given. */
export async function listImageMetadata(
  db: Kysely<Database>,
  filter: ImageFilter,
  sort: ImageSort,
  after: ImagePosition | undefined,
  limit: number,
): Promise<ImageMetadata[]> {
  const search = filter.nameContains ? await planNameSearch(db, filter.nameContains) : undefined;
  const query = sorted(filtered(db, filter, search), sort, after);
  const rows: MetadataRow[] = await withColumns(query).limit(limit).execute();
  return decorate(db, rows);
}

export async function countImages(db: Kysely<Database>, filter: ImageFilter): Promise<number> {
  // A count reads every match whatever the text: never a probe per image of the list.
  const search = filter.nameContains ? await planNameSearch(db, filter.nameContains) : undefined;
  const matches = search ? nameMatches(db, search) : null;
  let query = filtered(db, filter, search && !matches ? { ...search, common: false } : undefined, 'every');
  if (matches) query = query.innerJoin(matches, (join) => join.onRef('name_matches.rowid', '=', 'images.id')) as unknown as ImagesQuery;
  const row = await query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The image's metadata, if it lies in a project of the team. */
export async function findImageMetadata(db: Kysely<Database>, teamId: number, imageId: number): Promise<ImageMetadata | undefined> {
  const query = (db.selectFrom('images') as ImagesQuery)
    .innerJoin('projects', 'projects.id', 'images.project_id')
    .where('images.id', '=', imageId)
    .where('projects.team_id', '=', teamId);
  const rows: MetadataRow[] = await withColumns(query).execute();
  return (await decorate(db, rows))[0];
}

/** The metadata of these images (of any team: the caller has checked), in the order of `ids`. */
export async function imageMetadataOf(db: Kysely<Database>, ids: number[]): Promise<ImageMetadata[]> {
  if (ids.length === 0) return [];
  const rows: MetadataRow[] = await withColumns((db.selectFrom('images') as ImagesQuery).where('images.id', 'in', ids)).execute();
  const byId = new Map((await decorate(db, rows)).map((m) => [m.id, m]));
  return ids.map((id) => byId.get(id)!);
}

async function decorate(db: Kysely<Database>, rows: MetadataRow[]): Promise<ImageMetadata[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [tags, counts] = await Promise.all([tagsOf(db, ids), classCountsOf(db, ids)]);
  return rows.map((r) => ({
    id: r.id,
    datasetId: r.dataset_id,
    projectId: r.project_id,
    name: r.name,
    hash: r.hash,
    size: Number(r.size),
    width: r.width,
    height: r.height,
    mediaType: r.media_type,
    description: r.description,
    tags: tags.get(r.id) ?? [],
    objectCounts: counts.get(r.id) ?? [],
    objectCount: r.object_count,
    thumbhash: r.thumbhash,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
}

function pushTo<V>(map: Map<number, V[]>, key: number, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The image tags of these images, each image's in tag id order. */
async function tagsOf(db: Kysely<Database>, ids: number[]): Promise<Map<number, ImageTagValue[]>> {
  const rows = await db
    .selectFrom('image_tags')
    .innerJoin('project_tags', 'project_tags.id', 'image_tags.tag_id')
    .select(['image_tags.image_id', 'project_tags.id', 'project_tags.title', 'image_tags.value'])
    .where('image_tags.image_id', 'in', ids)
    .where('project_tags.scope', '=', 'images')
    .orderBy('image_tags.image_id')
    .orderBy('project_tags.id')
    .execute();
  const byImage = new Map<number, ImageTagValue[]>();
  for (const r of rows) {
    pushTo(byImage, r.image_id, { id: r.id, title: r.title, value: r.value === null ? null : (JSON.parse(r.value) as number | string) });
  }
  return byImage;
}

/** How many objects of each class these images hold, each image's in class id order. */
async function classCountsOf(db: Kysely<Database>, ids: number[]): Promise<Map<number, ClassCount[]>> {
  const images = await db
    .selectFrom('images')
    .select(['id', 'project_id', 'objects_json'])
    .where('id', 'in', ids)
    .where('objects_json', '<>', NO_OBJECTS)
    .execute();
  const byImage = new Map<number, ClassCount[]>();
  if (images.length === 0) return byImage;
  const projectIds = [...new Set(images.map((i) => i.project_id))];
  const classes = await db.selectFrom('classes').select(['id', 'project_id', 'title']).where('project_id', 'in', projectIds).execute();
  const classOf = new Map(classes.map((c) => [`${c.project_id}:${c.title}`, c]));
  for (const image of images) {
    const counts = new Map<string, number>();
    countClassTitles(image.objects_json, counts);
    const list: ClassCount[] = [];
    for (const [title, count] of counts) {
      const found = classOf.get(`${image.project_id}:${title}`);
      if (found) list.push({ classId: found.id, classTitle: found.title, count });
    }
    byImage.set(image.id, list.sort((a, b) => a.classId - b.classId));
  }
  return byImage;
}

/** The class, if it is the project's: a list filters by its title, as objects name it. */
export async function findProjectClass(db: Kysely<Database>, projectId: number, classId: number): Promise<{ id: number; title: string } | undefined> {
  return db.selectFrom('classes').select(['id', 'title']).where('id', '=', classId).where('project_id', '=', projectId).executeTakeFirst();
}

/** Which of these ids are the project's rows of `table`. */
export async function projectIdsOf(db: Kysely<Database>, table: 'classes' | 'datasets', projectId: number, ids: number[]): Promise<Set<number>> {
  const rows = await db.selectFrom(table).select('id').where('project_id', '=', projectId).where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}

/** Which of these ids are the project's image tags. */
export async function imageTagIdsOf(db: Kysely<Database>, projectId: number, ids: number[]): Promise<Set<number>> {
  const rows = await db.selectFrom('project_tags').select('id').where('project_id', '=', projectId).where('scope', '=', 'images').where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}
