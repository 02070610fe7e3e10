// Token buckets of the rate limits, shared by every replica on one PostgreSQL (postgres-buckets.ts).
// UNLOGGED: a charge writes no WAL and so commits without waiting for a flush; a crash empties the
// table, which only gives every key a full bucket. No change notifications: no cache reads it, and
// a charge per request must not make every replica drop its cached answers. SQLite serves from one
// process, whose buckets stay in memory: no table there.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../dialect.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await db.schema
    .createTable('rate_buckets')
    .modifyFront(sql`unlogged`)
    // `requests:<key id>`, `bytes:<key id>`, `sign-in:<address>`.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tokens', 'double precision', (c) => c.notNull())
    // When `tokens` was counted (the database's clock, ms since the epoch).
    .addColumn('at_ms', 'double precision', (c) => c.notNull())
    // The rule of the last charge, so that a sweep can tell a full bucket without knowing the rules.
    .addColumn('per_second', 'double precision', (c) => c.notNull())
    .addColumn('burst', 'double precision', (c) => c.notNull())
    // Whether the last charge was admitted (what the charge's RETURNING reads).
    .addColumn('admitted', 'boolean', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) await db.schema.dropTable('rate_buckets').execute();
}
