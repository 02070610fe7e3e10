// Datasets, always reached through a project of the caller's team.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import type { Database, DatasetRow } from '../db/types.ts';
import { addToSizes } from './images.repository.ts';

export interface DatasetRecord {
  id: number;
  projectId: number;
  title: string;
  size: string;
  createdAt: string;
  updatedAt: string;
}

const toRecord = (r: DatasetRow): DatasetRecord => ({
  id: r.id,
  projectId: r.project_id,
  title: r.title,
  size: String(r.size),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function listDatasets(db: Kysely<Database>, teamId: number, projectId?: number): Promise<DatasetRecord[]> {
  let query = db
    .selectFrom('datasets')
    .innerJoin('projects', 'projects.id', 'datasets.project_id')
    .selectAll('datasets')
    .where('projects.team_id', '=', teamId);
  if (projectId !== undefined) query = query.where('datasets.project_id', '=', projectId);
  const rows = await query.orderBy('datasets.id').execute();
  return rows.map(toRecord);
}

/** The dataset if it lies in a project of the team. */
export async function findDataset(db: Kysely<Database>, teamId: number, datasetId: number): Promise<DatasetRow | undefined> {
  return db
    .selectFrom('datasets')
    .innerJoin('projects', 'projects.id', 'datasets.project_id')
    .selectAll('datasets')
    .where('datasets.id', '=', datasetId)
    .where('projects.team_id', '=', teamId)
    .executeTakeFirst();
}

export async function findDatasetByTitle(db: Kysely<Database>, projectId: number, title: string): Promise<DatasetRow | undefined> {
  return db.selectFrom('datasets').selectAll().where('project_id', '=', projectId).where('title', '=', title).executeTakeFirst();
}

export async function insertDataset(db: Kysely<Database>, projectId: number, title: string): Promise<number> {
  const now = isoNow();
  const row = await db
    .insertInto('datasets')
    .values({ project_id: projectId, title, size: 0, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Deletes the dataset (its images go with it) and takes its bytes off the project's size. */
export async function deleteDataset(db: Kysely<Database>, teamId: number, datasetId: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const dataset = await findDataset(trx, teamId, datasetId);
    if (!dataset) return false;
    await trx.deleteFrom('datasets').where('id', '=', datasetId).execute();
    await addToSizes(trx, datasetId, dataset.project_id, -Number(dataset.size));
    return true;
  });
}
