// Dataset rules: creating, renaming, listing and deleting within the caller's team.
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../db/dialect.ts';
import type { Database } from '../db/types.ts';
import { type AppError, conflict, notFound } from '../errors.ts';
import * as datasets from '../repositories/datasets.repository.ts';
import type { DatasetCounts, DatasetResource } from '../repositories/datasets.repository.ts';
import { type Page, type PageRequest, pageOfRows } from './paging.ts';
import { checkIfMatch } from './preconditions.ts';
import { requireProject } from './projects.service.ts';
import { checkTitle } from './titles.ts';
import { recordEvent } from './webhook-events.ts';
import { checkManagersOnlyChange } from './managers-only.service.ts';
import { type Caller, managedProjectsOf, narrowedTo } from './project-access.ts';

/**
 * The datasets of the projects the caller has a role in (of one project with `projectId`); the
 * managers-only ones of the projects they manage only.
 */
export const listDatasets = (db: Kysely<Database>, caller: Caller, projectId?: number) =>
  datasets.listDatasets(db, caller.teamId, managedProjectsOf(caller), projectId, narrowedTo(caller));

/** Deletes the dataset and its images (v1's delete), with its dataset.deleted event. */
export async function deleteDataset(db: Kysely<Database>, teamId: number, datasetId: number): Promise<void> {
  await removeDataset(db, teamId, datasetId, undefined);
}

/** The dataset, or a 404 that reads the same whether it is missing or another team's. */
export async function requireDataset(db: Kysely<Database>, teamId: number, datasetId: number) {
  const dataset = await datasets.findDataset(db, teamId, datasetId);
  if (!dataset) throw notFound('dataset', { datasetId });
  return dataset;
}

/** A dataset of a v2 listing; `counts` only when the caller asked for them. */
export interface DatasetListItem extends DatasetResource {
  counts?: DatasetCounts;
}

const duplicateTitle = (title: string): AppError => conflict(`the project already has a dataset titled "${title}"`, { field: 'title', title });

export async function createDataset(db: Kysely<Database>, teamId: number, projectId: number, body: { title: string; managersOnly?: boolean }): Promise<DatasetResource> {
  const { title } = body;
  checkTitle(title);
  await requireProject(db, teamId, projectId);
  try {
    const id = await datasets.insertDataset(db, projectId, title, body.managersOnly ?? false);
    return await describeDataset(db, teamId, id);
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateTitle(title);
    throw error;
  }
}

export async function describeDataset(db: Kysely<Database>, teamId: number, datasetId: number): Promise<DatasetResource> {
  return datasets.toDatasetResource(await requireDataset(db, teamId, datasetId));
}

/**
 * Renames the dataset, or makes it managers-only or ordinary (checkManagersOnlyChange), if `ifMatch`
 * (when given) still names it as it is; titles are unique per project.
 */
export async function changeDataset(
  db: Kysely<Database>,
  teamId: number,
  datasetId: number,
  change: { title?: string; managersOnly?: boolean },
  ifMatch: string | undefined,
): Promise<DatasetResource> {
  const { title, managersOnly } = change;
  if (title !== undefined) checkTitle(title);
  try {
    return await db.transaction().execute(async (trx) => {
      const row = await datasets.findDatasetRow(trx, teamId, datasetId, { lock: true });
      if (!row) throw notFound('dataset', { datasetId });
      checkIfMatch(datasets.toDatasetResource(row), ifMatch);
      if (managersOnly !== undefined) {
        await checkManagersOnlyChange(trx, row, managersOnly);
        await datasets.setManagersOnly(trx, datasetId, managersOnly);
      }
      if (title !== undefined) await datasets.renameDataset(trx, datasetId, title);
      return datasets.toDatasetResource((await datasets.findDatasetRow(trx, teamId, datasetId))!);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateTitle(title ?? '');
    throw error;
  }
}

/** Deletes the dataset and its images if `ifMatch` (when given) still names it as it is. */
export async function removeDataset(db: Kysely<Database>, teamId: number, datasetId: number, ifMatch: string | undefined): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await datasets.findDatasetRow(trx, teamId, datasetId, { lock: true });
    if (!row) throw notFound('dataset', { datasetId });
    const dataset = datasets.toDatasetResource(row);
    checkIfMatch(dataset, ifMatch);
    await datasets.removeDataset(trx, row);
    await recordEvent(trx, teamId, 'dataset.deleted', { id: dataset.id, projectId: dataset.projectId, title: dataset.title });
  });
}

export interface DatasetListRequest extends PageRequest {
  /** Only this project's datasets (it must be the caller's team's). */
  projectId?: number;
  /** Add each dataset's counts. */
  counts?: boolean;
}

export async function pageOfDatasets(db: Kysely<Database>, caller: Caller, request: DatasetListRequest): Promise<Page<DatasetListItem>> {
  const teamId = caller.teamId;
  if (request.projectId !== undefined) await requireProject(db, teamId, request.projectId);
  const filter = { teamId, managed: managedProjectsOf(caller), projectId: request.projectId, visibleTo: narrowedTo(caller) };
  const { rows, nextAfterId } = pageOfRows(await datasets.pageDatasets(db, { ...filter, afterId: request.afterId, limit: request.limit + 1 }), request.limit);
  let items: DatasetListItem[] = rows.map(datasets.toDatasetResource);
  if (request.counts) {
    const counts = await datasets.countDatasetContents(db, rows.map((r) => r.id));
    items = items.map((item) => ({ ...item, counts: counts.get(item.id)! }));
  }
  return { items, nextAfterId, ...(request.total ? { total: await datasets.countDatasets(db, filter) } : {}) };
}
