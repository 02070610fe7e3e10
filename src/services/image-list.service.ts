// Lists of a dataset's or a project's images for API v2, paged by keyset: a page starts after the
// sort key and id of the last image of the page before, so page 100 costs what page 1 does and an
// image added meanwhile is neither shown twice nor skips another.
import type { Kysely } from 'kysely';
import { StampedCache } from '../db/stamped-cache.ts';
import type { Database } from '../db/types.ts';
import { notFound, validation } from '../errors.ts';
import { AGREEMENT_IOUS } from '../evaluation/agreement.ts';
import { findDataset } from '../repositories/datasets.repository.ts';
import { type DatasetReader, hiddenDatasetIdsOf } from '../repositories/hidden-datasets.ts';
import {
  type ImageFilter,
  type ImageMetadata,
  type ImagePosition,
  type ImageSort,
  countImages,
  findProjectClass,
  imageTagIdsOf,
  listImageMetadata,
  positionOfRow,
  projectIdsOf,
} from '../repositories/image-metadata.repository.ts';
import { countFromTotals } from '../repositories/image-count-totals.repository.ts';
import { countByBlocks, plainScopeOf, positionAt } from '../repositories/image-positions.repository.ts';
import { findProject } from '../repositories/projects.repository.ts';
import { findTag } from '../repositories/tags.repository.ts';
import { type Caller, readerOf } from './project-access.ts';

export interface ImageListQuery {
  datasetId?: number;
  projectId?: number;
  namePrefix?: string;
  nameContains?: string;
  tagId?: number;
  classId?: number;
  annotated?: boolean;
  predictionScore?: number;
  predictionModel?: string;
  /** Images whose predictions of this model disagree with the annotation (at the three below). */
  disagreeModel?: string;
  disagreeScore?: number;
  disagreeIou?: number;
  disagreeIouType?: 'bbox' | 'segm';
  datasetIds?: number[];
  classAny?: number[];
  classAll?: number[];
  classNone?: number[];
  tagAny?: number[];
  tagAll?: number[];
  tagNone?: number[];
  /** `tagId:value` texts: the image tag holds the value (several values of one tag: any of them). */
  tagValue?: string[];
  minObjects?: number;
  maxObjects?: number;
  boxClassId?: number;
  boxMinArea?: number;
  boxMaxArea?: number;
  boxMinSide?: number;
  boxMaxSide?: number;
  sort?: ImageSort;
  limit: number;
  /** Where the page starts: after this image, the last of the page before (its cursor, decoded). */
  after?: ImagePosition;
  /** Where the page starts instead: at this position of the list (0-based; see image-positions.repository.ts). */
  offset?: number;
  count?: boolean;
}

export interface ImageListPage {
  items: ImageMetadata[];
  /** Where the next page starts; null on the last page. */
  next: ImagePosition | null;
  total?: number;
}

/** The filter part of a list query: what the statistics of a filter take too. */
export type ImageFilterQuery = Omit<ImageListQuery, 'sort' | 'limit' | 'after' | 'offset' | 'count'>;

/** Every id of `ids` that `known` lacks is a 404 of `what`. */
async function checkIds(ids: readonly number[] | undefined, known: (ids: number[]) => Promise<Set<number>>, what: string, field: string): Promise<void> {
  if (!ids?.length) return;
  const found = await known([...new Set(ids)]);
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw notFound(what, { [field]: missing });
}

/** The values of `tagId:value` texts, grouped by tag, as image_tags stores them (JSON text). */
function tagValuesOf(texts: readonly string[]): { tagId: number; values: string[] }[] {
  const byTag = new Map<number, string[]>();
  for (const text of texts) {
    const match = /^(\d{1,10}):(.*)$/s.exec(text);
    const tagId = match ? Number(match[1]) : NaN;
    if (!match || !(tagId >= 1 && tagId <= 2_147_483_647)) throw validation('a tag value is written tagId:value', { field: 'tagValue' });
    const value = match[2]!;
    const stored = [JSON.stringify(value)];
    // A number tag stores its value as a JSON number.
    if (value.trim() !== '' && Number.isFinite(Number(value))) stored.push(JSON.stringify(Number(value)));
    byTag.set(tagId, [...(byTag.get(tagId) ?? []), ...stored]);
  }
  return [...byTag].map(([tagId, values]) => ({ tagId, values }));
}

/**
 * The filter of the query, with every id it names checked against the caller's team; `reader` says
 * whether the caller sees the project's managers-only datasets (a manager) or not: to anybody else
 * they are missing (404) and their images are left out.
 */
