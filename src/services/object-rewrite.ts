// Rewrites the stored annotation objects of images one image at a time, without overwriting what
// another writer changed meanwhile: the rewrite of a class or a figure tag across a project.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { type AnnotationObject, serializeObjects } from '../formats/canonical.ts';
import { objectsJsonOf, replaceObjectsJson } from '../repositories/tags.repository.ts';

/** Attempts at one image before giving up, should other writers keep changing its objects. */
const REWRITE_ATTEMPTS = 10;

/**
 * The new objects of an image, or null to leave them as they are. Called again with the fresh objects
 * when another writer changed them between the read and the write.
 */
export type ObjectsChange = (objects: AnnotationObject[]) => AnnotationObject[] | null;

/** Applies `change` to the objects of each image; `images` carry the objects as read. */
export async function rewriteImageObjects(
  db: Kysely<Database>,
  images: readonly { id: number; objectsJson: string }[],
  change: ObjectsChange,
): Promise<void> {
  for (const image of images) {
    let current: string | undefined = image.objectsJson;
    for (let attempt = 0; current !== undefined; attempt += 1) {
      if (attempt === REWRITE_ATTEMPTS) throw new Error(`objects of image ${image.id} kept changing during a rewrite`);
      const next = change(JSON.parse(current) as AnnotationObject[]);
      if (next === null || (await replaceObjectsJson(db, image.id, current, serializeObjects(next)))) break;
      current = await objectsJsonOf(db, image.id);
    }
  }
}
