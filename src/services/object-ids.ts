// The stable ids of an image's objects. An id is unique within its image and never given twice there:
// removing an object leaves the others' ids as they were, and a new object gets the next id, which
// only ever grows. Stored beside the objects as images.object_ids and images.next_object_id, both null
// while they say nothing more than "1..n, next n + 1" (every imported image).
import type { AnnotationObject } from '../formats/canonical.ts';

/** The ids of the `count` stored objects, in their order. */
export function objectIdsOf(stored: string | null, count: number): number[] {
  const ids = objectIdsInStep(stored, count);
  // Whatever rewrites the objects keeps their number and order (a tag rename) or writes the ids too:
  // a list out of step would give objects the ids of others, which is worse than failing.
  if (!ids) throw new Error(`stored object ids out of step with the ${count} objects`);
  return ids;
}

/** The ids of the `count` stored objects, or null when `stored` was read with other objects. */
export function objectIdsInStep(stored: string | null, count: number): number[] | null {
  if (stored === null) return Array.from({ length: count }, (_, i) => i + 1);
  const ids = JSON.parse(stored) as unknown;
  return Array.isArray(ids) && ids.length === count ? (ids as number[]) : null;
}

/** The id the next new object of an image of `count` stored objects gets. */
export function nextObjectIdOf(stored: number | null, count: number): number {
  return stored ?? count + 1;
}

/** The column values that store `ids` and `next`: nulls when they are what nulls stand for. */
export function storedObjectIds(ids: readonly number[], next: number): { objectIds: string | null; nextObjectId: number | null } {
  const plain = next === ids.length + 1 && ids.every((id, i) => id === i + 1);
  return plain ? { objectIds: null, nextObjectId: null } : { objectIds: JSON.stringify(ids), nextObjectId: next };
}

/** An image's objects, their ids in the same order, and the id the next new object gets. */
export interface IdentifiedObjects {
  objects: AnnotationObject[];
  ids: number[];
  next: number;
}

/**
 * The ids of the objects a change kept, when it only took some out (as a filter does: the objects
 * kept are the very ones it was given, in their order). A change that makes or reorders objects must
 * give their ids itself: it is refused here rather than let ids move to other objects.
 */
export function keptObjectIds(before: readonly AnnotationObject[], after: readonly AnnotationObject[], ids: readonly number[]): number[] {
  const kept: number[] = [];
  let k = 0;
  for (const object of after) {
    while (k < before.length && before[k] !== object) k += 1;
    if (k === before.length) throw new Error('a rewrite that adds or reorders objects must say which ids they have');
    kept.push(ids[k]!);
    k += 1;
  }
  return kept;
}
