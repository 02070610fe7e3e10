// What an embeddings task works through: a dataset's images, by id.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';

/** The dataset's images after image `after` (by id), `limit` of them, with their blobs' hashes. */
export function datasetImagesAfter(db: Kysely<Database>, datasetId: number, after: number, limit: number): Promise<{ id: number; hash: string }[]> {
  return db.selectFrom('images').select(['id', 'hash']).where('dataset_id', '=', datasetId).where('id', '>', after).orderBy('id').limit(limit).execute();
}

export async function countDatasetImages(db: Kysely<Database>, datasetId: number): Promise<number> {
  const row = await db.selectFrom('images').select((eb) => eb.fn.countAll().as('n')).where('dataset_id', '=', datasetId).executeTakeFirstOrThrow();
  return Number(row.n);
}
