// Rewrites the stored annotation objects of images one image at a time, without overwriting what
// another writer changed meanwhile: the rewrite of a class or a figure tag across a project. A rewrite
// that takes objects out (a class deleted with its objects) keeps the stable ids of the others.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { type AnnotationObject, serializeObjects } from '../formats/canonical.ts';
import { findAnnotation, findObjectIds, replaceObjectsAndIds } from '../repositories/image-annotation.repository.ts';
import { objectsJsonOf, replaceObjectsJson } from '../repositories/tags.repository.ts';
import { type RevisionAuthor, recordRevision, snapshotOf } from './annotation-revisions.service.ts';
import type { AnnotationSnapshot } from './annotation-snapshots.ts';
import { keptObjectIds, nextObjectIdOf, objectIdsInStep, storedObjectIds } from './object-ids.ts';

/** Attempts at one image before giving up, should other writers keep changing its objects. */
const REWRITE_ATTEMPTS = 10;

/**
 * The new objects of an image, or null to leave them as they are. Called again with the fresh objects
 * when another writer changed them between the read and the write.
 */
export type ObjectsChange = (objects: AnnotationObject[]) => AnnotationObject[] | null;

/** Who a rewrite's revisions name, and how many an image keeps (annotation-revisions.service.ts). */
export interface RewriteRevisions {
  author: RevisionAuthor;
  keep: number;
}

/**
 * Applies `change` to the objects of each image; `images` carry the objects as read. With `revisions`,
 * each image rewritten gets a revision. Answers the ids of the images rewritten.
 */
export async function rewriteImageObjects(
  db: Kysely<Database>,
  images: readonly { id: number; objectsJson: string }[],
  change: ObjectsChange,
  revisions?: RewriteRevisions,
): Promise<number[]> {
  const rewritten: number[] = [];
  for (const image of images) {
    let current: string | undefined = image.objectsJson;
    for (let attempt = 0; current !== undefined; attempt += 1) {
      if (attempt === REWRITE_ATTEMPTS) throw new Error(`objects of image ${image.id} kept changing during a rewrite`);
      // A revision needs the whole state before: read with the objects it is of.
      const before = revisions ? await stateBefore(db, revisions.author.teamId, image.id) : undefined;
      if (before) current = before.objectsJson;
      const objects = JSON.parse(current) as AnnotationObject[];
      const next = change(objects);
      if (next === null) break;
      const written = await replaceObjects(db, image.id, current, objects, next);
      if (written) {
        if (revisions && before) {
          const after = { objectsJson: written.objectsJson, objectIds: written.objectIds === undefined ? before.objectIds : written.objectIds, objectTagValues: before.objectTagValues };
          await recordRevision(db, revisions.keep, revisions.author, image.id, before, after);
        }
        rewritten.push(image.id);
        break;
      }
      current = await objectsJsonOf(db, image.id);
    }
  }
  return rewritten;
}

async function stateBefore(db: Kysely<Database>, teamId: number, imageId: number): Promise<AnnotationSnapshot | undefined> {
  const stored = await findAnnotation(db, teamId, imageId);
  return stored && snapshotOf(stored);
}

/**
 * Writes `next` in place of `objects` (stored as `current`) unless another writer changed them first,
 * and answers what it wrote (null when it did not; no `objectIds` when the ids stayed). As many objects
 * as before are the same objects, changed in place, and keep their ids; fewer are those kept, and the
 * ids are written again to match.
 */
async function replaceObjects(
  db: Kysely<Database>,
  imageId: number,
  current: string,
  objects: AnnotationObject[],
  next: AnnotationObject[],
): Promise<{ objectsJson: string; objectIds?: string | null } | null> {
  const objectsJson = serializeObjects(next);
  if (next.length === objects.length) return (await replaceObjectsJson(db, imageId, current, objectsJson)) ? { objectsJson } : null;
  // Read apart from the objects: ids of another state of them are told apart by their number, or
  // else by the write, which expects both as read.
  const stored = await findObjectIds(db, imageId);
  const before = stored && objectIdsInStep(stored.objectIds, objects.length);
  if (!stored || !before) return null;
  const ids = storedObjectIds(keptObjectIds(objects, next, before), nextObjectIdOf(stored.nextObjectId, objects.length));
  const done = await replaceObjectsAndIds(db, imageId, { objectsJson: current, objectIds: stored.objectIds }, { objectsJson, ...ids });
  return done ? { objectsJson, objectIds: ids.objectIds } : null;
}
