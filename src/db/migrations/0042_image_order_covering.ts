// A project's list by object count or by name, and any position deep in it (an offset: the gallery's
// scrollbar dragged to the middle), walk (project_id, object_count, id) or (project_id, name, id). The
// walk must also leave out the images of hidden datasets (hidden-datasets.ts), and those indexes did
// not hold the dataset: every image stepped over was read from its table row, which carries the whole
// annotation (an offset of 500,000 read 500,000 rows). Each index now ends with dataset_id, so the walk
// reads the index alone. Each replaces the index it extends under the same name: a write updates as
// many indexes as before, each entry one integer wider.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../dialect.ts';

const WIDENED: [name: string, before: string[]][] = [
  ['images_project_objects_idx', ['project_id', 'object_count', 'id']],
  ['images_project_name_idx', ['project_id', 'name', 'id']],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, columns] of WIDENED) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(name).on('images').columns([...columns, 'dataset_id']).execute();
  }
  await analyzeNewIndexes(db);
}

/**
 * A SQLite database that was analysed (sqlite_stat1) lost the statistics of the dropped indexes, and
 * SQLite takes an index without them for a narrow one: it then chose these indexes for every list of
 * a project and sorted the whole project (a page of a class went from 2 ms to 500 ms at a million
 * images). Analysing the new indexes alone puts back what the old ones had. A database never analysed
 * stays so. PostgreSQL plans from the table's statistics.
 */
async function analyzeNewIndexes(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  const analysed = await sql`select name from sqlite_master where name = 'sqlite_stat1'`.execute(db);
  if (analysed.rows.length === 0) return;
  for (const [name] of WIDENED) await sql`analyze ${sql.id(name)}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name, columns] of WIDENED) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(name).on('images').columns(columns).execute();
  }
  await analyzeNewIndexes(db);
}
