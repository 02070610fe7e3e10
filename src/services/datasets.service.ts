// Dataset rules: listing and deleting within the caller's team.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { notFound } from '../errors.ts';
import * as datasets from '../repositories/datasets.repository.ts';

export const listDatasets = (db: Kysely<Database>, teamId: number, projectId?: number) =>
  datasets.listDatasets(db, teamId, projectId);

export async function deleteDataset(db: Kysely<Database>, teamId: number, datasetId: number): Promise<void> {
  if (!(await datasets.deleteDataset(db, teamId, datasetId))) throw notFound('dataset', { datasetId });
}

/** The dataset, or a 404 that reads the same whether it is missing or another team's. */
export async function requireDataset(db: Kysely<Database>, teamId: number, datasetId: number) {
  const dataset = await datasets.findDataset(db, teamId, datasetId);
  if (!dataset) throw notFound('dataset', { datasetId });
  return dataset;
}
