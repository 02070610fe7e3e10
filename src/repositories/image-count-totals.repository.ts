// The total of a list whose filter the running totals of migration 0037 already count, read from them
// instead of counting the images: the images holding one class (dataset_class_totals), the images of
// an object count range (dataset_image_totals: one row per count below the cap, one for the cap and
// above), in a dataset, a project or some of its datasets. A sum of a few rows per dataset, where a
// count of a class on 1% of a million images read 10,000 image rows. The triggers keep the totals in
// the transaction of every write, so the sum is what a count would find.
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import type { Database } from '../db/types.ts';
import { hiddenDatasetsOf } from './hidden-datasets.ts';
import type { ImageFilter } from './image-metadata.repository.ts';
import { OBJECTS_PER_IMAGE_CAP } from './project-stats.repository.ts';

const SCOPE_KEYS = new Set(['datasetId', 'projectId', 'hiddenDatasetIds', 'reader', 'datasetIds']);

/** The one class the filter asks of its images, when that is all it asks beyond its datasets. */
function onlyClassOf(filter: ImageFilter, asked: string[]): number | undefined {
  if (asked.length !== 1) return undefined;
  const ids = asked[0] === 'classAny' ? filter.classAny : asked[0] === 'classAll' ? filter.classAll : undefined;
  return ids && new Set(ids).size === 1 ? ids[0] : undefined;
}

/** The object count bins of the range, when the bins hold exactly it; null when the filter has no range. */
function binsOf(min: number | undefined, max: number | undefined): { from: number; to: number } | null | undefined {
  if (min === undefined && max === undefined) return null;
  const from = min ?? 0;
  // The cap's bin holds every count from the cap up: a range that ends inside it cannot be told apart.
  if (max === undefined) return from <= OBJECTS_PER_IMAGE_CAP ? { from, to: OBJECTS_PER_IMAGE_CAP } : undefined;
  return max < OBJECTS_PER_IMAGE_CAP ? { from, to: max } : undefined;
}

/** The filter's total from the running totals, or undefined when they cannot answer it. */
export async function countFromTotals(db: Kysely<Database>, filter: ImageFilter): Promise<number | undefined> {
  const asked = Object.entries(filter)
    .filter(([key, value]) => value !== undefined && !SCOPE_KEYS.has(key))
    .map(([key]) => key);
  const classId = onlyClassOf(filter, asked);
  const objectKeys = asked.length > 0 && asked.every((key) => key === 'minObjects' || key === 'maxObjects');
  const bins = objectKeys ? binsOf(filter.minObjects, filter.maxObjects) : undefined;
  if (classId === undefined && !bins) return undefined;
  // The totals tables name a row's dataset and project alike.
  const scope: Expression<SqlBool>[] = [];
  if (filter.datasetId !== undefined) scope.push(sql<SqlBool>`dataset_id = ${filter.datasetId}`);
  if (filter.projectId !== undefined) scope.push(sql<SqlBool>`project_id = ${filter.projectId}`, sql<SqlBool>`dataset_id not in (${hiddenDatasetsOf(db, filter.projectId, filter.reader ?? 'member')})`);
  if (filter.datasetIds?.length) scope.push(sql<SqlBool>`dataset_id in (${sql.join(filter.datasetIds)})`);
  const inScope = sql<SqlBool>`${sql.join(scope, sql` and `)}`;
  const sum = sql<number | string | null>`sum(images)`.as('n');
  const row =
    classId !== undefined
      ? await db.selectFrom('dataset_class_totals').where('class_id', '=', classId).where(inScope).select(sum).executeTakeFirstOrThrow()
      : await db.selectFrom('dataset_image_totals').where('objects_bin', '>=', bins!.from).where('objects_bin', '<=', bins!.to).where(inScope).select(sum).executeTakeFirstOrThrow();
  return Number(row.n ?? 0);
}
