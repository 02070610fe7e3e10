// Datasets, always reached through a project of the caller's team. A hidden dataset (a job's
// honeypots, docs/jobs.md "Quality") is found by none of these: it is reached only through its job.
// The lists leave out managers-only datasets of the projects the caller does not manage; a lookup by
// id finds them, the access hook having answered 404 already to anybody who may not see them.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import { isPostgres } from '../db/dialect.ts';
import { jsonArrayLength } from '../db/json-text.ts';
import type { Database, DatasetRow } from '../db/types.ts';
import { type ManagedProjects, shownDatasets } from './hidden-datasets.ts';
import { addToSizes } from './images.repository.ts';
import { visibleToMember } from './project-members.repository.ts';

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

export async function listDatasets(db: Kysely<Database>, teamId: number, managed: ManagedProjects, projectId?: number, visibleTo?: number): Promise<DatasetRecord[]> {
  let query = db
    .selectFrom('datasets')
    .innerJoin('projects', 'projects.id', 'datasets.project_id')
    .selectAll('datasets')
    .where('projects.team_id', '=', teamId)
    .where((eb) => shownDatasets(eb, managed));
  if (projectId !== undefined) query = query.where('datasets.project_id', '=', projectId);
  if (visibleTo !== undefined) query = query.where((eb) => visibleToMember(eb, visibleTo, 'projects.id', 'projects.member_default_role'));
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
    .where('datasets.hidden', '=', 0)
    .executeTakeFirst();
}

export async function findDatasetByTitle(db: Kysely<Database>, projectId: number, title: string): Promise<DatasetRow | undefined> {
  return db.selectFrom('datasets').selectAll().where('project_id', '=', projectId).where('title', '=', title).where('hidden', '=', 0).executeTakeFirst();
}

export async function insertDataset(db: Kysely<Database>, projectId: number, title: string, managersOnly = false): Promise<number> {
  const now = isoNow();
  const row = await db
    .insertInto('datasets')
    .values({ project_id: projectId, title, size: 0, managers_only: managersOnly ? 1 : 0, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Deletes the dataset (its images go with it) and takes its bytes off the project's size. */
export async function deleteDataset(db: Kysely<Database>, teamId: number, datasetId: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const dataset = await findDataset(trx, teamId, datasetId);
    if (!dataset) return false;
    await removeDataset(trx, dataset);
    return true;
  });
}

/** Deletes the dataset found (its images go with it) and takes its bytes off the project's size. */
export async function removeDataset(db: Kysely<Database>, dataset: DatasetRow): Promise<void> {
  await db.deleteFrom('datasets').where('id', '=', dataset.id).execute();
  await addToSizes(db, dataset.id, dataset.project_id, -Number(dataset.size));
}

/** A dataset as API v2 shows it: its size a number of bytes. */
export interface DatasetResource {
  id: number;
  projectId: number;
  title: string;
  size: number;
  managersOnly: boolean;
  createdAt: string;
  updatedAt: string;
}

export const toDatasetResource = (r: DatasetRow): DatasetResource => ({
  id: r.id,
  projectId: r.project_id,
  title: r.title,
  size: Number(r.size),
  managersOnly: r.managers_only === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The dataset if it lies in a project of the team; with `lock`, its row is locked on PostgreSQL. */
export async function findDatasetRow(
  db: Kysely<Database>,
  teamId: number,
  datasetId: number,
  options: { lock?: boolean } = {},
): Promise<DatasetRow | undefined> {
  let query = db
    .selectFrom('datasets')
    .innerJoin('projects', 'projects.id', 'datasets.project_id')
    .selectAll('datasets')
    .where('datasets.id', '=', datasetId)
    .where('projects.team_id', '=', teamId)
    .where('datasets.hidden', '=', 0);
  if (options.lock && isPostgres(db)) query = query.forUpdate('datasets');
  return query.executeTakeFirst();
}

/** Sets the title; one already used in the project raises the unique violation. */
export async function renameDataset(db: Kysely<Database>, datasetId: number, title: string): Promise<void> {
  await db.updateTable('datasets').set({ title, updated_at: isoNow() }).where('id', '=', datasetId).execute();
}

/** Makes the dataset managers-only, or an ordinary one again. */
export async function setManagersOnly(db: Kysely<Database>, datasetId: number, managersOnly: boolean): Promise<void> {
  await db.updateTable('datasets').set({ managers_only: managersOnly ? 1 : 0, updated_at: isoNow() }).where('id', '=', datasetId).execute();
}

export interface DatasetPageQuery {
  teamId: number;
  /** Whose managers-only datasets are listed (hidden-datasets.ts). */
  managed: ManagedProjects;
  projectId?: number;
  /** Only datasets of projects this plain member has a role in. */
  visibleTo?: number;
  afterId?: number;
  limit: number;
}

function teamDatasets(db: Kysely<Database>, query: { teamId: number; managed: ManagedProjects; projectId?: number; visibleTo?: number }) {
  let select = db
    .selectFrom('datasets')
    .innerJoin('projects', 'projects.id', 'datasets.project_id')
    .where('projects.team_id', '=', query.teamId)
    .where((eb) => shownDatasets(eb, query.managed));
  if (query.projectId !== undefined) select = select.where('datasets.project_id', '=', query.projectId);
  if (query.visibleTo !== undefined) select = select.where((eb) => visibleToMember(eb, query.visibleTo!, 'projects.id', 'projects.member_default_role'));
  return select;
}

/** Up to `limit` of the team's datasets (of one project when `projectId` is given) in id order. */
export async function pageDatasets(db: Kysely<Database>, query: DatasetPageQuery): Promise<DatasetRow[]> {
  let select = teamDatasets(db, query).selectAll('datasets');
  if (query.afterId !== undefined) select = select.where('datasets.id', '>', query.afterId);
  return select.orderBy('datasets.id').limit(query.limit).execute();
}

export async function countDatasets(db: Kysely<Database>, query: { teamId: number; managed: ManagedProjects; projectId?: number; visibleTo?: number }): Promise<number> {
  const row = await teamDatasets(db, query).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface DatasetCounts {
  images: number;
  /** Annotation objects over all its images. */
  objects: number;
}

/** What each of the datasets holds, by dataset id; an empty dataset has zeros. */
export async function countDatasetContents(db: Kysely<Database>, datasetIds: number[]): Promise<Map<number, DatasetCounts>> {
  const counts = new Map<number, DatasetCounts>(datasetIds.map((id) => [id, { images: 0, objects: 0 }]));
  if (datasetIds.length === 0) return counts;
  const rows = await db
    .selectFrom('images')
    .select((eb) => ['dataset_id', eb.fn.countAll().as('n'), eb.fn.sum(jsonArrayLength(db, 'objects_json')).as('objects')])
    .where('dataset_id', 'in', datasetIds)
    .groupBy('dataset_id')
    .execute();
  for (const r of rows) counts.set(r.dataset_id, { images: Number(r.n), objects: Number(r.objects ?? 0) });
  return counts;
}
