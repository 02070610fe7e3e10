// Annotation pages of a project of the caller's team.
import type { Db } from '../db/create-db.ts';
import { StampedCache } from '../db/stamped-cache.ts';
import * as annotations from '../repositories/annotations.repository.ts';

/** How many page starts are kept: each at most MAX_KEPT_FILTER_CHARS and a number. */
const KEPT_PAGE_STARTS = 10_000;
/** Longer dataset filters (up to a thousand ids) are not worth a place: their starts are not kept. */
const MAX_KEPT_FILTER_CHARS = 200;

/**
 * Pages as UTF-8 JSON bytes. A project the team cannot see filters to nothing, like any filter that
 * matches nothing, so the answer does not tell a foreign project from a missing one. The team check is
 * part of the page query itself, so a page costs one round trip.
 *
 * Where pages start (their first image id) is kept from the pages served until the database changes:
 * the page after one just served, or a page asked for again, starts there instead of walking OFFSET
 * past every image before it (3 ms at page 100 of 1,000 images).
 */
export class AnnotationPages {
  private readonly starts = new StampedCache<number>(KEPT_PAGE_STARTS);

  constructor(private readonly db: Db) {}

  /** `stamp`: Db.changeStamp() taken before anything of this request was read. */
  async page(teamId: number, query: annotations.AnnotationPageQuery, stamp: number | undefined): Promise<Buffer> {
    const kysely = this.db.kysely;
    const filter = `${teamId}:${query.projectId}:${query.datasetIds?.join(',') ?? '*'}`;
    if (filter.length > MAX_KEPT_FILTER_CHARS) return (await annotations.annotationPageJson(kysely, teamId, query)).body;

    const startKey = `${filter}:${query.offset}`;
    const fromId = this.starts.get(stamp, startKey);
    let page = await annotations.annotationPageJson(kysely, teamId, { ...query, fromId });
    // A write that ran between the stamp and the page query may have moved where the page starts: the
    // page is then read again the slow way, in one statement, so it matches one state of the database.
    if (fromId !== undefined && this.db.changeStamp() !== stamp) page = await annotations.annotationPageJson(kysely, teamId, query);
    if (page.firstId !== null && page.lastId !== null) {
      this.starts.set(stamp, startKey, page.firstId);
      // Ids are integers: the next page holds the images from the one after this page's last.
      this.starts.set(stamp, `${filter}:${query.offset + query.limit}`, page.lastId + 1);
    }
    return page.body;
  }
}
