// "Which of these hashes can the team see?" (check-images, uploads, import planning) asks it of
// thousands of hashes at once. With indexes that hold every column the question reads, each hash is
// answered from the index alone instead of also visiting its table row (an image row carries its
// whole annotation). Each new index replaces the narrower one it extends, so writes cost the same.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('images_hash_project_idx').on('images').columns(['hash', 'project_id']).execute();
  await db.schema.dropIndex('images_hash_idx').execute();
  await db.schema
    .createIndex('staged_files_hash_cover_idx')
    .on('staged_files')
    .columns(['hash', 'team_id', 'kind', 'expires_at'])
    .execute();
  await db.schema.dropIndex('staged_files_hash_idx').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('images_hash_idx').on('images').column('hash').execute();
  await db.schema.dropIndex('images_hash_project_idx').execute();
  await db.schema.createIndex('staged_files_hash_idx').on('staged_files').columns(['hash', 'team_id']).execute();
  await db.schema.dropIndex('staged_files_hash_cover_idx').execute();
}
