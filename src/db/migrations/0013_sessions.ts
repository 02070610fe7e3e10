// Browser sessions: the web interface signs in with an API key once and then holds a random token in
// an HttpOnly cookie, so the key itself never sits in the page. Only the token's SHA-256 is stored. A
// session acts as the key it was opened with: revoking the key ends its sessions too.
import type { Kysely } from 'kysely';
import { isPostgres, notNull, withIdColumn } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('sessions'))
    .addColumn('key_id', 'integer', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    // Hex SHA-256 of the token.
    .addColumn('digest', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', notNull)
    .addColumn('expires_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('sessions_key_idx').on('sessions').columns(['key_id', 'expires_at']).execute();
  if (isPostgres(db)) await notifyChangesOf(db, 'sessions');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sessions').execute();
}