export async function filterOf(db: Kysely<Database>, teamId: number, query: ImageFilterQuery, reader: DatasetReader): Promise<ImageFilter> {
  if ((query.datasetId === undefined) === (query.projectId === undefined)) {
    throw validation('give exactly one of datasetId or projectId', { field: 'datasetId' });
  }
  let projectId: number;
  if (query.datasetId !== undefined) {
    const dataset = await findDataset(db, teamId, query.datasetId);
    if (!dataset) throw notFound('dataset', { datasetId: query.datasetId });
    projectId = dataset.project_id;
  } else {
    if (!(await findProject(db, teamId, query.projectId!))) throw notFound('project', { projectId: query.projectId });
    projectId = query.projectId!;
  }
  const hidden = await hiddenDatasetIdsOf(db, projectId, reader);
  if (query.datasetId !== undefined && reader !== 'manager' && (await managersOnlyIdsOf(db, projectId, [query.datasetId])).length > 0) throw notFound('dataset', { datasetId: query.datasetId });
  const filter: ImageFilter = query.datasetId !== undefined ? { datasetId: query.datasetId } : { projectId, hiddenDatasetIds: hidden, reader };
  if (query.namePrefix !== undefined) filter.namePrefix = query.namePrefix;
  if (query.nameContains !== undefined) filter.nameContains = query.nameContains;
  if (query.annotated !== undefined) filter.annotated = query.annotated;
  if (query.predictionModel !== undefined && query.predictionScore === undefined) throw validation('predictionModel goes with predictionScore', { field: 'predictionModel' });
  if (query.predictionScore !== undefined) filter.predictionScore = query.predictionScore;
  if (query.predictionModel !== undefined) filter.predictionModel = query.predictionModel;
  if (query.disagreeModel !== undefined) {
    const iou = Math.round((query.disagreeIou ?? 0.5) * 100);
    if (!AGREEMENT_IOUS.includes(iou) || Math.abs((query.disagreeIou ?? 0.5) * 100 - iou) > 1e-6) {
      throw validation('disagreeIou is one of 0.5, 0.55, … 0.95', { field: 'disagreeIou' });
    }
    filter.disagreement = { model: query.disagreeModel, score: query.disagreeScore ?? 0.5, iou, iouType: query.disagreeIouType ?? 'bbox' };
  } else if (query.disagreeScore !== undefined || query.disagreeIou !== undefined || query.disagreeIouType !== undefined) {
    throw validation('disagreeScore, disagreeIou and disagreeIouType go with disagreeModel', { field: 'disagreeModel' });
  }
  if (query.tagId !== undefined) {
    if (!(await findTag(db, projectId, 'images', query.tagId))) throw notFound('image tag', { tagId: query.tagId });
    filter.tagId = query.tagId;
  }
  if (query.classId !== undefined) {
    const found = await findProjectClass(db, projectId, query.classId);
    if (!found) throw notFound('class', { classId: query.classId });
    filter.classTitle = found.title;
  }
  const classIds = (ids: number[]) => projectIdsOf(db, 'classes', projectId, ids);
  const tagIds = (ids: number[]) => imageTagIdsOf(db, projectId, ids);
  // A managers-only dataset is missing to anybody else (a 404); a hidden one just holds nothing listed.
  const unseen = reader === 'manager' || !query.datasetIds?.length ? [] : await managersOnlyIdsOf(db, projectId, hidden);
  const shown = async (ids: number[]) => new Set([...(await projectIdsOf(db, 'datasets', projectId, ids))].filter((id) => !unseen.includes(id)));
  await checkIds(query.datasetIds, shown, 'dataset', 'datasetId');
  for (const field of ['classAny', 'classAll', 'classNone'] as const) await checkIds(query[field], classIds, 'class', 'classId');
  for (const field of ['tagAny', 'tagAll', 'tagNone'] as const) await checkIds(query[field], tagIds, 'image tag', 'tagId');
  await checkIds(query.boxClassId === undefined ? undefined : [query.boxClassId], classIds, 'class', 'classId');
  if (query.datasetIds?.length) filter.datasetIds = query.datasetIds;
  for (const field of ['classAny', 'classAll', 'classNone', 'tagAny', 'tagAll', 'tagNone'] as const) if (query[field]?.length) filter[field] = query[field];
  if (query.tagValue?.length) {
    filter.tagValues = tagValuesOf(query.tagValue);
    await checkIds(filter.tagValues.map((t) => t.tagId), tagIds, 'image tag', 'tagId');
  }
  if (query.minObjects !== undefined) filter.minObjects = query.minObjects;
  if (query.maxObjects !== undefined) filter.maxObjects = query.maxObjects;
  const box = { classId: query.boxClassId, minArea: query.boxMinArea, maxArea: query.boxMaxArea, minSide: query.boxMinSide, maxSide: query.boxMaxSide };
  if (box.minArea !== undefined || box.maxArea !== undefined || box.minSide !== undefined || box.maxSide !== undefined) {
    filter.box = Object.fromEntries(Object.entries(box).filter(([, v]) => v !== undefined));
  } else if (box.classId !== undefined) {
    throw validation('boxClassId bounds nothing without boxMinArea, boxMaxArea, boxMinSide or boxMaxSide', { field: 'boxClassId' });
  }
  return filter;
}

