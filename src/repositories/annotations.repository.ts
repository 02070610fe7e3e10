// Pages of v1 annotation records. Objects are stored already serialised in record order, so a page is
// assembled from stored text without parsing it: the cost of a page is reading it, not re-encoding it.
// The database writes each record's text around the stored objects and the page reaches the server as
// bytes: SQLite joins the records into one blob, PostgreSQL sends them through a binary COPY, and
// neither is ever decoded into JavaScript strings.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/create-db.ts';
import { BinaryCopyReader } from '../db/pg-copy.ts';
import { inSnapshot, statementSnapshot } from '../db/pg-snapshot.ts';
import type { Database } from '../db/types.ts';

export interface AnnotationPageQuery {
  projectId: number;
  datasetIds?: number[];
  limit: number;
  offset: number;
}

export interface AnnotationPage {
  /** UTF-8 JSON: an array of annotation records. */
  body: Buffer;
  /** The image ids of its first and last records; null on an empty page. */
  firstId: number | null;
  lastId: number | null;
}

const EMPTY_BODY = Buffer.from('[]');
const OPEN = 0x5b; // [
const COMMA = 0x2c; // ,
const CLOSE = 0x5d; // ]
const EMPTY_PAGE: AnnotationPage = { body: EMPTY_BODY, firstId: null, lastId: null };

/**
 * A text column as a JSON string literal. Both functions write exactly what JSON.stringify writes
 * (short escapes for \b \t \n \f \r, \u00xx for the other control characters, everything else as is).
 */
function jsonString(postgres: boolean, column: string): RawBuilder<string> {
  return postgres ? sql<string>`to_json(${sql.ref(column)})::text` : sql<string>`json_quote(${sql.ref(column)})`;
}

/** Image-level tag titles as a JSON array in tag id order, aggregated over `image_tags` rows. */
function tagTitlesArray(postgres: boolean): RawBuilder<string> {
  return sql<string>`'[' || string_agg(${jsonString(postgres, 'project_tags.title')}, ',' order by project_tags.id) || ']'`;
}

/** The text of one annotation record, `{"imageId":…,"data":{…,"objects":<stored text>}}`. */
function recordText(postgres: boolean, tags: RawBuilder<string>): RawBuilder<string> {
  // concat() builds the text in one allocation, where a chain of || would copy the objects again at
  // every step.
  return sql<string>`concat('{"imageId":', images.id,
    ',"data":{"description":', ${jsonString(postgres, 'images.description')},
    ',"tags":', coalesce(${tags}, '[]'),
    ',"name":', ${jsonString(postgres, 'images.name')},
    ',"size":{"width":', images.width, ',"height":', images.height,
    '},"objects":', images.objects_json, '}}')`;
}

/** An integer written into SQL as a literal (COPY takes no parameters); anything else is refused. */
function int(value: number): RawBuilder<number> {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return sql.lit(value);
}

/**
 * A page on SQLite, ordered by image id; `[]` when the project is not one of the team's. `fromId`, the
 * page's first image id when an earlier page told it, saves the OFFSET walk.
 */
export async function sqliteAnnotationPage(
  db: Kysely<Database>,
  teamId: number,
  query: AnnotationPageQuery,
  fromId?: number,
): Promise<AnnotationPage> {
  // An empty dataset filter matches nothing (and `in ()` is not valid SQL on PostgreSQL).
  if (query.datasetIds?.length === 0) return EMPTY_PAGE;
  const { projectId, datasetIds } = query;

  // Keyset paging: OFFSET only finds the page's first id (over the (project_id, id) index alone when
  // there is no dataset filter); the records it skips are never read, let alone assembled.
  let first = db.selectFrom('images').select('images.id').where('images.project_id', '=', projectId);
  if (datasetIds) first = first.where('images.dataset_id', 'in', datasetIds);
  const start = fromId ?? first.orderBy('images.id').limit(1).offset(query.offset);

  // Image-level tags per record: a lookup by image id, which SQLite runs in microseconds.
  const tags = sql<string>`(select ${tagTitlesArray(false)}
    from image_tags inner join project_tags on project_tags.id = image_tags.tag_id
    where image_tags.image_id = images.id)`;
  let select = db
    .selectFrom('images')
    .innerJoin('projects', 'projects.id', 'images.project_id')
    .select(['images.id', recordText(false, tags).as('record')])
    .where('images.project_id', '=', projectId)
    .where('projects.team_id', '=', teamId)
    .where('images.id', '>=', start);
  if (datasetIds) select = select.where('images.dataset_id', 'in', datasetIds);
  const records = select.orderBy('images.id').limit(query.limit);

  // SQLite joins the records itself and hands the page over as a blob: one Buffer, with no text to
  // decode into a thousand strings and encode again. group_concat takes the rows in the order the
  // subquery yields them (an ORDER BY inside the aggregate would sort the whole page once more).
  const { rows } = await sql<{ page: Buffer | null; first_id: number | null; last_id: number | null }>`
    select cast('[' || group_concat(p.record, ',') || ']' as blob) as page, min(p.id) as first_id, max(p.id) as last_id
    from (${records}) as p`.execute(db);
  const row = rows[0];
  if (!row?.page) return EMPTY_PAGE;
  return { body: row.page, firstId: row.first_id, lastId: row.last_id };
}

