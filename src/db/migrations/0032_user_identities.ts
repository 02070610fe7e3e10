// Single sign-on identities: a user may be linked to accounts of OpenID Connect providers, each named
// by its issuer and the subject the provider gives it (`sub`, stable and never reassigned by the
// provider). One account of a provider signs in as one user at most (unique issuer and subject).
//
// - user_identities: the link, the email the provider had verified when it was made (what the link
//   was made by, or the new user's email), when it was made and when it last signed in. Nothing of the
//   provider's tokens is kept: the ID token is checked and dropped.
// - users.oidc_subject (0029_accounts), which was to hold one such link in a column and was never
//   written, goes: the table holds any number, with the issuer apart from the subject.
import type { Kysely } from 'kysely';
import { isPostgres, notNull, withIdColumn } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const schema = db.schema;
  await withIdColumn(db, schema.createTable('user_identities'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('issuer', 'text', notNull)
    .addColumn('subject', 'text', notNull)
    .addColumn('email', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('last_used_at', 'text', notNull)
    .addUniqueConstraint('user_identities_issuer_subject_unique', ['issuer', 'subject'])
    .execute();
  await schema.createIndex('user_identities_user_idx').on('user_identities').column('user_id').execute();
  if (isPostgres(db)) await notifyChangesOf(db, 'user_identities');

  await schema.dropIndex('users_oidc_subject_unique').execute();
  await schema.alterTable('users').dropColumn('oidc_subject').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const schema = db.schema;
  await schema.alterTable('users').addColumn('oidc_subject', 'text').execute();
  await schema.createIndex('users_oidc_subject_unique').on('users').column('oidc_subject').unique().execute();
  await schema.dropTable('user_identities').execute();
}