/** Of these datasets of the project, the managers-only ones. */
async function managersOnlyIdsOf(db: Kysely<Database>, projectId: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('datasets').select('id').where('project_id', '=', projectId).where('managers_only', '=', 1).where('id', 'in', ids).execute();
  return rows.map((r) => r.id);
}

/** How the caller reads the project of a list (of a project, or of one of its datasets). */
export async function readerOfList(db: Kysely<Database>, caller: Caller, query: { projectId?: number; datasetId?: number }): Promise<DatasetReader> {
  const projectId = query.projectId ?? (query.datasetId !== undefined ? (await findDataset(db, caller.teamId, query.datasetId))?.project_id : undefined);
  return projectId === undefined ? 'member' : readerOf(db, caller, projectId);
}

/** One page of the list; the total of the whole list only when asked (it costs a count). */
export async function listImages(db: Kysely<Database>, teamId: number, query: ImageListQuery, reader: DatasetReader): Promise<ImageListPage> {
  const sort = query.sort ?? 'id';
  if (sort === 'name' && query.after && query.after.name === undefined) throw validation('a list by name starts after a name', { field: 'cursor' });
  if ((sort === 'objects' || sort === '-objects') && query.after && query.after.objects === undefined) throw validation('a list by object count starts after a count', { field: 'cursor' });
  const filter = await filterOf(db, teamId, query, reader);
  let after = query.after;
  if (query.offset) {
    if (after) throw validation('give a cursor or an offset, not both', { field: 'offset' });
    const before = await positionAt(db, filter, sort, query.offset - 1);
    if (!before) return { items: [], next: null, ...(query.count ? { total: await countOf(db, filter) } : {}) };
    after = before;
  }
  // One more than the page: whether it is there tells whether a next page is.
  const rows = await listImageMetadata(db, filter, sort, after, query.limit + 1);
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  const next = rows.length > query.limit && last ? positionOfRow(sort, { id: last.id, name: last.name, object_count: last.objectCount }) : null;
  const page: ImageListPage = { items, next };
  if (query.count) page.total = await countOf(db, filter);
  return page;
}

/**
 * A dataset's or a project's whole list is counted from the id blocks; one class or one range of
 * object counts from the running totals; any other filter by its rows.
 */
async function countOf(db: Kysely<Database>, filter: ImageFilter): Promise<number> {
  const scope = plainScopeOf(filter);
  if (scope) return countByBlocks(db, scope);
  return (await countFromTotals(db, filter)) ?? countImages(db, filter);
}

/** A page as it is sent: its JSON bytes, and the cursor of the next page for the Link header. */
export interface SentPage {
  body: Buffer;
  nextCursor: string | null;
}

/** Pages kept while the database is unchanged; a page of 1,000 images is about half a megabyte. */
const KEPT_PAGES = 32;
const KEPT_PAGE_BYTES = 2 * 1024 * 1024;

/**
 * Pages kept, as the bytes they were sent as, until the database may have changed (Db.changeStamp: a
 * write of this process counts at once, another process's when its notification arrives). A list
 * polled again and again then costs a map lookup, and a later page what the first one does.
 */
export class ImageListPages {
  private readonly kept = new StampedCache<SentPage>(KEPT_PAGES);

  /** `cursorOf` writes where a page starts as the client sees it (the http layer's opaque text). */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly cursorOf: (sort: ImageSort, next: ImagePosition) => string,
  ) {}

  /** `cursorText` is the query's cursor as sent, the key of a kept page; `query.after` says the same. */
  async page(teamId: number, reader: DatasetReader, query: ImageListQuery, cursorText: string | undefined, stamp: number | undefined): Promise<SentPage> {
    // The cursor's text stands for query.after; a manager's page may hold what nobody else's does.
    const key = JSON.stringify([teamId, reader, { ...query, after: undefined }, cursorText]);
    const kept = this.kept.get(stamp, key);
    if (kept) return kept;
    const page = await listImages(this.db, teamId, query, reader);
    const sort = query.sort ?? 'id';
    const nextCursor = page.next ? this.cursorOf(sort, page.next) : null;
    const answer = { items: page.items, nextCursor, ...(page.total !== undefined ? { total: page.total } : {}) };
    const sent: SentPage = { body: Buffer.from(JSON.stringify(answer)), nextCursor };
    if (sent.body.length <= KEPT_PAGE_BYTES) this.kept.set(stamp, key, sent);
    return sent;
  }
}