/** Where a page started when it was last read, and the snapshot that was true of. */
export interface KeptStart {
  id: number;
  snapshot: string;
}

export interface PostgresAnnotationPage extends AnnotationPage {
  /** The snapshot the page was read in; undefined on an empty page. */
  snapshot: string | undefined;
}

/**
 * A page on PostgreSQL, ordered by image id; `[]` when the project is not one of the team's. `kept`
 * saves the OFFSET walk when the database is still in the snapshot it was learnt in: the statement
 * tests that itself, so a write committed meanwhile is never missed.
 */
export async function postgresAnnotationPage(db: Db, teamId: number, query: AnnotationPageQuery, kept?: KeptStart): Promise<PostgresAnnotationPage> {
  if (!db.copyOut) throw new Error('postgresAnnotationPage needs a PostgreSQL database');
  if (query.datasetIds?.length === 0) return { ...EMPTY_PAGE, snapshot: undefined };
  const projectId = int(query.projectId);
  const inDatasets = query.datasetIds ? sql`and images.dataset_id in (${sql.join(query.datasetIds.map(int))})` : sql``;

  const walk = sql`(select images.id from images where images.project_id = ${projectId} ${inDatasets}
    order by images.id limit 1 offset ${int(query.offset)})`;
  // A CASE runs its subquery only when it takes that branch: a kept start costs no walk at all.
  const start = kept ? sql`case when ${inSnapshot(kept.snapshot)} then ${int(kept.id)} else ${walk} end` : walk;

  // The page's ids come off the (project_id, id) index alone; the records are then read as one range
  // of image ids, and the image-level tags of the page's images (found by that range, which may hold
  // other images too) are aggregated once and merged in by id: a lookup per record would cost the
  // database as much again as the records themselves.
  const statement = sql`copy (
    with start as (select ${start} as id),
    page_ids as (
      select images.id from images inner join projects on projects.id = images.project_id
      where images.project_id = ${projectId} and projects.team_id = ${int(teamId)} ${inDatasets}
        and images.id >= (select id from start)
      order by images.id limit ${int(query.limit)}),
    page_tags as (
      select image_tags.image_id, ${tagTitlesArray(true)} as titles
      from image_tags inner join project_tags on project_tags.id = image_tags.tag_id
      where image_tags.image_id >= (select id from start) and image_tags.image_id <= (select max(id) from page_ids)
        and image_tags.image_id in (select id from page_ids)
      group by image_tags.image_id)
    select images.id, ${recordText(true, sql`page_tags.titles`)}, ${statementSnapshot}
    from images left join page_tags on page_tags.image_id = images.id
    where images.project_id = ${projectId} ${inDatasets}
      and images.id >= (select id from start) and images.id <= (select max(id) from page_ids)
    order by images.id
  ) to stdout (format binary)`.compile(db.kysely);

  // The records are copied once, from the chunks they arrived in into the page: the data's own size
  // is room enough, as every record came with more framing than the comma that replaces it.
  const reader = new BinaryCopyReader(await db.copyOut(statement));
  const body = Buffer.allocUnsafe(reader.totalBytes);
  body[0] = OPEN;
  let written = 1;
  let firstId: number | null = null;
  let lastId: number | null = null;
  let snapshot: string | null = null;
  while (reader.nextTuple() !== null) {
    lastId = reader.intField();
    if (firstId === null) firstId = lastId;
    else body[written++] = COMMA;
    written += reader.copyField(body, written);
    // Every row carries the statement's snapshot; one is enough.
    if (snapshot === null) snapshot = reader.textField();
    else reader.skipField();
  }
  if (firstId === null || snapshot === null) return { ...EMPTY_PAGE, snapshot: undefined };
  body[written++] = CLOSE;
  return { body: body.subarray(0, written), firstId, lastId, snapshot };
}
