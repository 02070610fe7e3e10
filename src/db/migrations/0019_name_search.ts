// Case-insensitive substring search of image names (v2 `nameContains`, the gallery's search), fast at
// a million images. Each database gets a trigram index, built here for the rows already there:
//
// - SQLite: an FTS5 table `image_names` with the trigram tokenizer (case_sensitive 0 folds Unicode
//   case, É to é; diacritics are kept, so café does not find cafe). Its content is images.name
//   itself (external content): the triggers below keep its index in step with every insert, rename
//   and delete, whichever statement or connection makes it.
// - PostgreSQL: a pg_trgm GIN index on lower(name). The extension is created if the database lets
//   us; a server that refuses (no pg_trgm, no right to create it) gets no index, and the same search
//   scans instead: correct, only slower. docs/configuration.md says how to add it later.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../dialect.ts';

/** The schema pg_trgm lives in, or null when it is not installed. */
async function trigramSchema(db: Kysely<unknown>): Promise<string | null> {
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  return rows[0]?.schema ?? null;
}

/** Tries `statement` inside a savepoint, so that a refusal leaves the migration's transaction usable. */
async function attempt(db: Kysely<unknown>, statement: ReturnType<typeof sql>): Promise<boolean> {
  await sql`savepoint name_search`.execute(db);
  try {
    await statement.execute(db);
    await sql`release savepoint name_search`.execute(db);
    return true;
  } catch {
    await sql`rollback to savepoint name_search`.execute(db);
    return false;
  }
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  let schema = await trigramSchema(db);
  if (schema === null) {
    // In `public` when there is one: an extension in a schema of its own would go when that schema is
    // dropped, and with it every index that uses its operators.
    if (!(await attempt(db, sql`create extension if not exists pg_trgm schema public`))) await attempt(db, sql`create extension if not exists pg_trgm`);
    schema = await trigramSchema(db);
  }
  if (schema === null) return;
  await sql`create index images_name_trgm_idx on images using gin (lower(name) ${sql.id(schema, 'gin_trgm_ops')})`.execute(db);
}

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`create virtual table image_names using fts5(name, content='images', content_rowid='id', tokenize='trigram case_sensitive 0')`.execute(db);
  await sql`create trigger images_names_insert after insert on images begin
    insert into image_names (rowid, name) values (new.id, new.name);
  end`.execute(db);
  await sql`create trigger images_names_delete after delete on images begin
    insert into image_names (image_names, rowid, name) values ('delete', old.id, old.name);
  end`.execute(db);
  await sql`create trigger images_names_rename after update of name on images begin
    insert into image_names (image_names, rowid, name) values ('delete', old.id, old.name);
    insert into image_names (rowid, name) values (new.id, new.name);
  end`.execute(db);
  await sql`insert into image_names (image_names) values ('rebuild')`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await (isPostgres(db) ? upPostgres(db) : upSqlite(db));
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop index if exists images_name_trgm_idx`.execute(db);
    return;
  }
  for (const trigger of ['images_names_insert', 'images_names_delete', 'images_names_rename']) await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
  await sql`drop table if exists image_names`.execute(db);
}
