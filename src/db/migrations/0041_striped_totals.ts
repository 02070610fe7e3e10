// PostgreSQL: the running totals behind the statistics (0037) keyed by a stripe of the image id as
// well as by dataset, so that concurrent annotation saves of one dataset's images rarely update the
// same row. Keyed by dataset alone, every save of a dataset's images updated its row per class (and
// per object count, and per size) and held it to its commit: twenty annotators saving in one dataset
// queued behind each other (bench/README.md, "Jobs under load"). An image's rows are always in the
// stripe of its id, so a subtraction finds the row its addition made; readers sum the rows of a
// dataset, as they summed datasets already. SQLite runs one writer at a time and keeps 0037's keys.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../dialect.ts';
import { type StripeOf, fillTotals, postgresTotalsFunctions } from './0037_stats_totals.ts';

/** Rows per dataset and key: twenty writers of one dataset meet on a row about one time in sixteen. */
export const TOTALS_STRIPES = 16;

const stripeOf: StripeOf = (imageId) => sql`(${imageId} % ${sql.lit(TOTALS_STRIPES)})`;

const KEYS: [string, string[]][] = [
  ['dataset_class_totals', ['dataset_id', 'class_id']],
  ['dataset_image_totals', ['dataset_id', 'objects_bin']],
  ['dataset_size_totals', ['dataset_id', 'width', 'height']],
];

const ids = (names: readonly string[]) => sql.join(names.map((c) => sql.id(c)));

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const [table, keys] of KEYS) {
    await sql`delete from ${sql.id(table)}`.execute(db);
    await sql`alter table ${sql.id(table)} add column stripe integer not null default 0,
      drop constraint ${sql.id(`${table}_pk`)}, add constraint ${sql.id(`${table}_pk`)} primary key (${ids([...keys, 'stripe'])})`.execute(db);
  }
  await fillTotals(db, stripeOf);
  await postgresTotalsFunctions(db, stripeOf);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const [table, keys] of KEYS) {
    await sql`delete from ${sql.id(table)}`.execute(db);
    await sql`alter table ${sql.id(table)} drop constraint ${sql.id(`${table}_pk`)}, drop column stripe,
      add constraint ${sql.id(`${table}_pk`)} primary key (${ids(keys)})`.execute(db);
  }
  await fillTotals(db);
  await postgresTotalsFunctions(db);
}
