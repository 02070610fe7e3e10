// Annotation pages of a project of the caller's team.
import type { Db } from '../db/create-db.ts';
import { currentSnapshot } from '../db/pg-snapshot.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { type DatasetReader, hiddenDatasetsOf } from '../repositories/hidden-datasets.ts';
import { VersionedCache } from '../db/versioned-cache.ts';
import {
  type AnnotationPage,
  type AnnotationPageQuery,
  postgresAnnotationPage,
  sqliteAnnotationPage,
} from '../repositories/annotations.repository.ts';

/** How many page starts are kept, and how much their keys and versions may weigh. */
const KEPT_PAGE_STARTS = 10_000;
const KEPT_PAGE_START_BYTES = 4 * 1024 * 1024;
/** Pages kept whole: a page of 1,000 records of 10 polygons is about 3 MB. */
const KEPT_PAGE_BYTES = 16 * 1024 * 1024;
const KEPT_PAGES = 1_000;
/** Longer dataset filters (up to a thousand ids) are not worth a place: their pages are not kept. */
const MAX_KEPT_FILTER_CHARS = 200;

interface PageKeys {
  /** The page itself: filter, offset and size. */
  page: string;
  /** Where it starts and where the page after it starts: filter and offset. */
  start: string;
  next: string;
}

/**
 * Pages as UTF-8 JSON bytes. A project the team cannot see filters to nothing, like any filter that
 * matches nothing, so the answer does not tell a foreign project from a missing one. The team check is
 * part of the page query itself, so a page costs one round trip.
 *
 * Pages served are kept with the version of the database they were read at, and so is where each one
 * and the one after it start (their first image id). A page asked for again while the database is
 * unchanged is sent as it was; otherwise a page whose start is known still starts there instead of
 * walking OFFSET past every image before it (3 ms at page 100 of 1,000 images on SQLite, 7 ms on
 * PostgreSQL). The version is Db.changeStamp() on SQLite and the snapshot on PostgreSQL
 * (pg-snapshot.ts), so nothing kept outlives a write by this process or any other.
 */
/**
 * The query with the project's datasets the reader must not see left out (jobs' honeypots, and
 * managers-only datasets for anybody but a manager: docs/jobs.md "Quality"): a project that has any is
 * read by its other datasets. One lookup of a few rows; a project without them is read as asked.
 */
async function withoutHiddenDatasets(db: Kysely<Database>, query: AnnotationPageQuery, reader: DatasetReader): Promise<AnnotationPageQuery> {
  const hidden = new Set((await hiddenDatasetsOf(db, query.projectId, reader).execute()).map((r) => r.id));
  if (hidden.size === 0) return query;
  const datasetIds = query.datasetIds
    ? query.datasetIds.filter((id) => !hidden.has(id))
    : (await db.selectFrom('datasets').select('id').where('project_id', '=', query.projectId).orderBy('id').execute()).map((r) => r.id).filter((id) => !hidden.has(id));
  return { ...query, datasetIds };
}

export class AnnotationPages {
  private readonly starts = new VersionedCache<number>({ maxEntries: KEPT_PAGE_STARTS, maxBytes: KEPT_PAGE_START_BYTES });
  private readonly bodies = new VersionedCache<Buffer>({ maxEntries: KEPT_PAGES, maxBytes: KEPT_PAGE_BYTES });

  constructor(private readonly db: Db) {}

  /**
   * `stamp`: Db.changeStamp() taken before anything of this request was read; PostgreSQL pages go by
   * the snapshot instead, which is exact where the stamp may lag a notification.
   */
  async page(teamId: number, reader: DatasetReader, asked: AnnotationPageQuery, stamp: number | undefined): Promise<Buffer> {
    const query = await withoutHiddenDatasets(this.db.kysely, asked, reader);
    const filter = `${teamId}:${query.projectId}:${query.datasetIds?.join(',') ?? '*'}`;
    const keys =
      filter.length > MAX_KEPT_FILTER_CHARS
        ? undefined
        : { page: `${filter}:${query.offset}:${query.limit}`, start: `${filter}:${query.offset}`, next: `${filter}:${query.offset + query.limit}` };
    return this.db.dialect === 'postgres' ? this.postgresPage(teamId, query, keys) : this.sqlitePage(teamId, query, keys, stamp);
  }

  private async sqlitePage(teamId: number, query: AnnotationPageQuery, keys: PageKeys | undefined, stamp: number | undefined): Promise<Buffer> {
    const kysely = this.db.kysely;
    const version = keys && stamp !== undefined ? String(stamp) : undefined;
    if (!keys || version === undefined) return (await sqliteAnnotationPage(kysely, teamId, query)).body;
    const kept = this.bodies.get(keys.page, version);
    if (kept) return kept;

    const fromId = this.starts.get(keys.start, version);
    let page = await sqliteAnnotationPage(kysely, teamId, query, fromId);
    const unchanged = String(this.db.changeStamp()) === version;
    // A write that ran between the stamp and the page query may have moved where the page starts: the
    // page is then read again the slow way, in one statement, so it matches one state of the database.
    if (fromId !== undefined && !unchanged) page = await sqliteAnnotationPage(kysely, teamId, query);
    if (unchanged) this.keep(keys, version, page);
    return page.body;
  }

  private async postgresPage(teamId: number, query: AnnotationPageQuery, keys: PageKeys | undefined): Promise<Buffer> {
    if (!keys) return (await postgresAnnotationPage(this.db, teamId, query)).body;
    // Asking for the snapshot is a round trip of its own, worth it only when there is a page to send.
    const kept = this.bodies.peek(keys.page);
    if (kept && kept.version === (await currentSnapshot(this.db.kysely))) return kept.value;

    const start = this.starts.peek(keys.start);
    const page = await postgresAnnotationPage(this.db, teamId, query, start && { id: start.value, snapshot: start.version });
    if (page.snapshot !== undefined) this.keep(keys, page.snapshot, page);
    return page.body;
  }

  private keep(keys: PageKeys, version: string, page: AnnotationPage): void {
    if (page.firstId === null || page.lastId === null) return;
    // A page may be a view of a larger buffer, which it keeps alive: that is what it weighs.
    this.bodies.set(keys.page, version, page.body, page.body.buffer.byteLength);
    this.starts.set(keys.start, version, page.firstId, keys.start.length + version.length);
    // Ids are integers: the next page holds the images from the one after this page's last.
    this.starts.set(keys.next, version, page.lastId + 1, keys.next.length + version.length);
  }
}
