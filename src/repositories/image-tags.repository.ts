// Tags attached to whole images (scope `images`).
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';

export async function listImageTags(db: Kysely<Database>, imageId: number): Promise<{ id: number; title: string }[]> {
  return db
    .selectFrom('image_tags')
    .innerJoin('project_tags', 'project_tags.id', 'image_tags.tag_id')
    .select(['project_tags.id', 'project_tags.title'])
    .where('image_tags.image_id', '=', imageId)
    .where('project_tags.scope', '=', 'images')
    .orderBy('project_tags.id')
    .execute();
}

/** Attaches the tag; attaching it again leaves the one attachment there is. */
export async function attachTag(db: Kysely<Database>, imageId: number, tagId: number): Promise<void> {
  await db
    .insertInto('image_tags')
    .values({ image_id: imageId, tag_id: tagId, value: null })
    .onConflict((oc) => oc.columns(['image_id', 'tag_id']).doNothing())
    .execute();
}

export async function detachTags(db: Kysely<Database>, imageId: number, tagIds: number[]): Promise<void> {
  if (tagIds.length === 0) return;
  await db.deleteFrom('image_tags').where('image_id', '=', imageId).where('tag_id', 'in', tagIds).execute();
}
