// PostgreSQL keeps an image's objects (a few kilobytes of JSON) compressed out of line, and every
// annotation page decompresses a thousand of them. lz4 decompresses several times faster than the
// default pglz at a similar size, so new and rewritten rows use it where the server was built with it.
// Rows written before keep pglz until they are next written; both read the same. SQLite stores text
// as it is: nothing to do there.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../dialect.ts';

async function lz4Available(db: Kysely<unknown>): Promise<boolean> {
  const { rows } = await sql<{ ok: boolean }>`
    select 'lz4' = any(enumvals) as ok from pg_settings where name = 'default_toast_compression'`.execute(db);
  return rows[0]?.ok === true;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db) || !(await lz4Available(db))) return;
  await sql`alter table images alter column objects_json set compression lz4`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`alter table images alter column objects_json set compression default`.execute(db);
}
