// PostgreSQL tells every server process when the database changed: each statement that changes rows
// of one of our tables sends a notification on the channel below when its transaction commits, and
// servers LISTEN on it (pg-changes.ts) to know when answers they keep went stale. A notification
// carries the schema, so servers of other schemas in the same database ignore it; notifications of one
// transaction with the same payload are delivered once. A statement that changes no rows (the
// workers' poll for tasks, a sweep with nothing to sweep) sends nothing: notifying takes a
// transaction id, and so would move every snapshot on the server twice a second. SQLite needs none of
// this: it has `data_version`.
//
// A table added by a later migration gets the triggers too (`notifyChangesOf`), or answers read from
// it could be kept past a change made by another process; a test checks that every table has them.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../dialect.ts';

export const CHANGES_CHANNEL = 'annostore_changes';

const TABLES = [
  'teams',
  'users',
  'api_keys',
  'projects',
  'classes',
  'project_tags',
  'datasets',
  'blobs',
  'images',
  'image_tags',
  'object_tag_refs',
  'staged_files',
  'tasks',
  'import_items',
  'task_inputs',
  'architectures',
  'models',
];

const ROW_EVENTS = [
  ['insert', 'new'],
  ['update', 'new'],
  ['delete', 'old'],
] as const;

/** Makes every insert, update, delete and truncate of `table` that changes rows notify the servers. */
export async function notifyChangesOf(db: Kysely<unknown>, table: string): Promise<void> {
  // A statement trigger sees the statement's rows as a transition table: empty when nothing changed.
  for (const [event, rows] of ROW_EVENTS) {
    await sql`create trigger ${sql.id(`annostore_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
      referencing ${sql.raw(rows)} table as changed
      for each statement execute function annostore_notify_rows()`.execute(db);
  }
  await sql`create trigger annostore_truncate after truncate on ${sql.table(table)}
    for each statement execute function annostore_notify_truncate()`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`create function annostore_notify_rows() returns trigger language plpgsql as $$
    begin
      if exists (select from changed) then
        perform pg_notify(${sql.lit(CHANGES_CHANNEL)}, tg_table_schema);
      end if;
      return null;
    end $$`.execute(db);
  await sql`create function annostore_notify_truncate() returns trigger language plpgsql as $$
    begin
      perform pg_notify(${sql.lit(CHANGES_CHANNEL)}, tg_table_schema);
      return null;
    end $$`.execute(db);
  for (const table of TABLES) await notifyChangesOf(db, table);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop function annostore_notify_rows() cascade`.execute(db);
  await sql`drop function annostore_notify_truncate() cascade`.execute(db);
}
