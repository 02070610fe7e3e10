// The whole v1 data model. Written with the schema builder so both dialects get the same tables.
import type { Kysely } from 'kysely';
import { notNull, withIdColumn } from '../dialect.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const schema = db.schema;

  await withIdColumn(db, schema.createTable('teams'))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', notNull)
    .execute();

  await withIdColumn(db, schema.createTable('users'))
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('login', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addUniqueConstraint('users_team_login_unique', ['team_id', 'login'])
    .execute();

  await withIdColumn(db, schema.createTable('api_keys'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('prefix', 'text', notNull)
    .addColumn('digest', 'text', (c) => c.notNull().unique())
    .addColumn('read_only', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', notNull)
    .addColumn('revoked_at', 'text')
    .execute();
  await schema.createIndex('api_keys_prefix_idx').on('api_keys').column('prefix').execute();

  await withIdColumn(db, schema.createTable('projects'))
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('title', 'text', notNull)
    .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await schema.createIndex('projects_team_idx').on('projects').columns(['team_id', 'id']).execute();

  await withIdColumn(db, schema.createTable('classes'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('title', 'text', notNull)
    .addColumn('shape', 'text', notNull)
    .addColumn('color', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addUniqueConstraint('classes_project_title_unique', ['project_id', 'title'])
    .execute();

  await withIdColumn(db, schema.createTable('project_tags'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('scope', 'text', notNull)
    .addColumn('title', 'text', notNull)
    .addColumn('hotkey', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addUniqueConstraint('project_tags_scope_title_unique', ['project_id', 'scope', 'title'])
    .execute();

  await withIdColumn(db, schema.createTable('datasets'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('title', 'text', notNull)
    .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addUniqueConstraint('datasets_project_title_unique', ['project_id', 'title'])
    .execute();

  await schema
    .createTable('blobs')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('size', 'bigint', notNull)
    .addColumn('media_type', 'text', notNull)
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('created_at', 'text', notNull)
    .execute();

  await withIdColumn(db, schema.createTable('images'))
    .addColumn('dataset_id', 'integer', (c) => c.notNull().references('datasets.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', notNull)
    .addColumn('hash', 'text', (c) => c.notNull().references('blobs.hash'))
    .addColumn('size', 'bigint', notNull)
    .addColumn('width', 'integer', notNull)
    .addColumn('height', 'integer', notNull)
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('objects_json', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addUniqueConstraint('images_dataset_name_unique', ['dataset_id', 'name'])
    .execute();
  await schema.createIndex('images_project_idx').on('images').columns(['project_id', 'id']).execute();
  await schema.createIndex('images_dataset_idx').on('images').columns(['dataset_id', 'id']).execute();
  await schema.createIndex('images_hash_idx').on('images').column('hash').execute();

  await schema
    .createTable('image_tags')
    .addColumn('image_id', 'integer', (c) => c.notNull().references('images.id').onDelete('cascade'))
    .addColumn('tag_id', 'integer', (c) => c.notNull().references('project_tags.id').onDelete('cascade'))
    .addColumn('value', 'text')
    .addPrimaryKeyConstraint('image_tags_pk', ['image_id', 'tag_id'])
    .execute();
  await schema.createIndex('image_tags_tag_idx').on('image_tags').column('tag_id').execute();

  await schema
    .createTable('object_tag_refs')
    .addColumn('image_id', 'integer', (c) => c.notNull().references('images.id').onDelete('cascade'))
    .addColumn('tag_id', 'integer', (c) => c.notNull().references('project_tags.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('object_tag_refs_pk', ['image_id', 'tag_id'])
    .execute();
  await schema.createIndex('object_tag_refs_tag_idx').on('object_tag_refs').column('tag_id').execute();

  await schema
    .createTable('staged_files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('kind', 'text', notNull)
    .addColumn('format', 'text', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('hash', 'text', (c) => c.notNull().references('blobs.hash'))
    .addColumn('size', 'bigint', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('expires_at', 'text', notNull)
    .execute();
  await schema.createIndex('staged_files_hash_idx').on('staged_files').columns(['hash', 'team_id']).execute();
  await schema.createIndex('staged_files_expiry_idx').on('staged_files').column('expires_at').execute();

  await withIdColumn(db, schema.createTable('tasks'))
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('type', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('meta', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('input', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', notNull)
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('stop_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await schema.createIndex('tasks_team_idx').on('tasks').columns(['team_id', 'id']).execute();
  await schema.createIndex('tasks_status_idx').on('tasks').columns(['status', 'id']).execute();

  await withIdColumn(db, schema.createTable('architectures'))
    .addColumn('title', 'text', notNull)
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('category_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('train_image', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('inference_image', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('deploy_image', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();

  await withIdColumn(db, schema.createTable('models'))
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('architecture_id', 'integer', (c) => c.notNull().references('architectures.id'))
    .addColumn('title', 'text', notNull)
    .addColumn('bucket', 'text', notNull)
    .addColumn('object_name', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await schema.createIndex('models_team_idx').on('models').columns(['team_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'models', 'architectures', 'tasks', 'staged_files', 'object_tag_refs', 'image_tags', 'images',
    'blobs', 'datasets', 'project_tags', 'classes', 'projects', 'api_keys', 'users', 'teams',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
