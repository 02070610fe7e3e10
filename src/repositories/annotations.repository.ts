// Pages of v1 annotation records. Objects are stored already serialised in record order, so a page is
// assembled from stored text without parsing it: the cost of a page is reading it, not re-encoding it.
// The database writes each record's text around the stored objects; the page is one buffer, joined by
// SQLite itself or, from PostgreSQL's rows, by JavaScript without building a string of the whole page.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { isPostgres } from '../db/dialect.ts';
import type { Database } from '../db/types.ts';

export interface AnnotationPageQuery {
  projectId: number;
  datasetIds?: number[];
  limit: number;
  offset: number;
  /** The first image id of the page when known (an earlier page told it): no OFFSET walk then. */
  fromId?: number;
}

export interface AnnotationPage {
  /** UTF-8 JSON: an array of annotation records. */
  body: Buffer;
  /** The image ids of its first and last records; null on an empty page. */
  firstId: number | null;
  lastId: number | null;
}

const EMPTY_BODY = Buffer.from('[]');
const EMPTY_PAGE: AnnotationPage = { body: EMPTY_BODY, firstId: null, lastId: null };

/**
 * A text column as a JSON string literal. Both functions write exactly what JSON.stringify writes
 * (short escapes for \b \t \n \f \r, \u00xx for the other control characters, everything else as is).
 */
function jsonString(postgres: boolean, column: string): RawBuilder<string> {
  return postgres ? sql<string>`to_json(${sql.ref(column)})::text` : sql<string>`json_quote(${sql.ref(column)})`;
}

/** The text of one annotation record, `{"imageId":…,"data":{…,"objects":<stored text>}}`. */
function recordText(postgres: boolean): RawBuilder<string> {
  // Image-level tag titles of the image, in tag id order.
  const tags = sql<string>`(select '[' || string_agg(${jsonString(postgres, 'project_tags.title')}, ',' order by project_tags.id) || ']'
    from image_tags inner join project_tags on project_tags.id = image_tags.tag_id
    where image_tags.image_id = images.id)`;
  // concat() builds the text in one allocation, where a chain of || would copy the objects again at
  // every step.
  return sql<string>`concat('{"imageId":', images.id,
    ',"data":{"description":', ${jsonString(postgres, 'images.description')},
    ',"tags":', coalesce(${tags}, '[]'),
    ',"name":', ${jsonString(postgres, 'images.name')},
    ',"size":{"width":', images.width, ',"height":', images.height,
    '},"objects":', images.objects_json, '}}')`;
}

/** `[` records joined by `,` `]`, encoded once into one buffer of the exact size. */
function joinRecords(records: string[]): Buffer {
  if (records.length === 0) return EMPTY_BODY;
  let length = records.length + 1;
  for (const record of records) length += Buffer.byteLength(record, 'utf8');
  const out = Buffer.allocUnsafe(length);
  out[0] = 0x5b; // [
  let at = 1;
  for (let i = 0; i < records.length; i += 1) {
    if (i > 0) out[at++] = 0x2c; // ,
    at += out.write(records[i]!, at, 'utf8');
  }
  out[at] = 0x5d; // ]
  return out;
}

/**
 * The page of annotation records, ordered by image id, as UTF-8 JSON; `[]` when the project is not one
 * of the team's.
 */
export async function annotationPageJson(db: Kysely<Database>, teamId: number, query: AnnotationPageQuery): Promise<AnnotationPage> {
  // An empty dataset filter matches nothing (and `in ()` is not valid SQL on PostgreSQL).
  if (query.datasetIds?.length === 0) return EMPTY_PAGE;
  const postgres = isPostgres(db);
  const { projectId, datasetIds } = query;

  // Keyset paging: OFFSET only finds the page's first id (over the (project_id, id) index alone when
  // there is no dataset filter); the records it skips are never read, let alone assembled.
  let first = db.selectFrom('images').select('images.id').where('images.project_id', '=', projectId);
  if (datasetIds) first = first.where('images.dataset_id', 'in', datasetIds);
  const start = query.fromId ?? first.orderBy('images.id').limit(1).offset(query.offset);

  let select = db
    .selectFrom('images')
    .innerJoin('projects', 'projects.id', 'images.project_id')
    .select(['images.id', recordText(postgres).as('record')])
    .where('images.project_id', '=', projectId)
    .where('projects.team_id', '=', teamId)
    .where('images.id', '>=', start);
  if (datasetIds) select = select.where('images.dataset_id', 'in', datasetIds);
  const records = select.orderBy('images.id').limit(query.limit);
  if (postgres) {
    const rows = await records.execute();
    if (rows.length === 0) return EMPTY_PAGE;
    return { body: joinRecords(rows.map((r) => r.record)), firstId: rows[0]!.id, lastId: rows[rows.length - 1]!.id };
  }

  // SQLite joins the records itself and hands the page over as a blob: one Buffer, with no text to
  // decode into a thousand strings and encode again. group_concat takes the rows in the order the
  // subquery yields them (an ORDER BY inside the aggregate would sort the whole page once more).
  // PostgreSQL streams its rows instead, so the server decodes one while the database makes the next.
  const { rows } = await sql<{ page: Buffer | null; first_id: number | null; last_id: number | null }>`
    select cast('[' || group_concat(p.record, ',') || ']' as blob) as page, min(p.id) as first_id, max(p.id) as last_id
    from (${records}) as p`.execute(db);
  const row = rows[0];
  if (!row?.page) return EMPTY_PAGE;
  return { body: row.page, firstId: row.first_id, lastId: row.last_id };
}
