// SQLite keeps the running totals of 0037 by per-row triggers: each image_classes row an upsert of
// some forty columns, each image two more. In a large import they were a third of the time its task
// spent writing. While a bulk insert holds a row in `totals_deferred`, inside its own transaction (so
// no other connection ever sees it, and a failure takes it back with the rest), the two insert
// triggers stand aside, and the insert adds its images' totals grouped, one statement a table
// (addTotalsOfImages in 0037). PostgreSQL's triggers already run once per statement.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../dialect.ts';
import { sqliteClassRow, sqliteImageRow } from './0037_stats_totals.ts';

const standAside = sql`when not exists (select 1 from totals_deferred)`;

async function insertTriggers(db: Kysely<unknown>, when: typeof standAside | null): Promise<void> {
  const w = when ?? sql``;
  await sql`drop trigger image_classes_totals_insert`.execute(db);
  await sql`drop trigger images_totals_insert`.execute(db);
  await sql`create trigger image_classes_totals_insert after insert on image_classes ${w} begin ${sqliteClassRow('new')} end`.execute(db);
  await sql`create trigger images_totals_insert after insert on images ${w} begin ${sqliteImageRow('new')} end`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  await db.schema.createTable('totals_deferred').addColumn('id', 'integer', (c) => c.primaryKey()).execute();
  await insertTriggers(db, standAside);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  await insertTriggers(db, null);
  await db.schema.dropTable('totals_deferred').execute();
}
