// What a DTL graph reads of the team's projects, and what its supervisely output writes: a new
// project with its classes, tags and images.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import type { Database } from '../db/types.ts';
import type { ClassDefinition, TagDefinition, TagValue } from '../formats/canonical.ts';
import { insertClass } from './classes.repository.ts';
import { type NewImageInput, insertImage } from './images.repository.ts';
import { insertProject } from './projects.repository.ts';

/** The team's projects of this exact title, in id order (titles may repeat). */
export async function projectsTitled(db: Kysely<Database>, teamId: number, title: string): Promise<{ id: number; title: string }[]> {
  return db.selectFrom('projects').select(['id', 'title']).where('team_id', '=', teamId).where('title', '=', title).orderBy('id').execute();
}

/** The team's project of this id, or undefined (another team's project is as absent as a missing one). */
export async function teamProject(db: Kysely<Database>, teamId: number, id: number): Promise<{ id: number; title: string } | undefined> {
  return db.selectFrom('projects').select(['id', 'title']).where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
}

/** A new project of the team with its classes and tags; answers its id and its tags' ids by `<scope>/<title>`. */
export async function insertOutputProject(
  db: Kysely<Database>,
  teamId: number,
  title: string,
  classes: readonly ClassDefinition[],
  tags: readonly TagDefinition[],
  createdBy: number | null,
): Promise<{ projectId: number; tagIds: Map<string, number> }> {
  const projectId = await insertProject(db, teamId, title);
  const now = isoNow();
  for (const c of classes) await insertClass(db, projectId, c);
  const tagIds = new Map<string, number>();
  for (const t of tags) {
    const row = await db
      .insertInto('project_tags')
      .values({ project_id: projectId, scope: t.scope, title: t.title, hotkey: '', value_type: t.valueType, possible_values: t.valueType === 'oneof_string' && t.values?.length ? JSON.stringify(t.values) : null, created_by: createdBy, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    tagIds.set(`${t.scope}/${t.title}`, row.id);
  }
  return { projectId, tagIds };
}

/** The size of a stored blob, or undefined when the store has no row for it. */
export async function blobSize(db: Kysely<Database>, hash: string): Promise<number | undefined> {
  const row = await db.selectFrom('blobs').select('size').where('hash', '=', hash).executeTakeFirst();
  return row === undefined ? undefined : Number(row.size);
}

/** One image of an output project with its image tags and the figure tags its objects use. */
export async function insertOutputImage(
  db: Kysely<Database>,
  image: NewImageInput,
  imageTags: readonly { tagId: number; value: TagValue }[],
  figureTagIds: readonly number[],
): Promise<number> {
  const imageId = await insertImage(db, image);
  if (imageTags.length) await db.insertInto('image_tags').values(imageTags.map((t) => ({ image_id: imageId, tag_id: t.tagId, value: t.value === null ? null : JSON.stringify(t.value) }))).execute();
  if (figureTagIds.length) await db.insertInto('object_tag_refs').values(figureTagIds.map((tagId) => ({ image_id: imageId, tag_id: tagId }))).execute();
  return imageId;
}
