// The audit trail: one row per write request (POST, PUT, PATCH, DELETE under /v1 and /v2) of an
// authenticated caller, failed ones included: who (team, user, key and the key's public prefix), what
// (method, route pattern, the ids in the path), when, and the answer's status. Rows are kept
// AUDIT_RETENTION_DAYS and then removed by a worker.
//
// No foreign keys: a row records what happened and must outlive (and never hold up) a change to the
// key or user it names. No change notifications either: nothing keeps answers read from this table,
// and a notification per write request would only move every server's change stamp.
import type { Kysely } from 'kysely';
import { notNull, withIdColumn } from '../dialect.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('audit'))
    .addColumn('at', 'text', notNull)
    .addColumn('team_id', 'integer', notNull)
    .addColumn('user_id', 'integer', notNull)
    .addColumn('key_id', 'integer', notNull)
    .addColumn('key_prefix', 'text', notNull)
    .addColumn('method', 'text', notNull)
    .addColumn('route', 'text', notNull)
    // JSON of the route's path parameters (`{"id":12}`), or null when it has none.
    .addColumn('params', 'text')
    .addColumn('status', 'integer', notNull)
    .addColumn('request_id', 'text', notNull)
    .addColumn('duration_ms', 'integer', notNull)
    .execute();
  // A team's rows newest first (GET /v2/audit), and the retention sweep by age.
  await db.schema.createIndex('audit_team_idx').on('audit').columns(['team_id', 'id']).execute();
  await db.schema.createIndex('audit_at_idx').on('audit').column('at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit').execute();
}
