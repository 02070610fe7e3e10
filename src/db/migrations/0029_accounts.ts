// Accounts: the users of a team sign in with a login and a password (or single sign-on) and hold a
// team role; an admin invites them and resets their passwords by one-time links.
//
// - users: `role` (owner, admin or member), an optional `email`, `password_hash` (scrypt, with its
//   parameters: see src/services/passwords.ts; null until the user has set one), `disabled_at` (a
//   disabled user's keys and sessions stop at once) and `oidc_subject` (issuer and subject of the
//   single sign-on account the user is linked to).
//   Existing users keep their keys. Each team's first user becomes its owner; a user holding an
//   active admin-scope key becomes an admin; the others are members. None has a password yet: an
//   admin sends them a link to set one (or they go on signing in with a key).
// - api_keys.kind: `api` for the keys programs present; `sign-in` for the one key per user that a
//   password or single sign-on session acts through. A sign-in key has no secret anybody was ever
//   given, is never listed, and is refused when presented: it exists so that everything kept per key
//   (audit rows, Idempotency-Key answers, rate-limit buckets) works the same for people and programs.
// - sessions: how the session was opened (`key`, `password`, `oidc`, `link`), and from where, to list
//   them for their user.
// - user_links: one-time links to set a password (an invitation or a reset). Only the SHA-256 of the
//   token is stored; a link ends when used, when it expires, or when a newer one of the user replaces it.
import { type Kysely, sql } from 'kysely';
import { isPostgres, notNull, withIdColumn } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const schema = db.schema;
  await schema.alterTable('users').addColumn('role', 'text', (c) => c.notNull().defaultTo('member')).execute();
  await schema.alterTable('users').addColumn('email', 'text').execute();
  await schema.alterTable('users').addColumn('password_hash', 'text').execute();
  await schema.alterTable('users').addColumn('disabled_at', 'text').execute();
  await schema.alterTable('users').addColumn('oidc_subject', 'text').execute();
  await schema.createIndex('users_oidc_subject_unique').on('users').column('oidc_subject').unique().execute();
  await sql`update users set role = 'admin' where id in (
    select user_id from api_keys where scope = 'admin' and revoked_at is null)`.execute(db);
  await sql`update users set role = 'owner' where id in (select min(id) from users group by team_id)`.execute(db);

  await schema.alterTable('api_keys').addColumn('kind', 'text', (c) => c.notNull().defaultTo('api')).execute();

  await schema.alterTable('sessions').addColumn('method', 'text', (c) => c.notNull().defaultTo('key')).execute();
  await schema.alterTable('sessions').addColumn('address', 'text').execute();
  await schema.alterTable('sessions').addColumn('user_agent', 'text').execute();

  await withIdColumn(db, schema.createTable('user_links'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // `invitation` (the user has no password yet) or `reset`.
    .addColumn('purpose', 'text', notNull)
    // Hex SHA-256 of the token.
    .addColumn('digest', 'text', (c) => c.notNull().unique())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', notNull)
    .addColumn('expires_at', 'text', notNull)
    .addColumn('used_at', 'text')
    .execute();
  await schema.createIndex('user_links_user_idx').on('user_links').column('user_id').execute();
  if (isPostgres(db)) await notifyChangesOf(db, 'user_links');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const schema = db.schema;
  await schema.dropTable('user_links').execute();
  await sql`delete from api_keys where kind = 'sign-in'`.execute(db);
  for (const column of ['user_agent', 'address', 'method']) await schema.alterTable('sessions').dropColumn(column).execute();
  await schema.alterTable('api_keys').dropColumn('kind').execute();
  await schema.dropIndex('users_oidc_subject_unique').execute();
  for (const column of ['oidc_subject', 'disabled_at', 'password_hash', 'email', 'role']) await schema.alterTable('users').dropColumn(column).execute();
}
