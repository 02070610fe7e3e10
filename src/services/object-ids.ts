// The stable ids of an image's objects. An id is unique within its image and never given twice there:
// removing an object leaves the others' ids as they were, and a new object gets the next id, which
// only ever grows. Stored beside the objects as images.object_ids and images.next_object_id, both null
// while they say nothing more than "1..n, next n + 1" (every imported image).
import type { AnnotationObject } from '../formats/canonical.ts';

/** The ids of the `count` stored objects, in their order. */
export function objectIdsOf(stored: string | null, count: number): number[] {
  if (stored === null) return Array.from({ length: count }, (_, i) => i + 1);
  const ids = JSON.parse(stored) as number[];
  // Whatever rewrites the objects keeps their number and order (a tag rename) or writes the ids too:
  // a list out of step would give objects the ids of others, which is worse than failing.
  if (!Array.isArray(ids) || ids.length !== count) throw new Error(`stored object ids (${ids.length}) out of step with the objects (${count})`);
  return ids;
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
