// Versions' rows: a snapshot is made by INSERT … SELECT from the project's live tables, so no image
// byte and no annotation passes through the server, and an image's annotation is named by its content
// hash, not copied; reads page a version's images by image id.
import { type ExpressionBuilder, type Kysely, type Selectable, sql } from 'kysely';
import { allowWorkMemory, integerListTable, jsonRows, jsonRowsOf, listPosition } from '../db/dialect.ts';
import type { Database, VersionImagesTable, VersionsTable } from '../db/types.ts';
import { annotationContents, backfillAnnotationHashes } from './annotation-contents.repository.ts';
import { type DatasetReader, hiddenDatasetsOf } from './hidden-datasets.ts';

/** Every role of the project reads a version: it holds no image of a hidden or managers-only dataset. */
const VERSION_READER: DatasetReader = 'member';

export type VersionRow = Omit<Selectable<VersionsTable>, 'created_by'>;

const VERSION_COLUMNS = ['versions.id', 'versions.project_id', 'versions.name', 'versions.description', 'versions.split', 'versions.image_count', 'versions.object_count', 'versions.created_at'] as const;

export async function insertVersion(
  trx: Kysely<Database>,
  v: { projectId: number; name: string; description: string; split: string; createdBy: number | null; createdAt: string },
): Promise<number> {
  const row = await trx
    .insertInto('versions')
    .values({ project_id: v.projectId, name: v.name, description: v.description, split: v.split, image_count: 0, object_count: 0, created_by: v.createdBy, created_at: v.createdAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Which images a version of the project takes: all of them, or those of some datasets. */
export interface VersionScope {
  projectId: number;
  datasetIds: readonly number[] | null;
}

/** The subset an image gets as it is added: one name, or its dataset's title. */
export type SubsetOf = { name: string } | 'dataset title';

/**
 * Gives every image that has no annotation hash yet its hash: images written before hashes were kept,
 * or by a writer that leaves it to this (none, normally, so this reads one index entry).
 */
export const hashUnhashedImages = (trx: Kysely<Database>): Promise<number> => backfillAnnotationHashes(trx);

/** Ids read at once: a driver's rows are objects of their own until the page is dropped. */
const IDS_PAGE = 10_000;

/** The ids of the scope's images, in id order (from an index: no image row is read), a page at a time. */
export async function scopeImageIds(db: Kysely<Database>, scope: VersionScope): Promise<number[]> {
  const ids: number[] = [];
  for (;;) {
    let query = db.selectFrom('images').select('id').where('project_id', '=', scope.projectId).where('dataset_id', 'not in', hiddenDatasetsOf(db, scope.projectId, VERSION_READER)).orderBy('id').limit(IDS_PAGE);
    if (scope.datasetIds) query = query.where('dataset_id', 'in', scope.datasetIds);
    if (ids.length > 0) query = query.where('id', '>', ids.at(-1)!);
    const page = await query.execute();
    for (const r of page) ids.push(r.id);
    if (page.length < IDS_PAGE) return ids;
  }
}

/** Images read at once while the scope's strata are found: one JSON text a page, not an object a row. */
const STRATA_PAGE = 10_000;

/** A scope image's id and a class with its most objects (null for none; an image with a tie has a row for each). */
export type StratumCandidate = [imageId: number, classId: number | null];

/**
 * The scope's images, each with the classes that have its most objects (from the class summaries,
 * image_classes: no annotation is read), a page of images at a time, one statement and one JSON text each.
 * The classes are the image's project's (a summary is written from them), so the maximum is taken over
 * all of an image's summaries; the caller breaks ties by title.
 */
export async function* scopeStrataCandidates(db: Kysely<Database>, scope: VersionScope): AsyncGenerator<StratumCandidate[]> {
  // The hidden datasets by their ids, and only when there are some: a filter on the images' datasets
  // reads every image's row, where the ids alone come from the project's index.
  const hidden = (await hiddenDatasetsOf(db, scope.projectId, VERSION_READER).execute()).map((d) => d.id);
  const datasets = sql`${hidden.length ? sql`and dataset_id not in (${sql.join(hidden)})` : sql``} ${
    scope.datasetIds ? sql`and dataset_id in (${sql.join(scope.datasetIds.length ? scope.datasetIds : [0])})` : sql``
  }`;
  for (let after = 0; ; ) {
    // The page's last id first (from the index), so the summaries are read by a range of image ids
    // that the planner sees: with only the page's ids to join, PostgreSQL scanned every summary of
    // the table for each page.
    const { rows: ends } = await sql<{ id: number }>`
      select id from images where project_id = ${scope.projectId} ${datasets} and id > ${after} order by id limit 1 offset ${STRATA_PAGE - 1}`.execute(db);
    const last = ends[0]?.id ?? null;
    const upTo = last === null ? sql`` : sql`and id <= ${last}`;
    const summariesUpTo = last === null ? sql`` : sql`and ic.image_id <= ${last}`;
    // Each image's summaries are read once: the window finds their maximum in the same pass.
    const { rows } = await sql<{ found: string | null }>`
      select ${jsonRowsOf(db, [sql.ref('c.id'), sql.ref('c.class_id')])} as found from (
        select i.id, ic.class_id, ic.objects, max(ic.objects) over (partition by i.id) as top
        from (select id from images where project_id = ${scope.projectId} ${datasets} and id > ${after} ${upTo}) i
        left join image_classes ic on ic.image_id = i.id and ic.objects > 0 and ic.image_id > ${after} ${summariesUpTo}
      ) c where c.class_id is null or c.objects = c.top`.execute(db);
    yield jsonRows<StratumCandidate>(rows[0]?.found);
    if (last === null) return;
    after = last;
  }
}

const versionImageRows = (eb: ExpressionBuilder<Database, 'version_images'>, versionId: number, subset: SubsetOf) =>
  eb
    .selectFrom('images')
    .innerJoin('datasets', 'datasets.id', 'images.dataset_id')
    .select((s) => [
      s.val(versionId).as('version_id'),
      'images.id',
      'images.dataset_id',
      'datasets.title',
      'images.name',
      'images.hash',
      'images.width',
      'images.height',
      // Never null once hashUnhashedImages ran, in the same transaction.
      s.fn.coalesce('images.annotation_hash', s.val('')).as('annotation_hash'),
      subset === 'dataset title' ? 'datasets.title as subset' : s.val(subset.name).as('subset'),
    ]);

const VERSION_IMAGE_COLUMNS = ['version_id', 'image_id', 'dataset_id', 'dataset_title', 'name', 'hash', 'width', 'height', 'annotation_hash', 'subset'] as const;

/**
 * Adds the scope's images to the version in one INSERT … SELECT: a few columns each, the annotation
 * named by its content hash (images.annotation_hash), never copied.
 */
export async function snapshotImages(trx: Kysely<Database>, versionId: number, scope: VersionScope, subset: SubsetOf): Promise<void> {
  await trx
    .insertInto('version_images')
    .columns(VERSION_IMAGE_COLUMNS)
    .expression((eb) => {
      let query = versionImageRows(eb, versionId, subset).where('images.project_id', '=', scope.projectId).where('images.dataset_id', 'not in', hiddenDatasetsOf(trx, scope.projectId, VERSION_READER));
      if (scope.datasetIds) query = query.where('images.dataset_id', 'in', scope.datasetIds);
      return query;
    })
    .execute();
}

/**
 * Adds these images of the project to the version, each in its subset, in one INSERT … SELECT: the
 * ids go in as one list, subset after subset, and an image's subset is found from where it stands in
 * it (a subset's ids are sorted, so the rows are read and indexed in runs of rising ids). The list
 * is walked first (CROSS JOIN keeps SQLite to that order) and each image found by its id; with the
 * project's index first instead, SQLite would scan the whole list for every image.
 */
export async function snapshotSubsets(trx: Kysely<Database>, versionId: number, projectId: number, subsets: ReadonlyMap<string, readonly number[]>): Promise<void> {
  const ids: number[] = [];
  const ends: [string, number][] = [];
  for (const [subset, members] of subsets) {
    if (members.length === 0) continue;
    for (const id of [...members].sort((x, y) => x - y)) ids.push(id);
    ends.push([subset, ids.length]);
  }
  if (ids.length === 0) return;
  // The images' rows (their names and hashes) are hashed to meet the list: 100,000 of them take
  // about 16 MB, which at PostgreSQL's default of 4 MB went to temporary files in four batches.
  await allowWorkMemory(trx, 32);
  const position = listPosition(trx, 'l');
  const subsetOf = sql.join(
    ends.map(([subset, end]) => sql`when ${position} < ${end} then ${subset}`),
    sql` `,
  );
  await sql`insert into version_images (${sql.join(VERSION_IMAGE_COLUMNS.map((c) => sql.ref(c)))})
    select ${versionId}, i.id, i.dataset_id, d.title, i.name, i.hash, i.width, i.height, coalesce(i.annotation_hash, ''), case ${subsetOf} end
    from ${integerListTable(trx, ids, 'l')}
    cross join images i
    join datasets d on d.id = i.dataset_id
    where i.id = l.value and i.project_id = ${projectId}`.execute(trx);
}

/** Freezes the image tags of the version's images, and the project's tags. */
export async function snapshotTags(trx: Kysely<Database>, versionId: number, projectId: number): Promise<void> {
  await trx
    .insertInto('version_image_tags')
    .columns(['version_id', 'image_id', 'tag_id', 'value'])
    .expression((eb) =>
      eb
        .selectFrom('image_tags')
        .innerJoin('version_images', (join) => join.onRef('version_images.image_id', '=', 'image_tags.image_id').on('version_images.version_id', '=', versionId))
        .select((s) => [s.val(versionId).as('version_id'), 'image_tags.image_id', 'image_tags.tag_id', 'image_tags.value']),
    )
    .execute();
  await trx
    .insertInto('version_tags')
    .columns(['version_id', 'tag_id', 'title', 'scope', 'value_type'])
    .expression((eb) =>
      eb
        .selectFrom('project_tags')
        .where('project_id', '=', projectId)
        .select((s) => [s.val(versionId).as('version_id'), 'id', 'title', 'scope', 'value_type']),
    )
    .execute();
}

/**
 * Writes the image and object counts of the version: its rows, and the object counts of the scope's
 * images, read in the transaction that made them from an index (no image row is read).
 */
export async function countVersion(trx: Kysely<Database>, versionId: number, scope: VersionScope): Promise<{ images: number; objects: number }> {
  const images = await trx.selectFrom('version_images').where('version_id', '=', versionId).select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  let objects = trx
    .selectFrom('images')
    .where('project_id', '=', scope.projectId)
    .where('dataset_id', 'not in', hiddenDatasetsOf(trx, scope.projectId, VERSION_READER))
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('object_count'), eb.val(0)).as('n'));
  if (scope.datasetIds) objects = objects.where('dataset_id', 'in', scope.datasetIds);
  const counts = { images: Number(images.n), objects: Number((await objects.executeTakeFirstOrThrow()).n) };
  await trx.updateTable('versions').set({ image_count: counts.images, object_count: counts.objects }).where('id', '=', versionId).execute();
  return counts;
}

export async function insertVersionClasses(trx: Kysely<Database>, versionId: number, classes: readonly { idx: number; classId: number; title: string; shape: string; color: string }[]): Promise<void> {
  if (classes.length === 0) return;
  await trx
    .insertInto('version_classes')
    .values(classes.map((c) => ({ version_id: versionId, idx: c.idx, class_id: c.classId, title: c.title, shape: c.shape, color: c.color })))
    .execute();
}

/** The project's classes now, in id order. */
export const projectClasses = (db: Kysely<Database>, projectId: number) =>
  db.selectFrom('classes').where('project_id', '=', projectId).select(['id', 'title', 'shape', 'color']).orderBy('id').execute();

/** The classes of the project's newest version made before `before`, with their indices (none for its first). */
export async function latestVersionClasses(db: Kysely<Database>, projectId: number, before: number): Promise<{ class_id: number; title: string; idx: number }[]> {
  const latest = await db.selectFrom('versions').where('project_id', '=', projectId).where('id', '<', before).select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
  if (!latest) return [];
  return db.selectFrom('version_classes').where('version_id', '=', latest.id).select(['class_id', 'title', 'idx']).execute();
}

/** The version, if it belongs to a project of the team. */
export function findVersion(db: Kysely<Database>, teamId: number, versionId: number): Promise<VersionRow | undefined> {
  return db
    .selectFrom('versions')
    .innerJoin('projects', 'projects.id', 'versions.project_id')
    .where('versions.id', '=', versionId)
    .where('projects.team_id', '=', teamId)
    .select(VERSION_COLUMNS)
    .executeTakeFirst();
}

export function listVersions(db: Kysely<Database>, projectId: number, afterId: number | undefined, limit: number): Promise<VersionRow[]> {
  let query = db.selectFrom('versions').where('project_id', '=', projectId).select(VERSION_COLUMNS).orderBy('id').limit(limit);
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  return query.execute();
}

export const versionClasses = (db: Kysely<Database>, versionId: number) =>
  db.selectFrom('version_classes').where('version_id', '=', versionId).select(['idx', 'class_id', 'title', 'shape', 'color']).orderBy('idx').execute();

export const versionTags = (db: Kysely<Database>, versionId: number) =>
  db.selectFrom('version_tags').where('version_id', '=', versionId).select(['tag_id', 'title', 'scope', 'value_type']).orderBy('tag_id').execute();

/** Images per subset. */
export async function subsetCounts(db: Kysely<Database>, versionId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('version_images')
    .where('version_id', '=', versionId)
    .groupBy('subset')
    .select((eb) => ['subset', eb.fn.countAll<number | string>().as('n')])
    .execute();
  return new Map(rows.map((r) => [r.subset, Number(r.n)]));
}

/** An image of a version as read: its row, and its annotation content from the snapshot the row names. */
export type VersionImageRow = Omit<Selectable<VersionImagesTable>, 'version_id'> & {
  description: string;
  objects_json: string;
  object_ids: string | null;
  object_tag_values: string | null;
};

/** A page of the version's images in image id order, of one subset when given. */
export async function pageOfVersionImages(db: Kysely<Database>, versionId: number, subset: string | undefined, afterId: number | undefined, limit: number): Promise<VersionImageRow[]> {
  let query = db
    .selectFrom('version_images')
    .where('version_id', '=', versionId)
    .select(['image_id', 'dataset_id', 'dataset_title', 'name', 'hash', 'width', 'height', 'annotation_hash', 'subset'])
    .orderBy('image_id')
    .limit(limit);
  if (subset !== undefined) query = query.where('subset', '=', subset);
  if (afterId !== undefined) query = query.where('image_id', '>', afterId);
  return withContents(db, await query.execute());
}

/** Rows with the annotation content their hash names. */
export async function withContents<R extends { annotation_hash: string }>(
  db: Kysely<Database>,
  rows: readonly R[],
): Promise<(R & { description: string; objects_json: string; object_ids: string | null; object_tag_values: string | null })[]> {
  const contents = await annotationContents(
    db,
    rows.map((r) => r.annotation_hash),
  );
  return rows.map((r) => {
    const c = contents.get(r.annotation_hash)!;
    return { ...r, description: c.description, objects_json: c.objectsJson, object_ids: c.objectIds, object_tag_values: c.objectTagValues };
  });
}

/** The image tags of these images of the version, with their titles. */
export const versionImageTags = (db: Kysely<Database>, versionId: number, imageIds: readonly number[]) =>
  imageIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('version_image_tags')
        .innerJoin('version_tags', (join) => join.onRef('version_tags.version_id', '=', 'version_image_tags.version_id').onRef('version_tags.tag_id', '=', 'version_image_tags.tag_id'))
        .where('version_image_tags.version_id', '=', versionId)
        .where('version_image_tags.image_id', 'in', imageIds)
        .select(['version_image_tags.image_id', 'version_tags.title', 'version_image_tags.value'])
        .orderBy('version_image_tags.image_id')
        .orderBy('version_image_tags.tag_id')
        .execute();

/** The blob of an image as the version holds it (by the hash it had then), when the version is the team's. */
export async function findVersionImageFile(db: Kysely<Database>, teamId: number, versionId: number, imageId: number): Promise<{ hash: string; mediaType: string; size: number } | undefined> {
  const row = await db
    .selectFrom('version_images')
    .innerJoin('versions', 'versions.id', 'version_images.version_id')
    .innerJoin('projects', 'projects.id', 'versions.project_id')
    .innerJoin('blobs', 'blobs.hash', 'version_images.hash')
    .where('version_images.version_id', '=', versionId)
    .where('version_images.image_id', '=', imageId)
    .where('projects.team_id', '=', teamId)
    .select(['version_images.hash as hash', 'blobs.media_type as mediaType', 'blobs.size as size'])
    .executeTakeFirst();
  return row && { hash: row.hash, mediaType: row.mediaType, size: Number(row.size) };
}

export async function deleteVersion(db: Kysely<Database>, versionId: number): Promise<void> {
  // Children first: SQLite enforces the cascade only with foreign keys on, and this reads the same either way.
  for (const table of ['version_image_tags', 'version_images', 'version_tags', 'version_classes'] as const) {
    await db.deleteFrom(table).where('version_id', '=', versionId).execute();
  }
  await db.deleteFrom('versions').where('id', '=', versionId).execute();
}

/** An image of a version with its subset and the perceptual hashes of its blob (null until made). */
export interface VersionHashedImage {
  image_id: number;
  name: string;
  dataset_title: string;
  subset: string;
  hash: string;
  phash: string | null;
  dhash: string | null;
}

/** The version's images with their blobs' perceptual hashes, in image id order. */
export function versionHashedImages(db: Kysely<Database>, versionId: number): Promise<VersionHashedImage[]> {
  return db
    .selectFrom('version_images')
    .leftJoin('blobs', 'blobs.hash', 'version_images.hash')
    .where('version_images.version_id', '=', versionId)
    .select(['version_images.image_id', 'version_images.name', 'version_images.dataset_title', 'version_images.subset', 'version_images.hash', 'blobs.phash', 'blobs.dhash'])
    .orderBy('version_images.image_id')
    .execute();
}
