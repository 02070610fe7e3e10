// The image at a position of a list, for a client that jumps into the middle of it (a gallery's
// scrollbar dragged to 60 %). A dataset's or a project's whole list by id is found through the counts
// of image_id_blocks (0022_image_id_blocks.ts): sum the blocks before the position, then an OFFSET of
// under 4,096 in the block that holds it; a few milliseconds at 10 million images. Any other list (a
// filter, the order by name) steps over the positions before it with an OFFSET along its index: O(p).
import type { Kysely } from 'kysely';
import { IMAGE_ID_BLOCK } from '../db/migrations/0022_image_id_blocks.ts';
import { planNameSearch } from '../db/name-search.ts';
import type { Database } from '../db/types.ts';
import { type DatasetReader, hiddenDatasetsOf } from './hidden-datasets.ts';
import { type ImageFilter, type ImagePosition, type ImageSort, filteredImages, positionOfRow, sorted } from './image-metadata.repository.ts';

/** A dataset, or a project as `reader` sees it (hidden-datasets.ts). */
export type Scope = { datasetId: number } | { projectId: number; reader: DatasetReader };

const SCOPE_KEYS = new Set(['datasetId', 'projectId', 'hiddenDatasetIds', 'reader']);

/** The dataset or project of a filter that narrows nothing else: the lists the block counts know. */
export function plainScopeOf(filter: ImageFilter): Scope | undefined {
  const narrowed = Object.entries(filter).some(([key, value]) => !SCOPE_KEYS.has(key) && value !== undefined);
  if (narrowed) return undefined;
  if (filter.datasetId !== undefined) return { datasetId: filter.datasetId };
  if (filter.projectId !== undefined) return { projectId: filter.projectId, reader: filter.reader ?? 'member' };
  return undefined;
}

function blocksOf(db: Kysely<Database>, scope: Scope) {
  const query = db.selectFrom('image_id_blocks');
  return 'datasetId' in scope
    ? query.where('image_id_blocks.dataset_id', '=', scope.datasetId)
    : query
        .where('image_id_blocks.dataset_id', 'in', db.selectFrom('datasets').select('datasets.id').where('datasets.project_id', '=', scope.projectId))
        .where('image_id_blocks.dataset_id', 'not in', hiddenDatasetsOf(db, scope.projectId, scope.reader));
}

/** The images of a dataset or project, from the block counts (a sum of a few thousand rows at most). */
export async function countByBlocks(db: Kysely<Database>, scope: Scope): Promise<number> {
  const row = await blocksOf(db, scope)
    .select((eb) => eb.fn.sum<number | string | null>('image_id_blocks.images').as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n ?? 0);
}

/**
 * The sort key of the image at `index` (0-based) of the list, or null when the list is shorter. A page
 * that starts at position p starts after the image at p - 1.
 */
export async function positionAt(db: Kysely<Database>, filter: ImageFilter, sort: ImageSort, index: number): Promise<ImagePosition | null> {
  const scope = sort === 'id' ? plainScopeOf(filter) : undefined;
  if (scope) return positionByBlocks(db, scope, index);
  const search = filter.nameContains ? await planNameSearch(db, filter.nameContains) : undefined;
  // Only the sort key is read, so the positions stepped over are read from the sort's index alone
  // (0042_image_order_covering.ts), never from the image rows.
  const key = sort === 'name' ? (['images.name'] as const) : sort === 'objects' || sort === '-objects' ? (['images.object_count'] as const) : [];
  const row = await sorted(filteredImages(db, filter, search), sort, undefined)
    .select(['images.id', ...key])
    .limit(1)
    .offset(index)
    .executeTakeFirst();
  return row ? positionOfRow(sort, row) : null;
}

async function positionByBlocks(db: Kysely<Database>, scope: Scope, index: number): Promise<ImagePosition | null> {
  const blocks = await blocksOf(db, scope)
    .select('image_id_blocks.block')
    .select((eb) => eb.fn.sum<number | string>('image_id_blocks.images').as('n'))
    .groupBy('image_id_blocks.block')
    .orderBy('image_id_blocks.block')
    .execute();
  let before = 0;
  for (const { block, n } of blocks) {
    const count = Number(n);
    if (index < before + count) {
      let query = db.selectFrom('images').select('images.id');
      // The images the block counts leave out are stepped over here too.
      query =
        'datasetId' in scope
          ? query.where('images.dataset_id', '=', scope.datasetId)
          : query.where('images.project_id', '=', scope.projectId).where('images.dataset_id', 'not in', hiddenDatasetsOf(db, scope.projectId, scope.reader));
      const row = await query
        .where('images.id', '>=', block * IMAGE_ID_BLOCK)
        .orderBy('images.id')
        .limit(1)
        .offset(index - before)
        .executeTakeFirst();
      return row ? { id: row.id } : null;
    }
    before += count;
  }
  return null;
}
