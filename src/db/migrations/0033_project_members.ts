// Project roles: a member of a team works in a project as its manager, reviewer, annotator or viewer
// (team owners and admins manage every project; docs/accounts.md#project-roles).
//
// - project_members (project, user, role): a member's role in one project.
// - projects.member_default_role: the role of a team member who has no row in project_members, or
//   null for none (the project is hidden from them). Existing projects get `manager`, so every key of
//   an existing member does what it did before; projects made after this migration get `viewer`
//   unless their creator says otherwise.
import { type Kysely, sql } from 'kysely';
import { isPostgres, notNull } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const schema = db.schema;
  await schema.alterTable('projects').addColumn('member_default_role', 'text').execute();
  await sql`update projects set member_default_role = 'manager'`.execute(db);
  await schema
    .createTable('project_members')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addPrimaryKeyConstraint('project_members_pk', ['project_id', 'user_id'])
    .execute();
  await schema.createIndex('project_members_user_idx').on('project_members').column('user_id').execute();
  if (isPostgres(db)) await notifyChangesOf(db, 'project_members');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('project_members').execute();
  await db.schema.alterTable('projects').dropColumn('member_default_role').execute();
}
