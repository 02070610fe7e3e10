// API v2 gives every key a scope (`read`, `write` or `admin`) and remembers the answers to creates sent
// with an Idempotency-Key, so that a client retrying a create after a lost answer gets the first one.
//
// Keys made before were read-only or read-write: they become `read` and `write`; the start-up key
// (the default team's admin user) becomes `admin`, as a new start-up key is.
import { type Kysely, sql } from 'kysely';
import { isPostgres, notNull } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('scope', 'text', (c) => c.notNull().defaultTo('write')).execute();
  await sql`update api_keys set scope = 'read' where read_only = 1`.execute(db);
  await sql`update api_keys set scope = 'admin' where read_only = 0 and user_id in (
      select u.id from users u join teams t on t.id = u.team_id where t.name = 'default' and u.login = 'admin')`.execute(db);

  await db.schema
    .createTable('idempotent_requests')
    .addColumn('key_id', 'integer', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text', notNull)
    // Method, path and a digest of the body: a key reused for another request is refused.
    .addColumn('fingerprint', 'text', notNull)
    // Null while the first request is being answered.
    .addColumn('status', 'integer')
    // JSON of the answer's headers worth repeating (content-type, etag, location).
    .addColumn('headers', 'text')
    .addColumn('body', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('expires_at', 'text', notNull)
    .addPrimaryKeyConstraint('idempotent_requests_pk', ['key_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotent_requests_expiry_idx').on('idempotent_requests').column('expires_at').execute();
  if (isPostgres(db)) await notifyChangesOf(db, 'idempotent_requests');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotent_requests').execute();
  await db.schema.alterTable('api_keys').dropColumn('scope').execute();
}
