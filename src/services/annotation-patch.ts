// A PATCH of an annotation applied to its objects: objects added, changed by id (the members given)
// and removed by id. Only the objects added or changed are read again, by the reader the import uses;
// the others stay as stored. Problems point into the patch (`/change/0/points/exterior`).
import { type AnnotationObject, type ClassShape, toAnnotationObject } from '../formats/canonical.ts';
import { MAX_OBJECTS_PER_ANNOTATION } from '../formats/supervisely/index.ts';
import { type PathStep, invalidAt, pointerOf, readAnnotation } from './annotation-input.ts';
import type { IdentifiedObjects } from './object-ids.ts';

export interface AnnotationPatch {
  add?: unknown[];
  change?: ({ id: number } & Record<string, unknown>)[];
  remove?: number[];
}

/** The patched objects, and where each one's tag list is in the request (to point at a bad tag). */
export interface PatchedObjects extends IdentifiedObjects {
  tagsAt: (index: number) => string;
  /** For each object the patch left alone, its index among the stored ones; -1 for the others. */
  from: number[];
  /** What the patch says of object `index`'s tags and tag values (its members as sent, and where); null when it left them alone. */
  objectValues: (index: number) => { tags?: unknown; tagValues?: unknown; at: string } | null;
}

/** Members a change may set: those of an object as v1 shows it (and the reader's geometryType). */
const CHANGEABLE = new Set(['classTitle', 'description', 'tags', 'tagValues', 'bitmap', 'points', 'geometryType']);

/** The object without v2's tagValues, which the reader does not take. */
const withoutValues = (o: unknown): unknown => {
  if (o === null || typeof o !== 'object' || !('tagValues' in o)) return o;
  const rest = { ...(o as Record<string, unknown>) };
  delete rest.tagValues;
  return rest;
};

/**
 * Applies `patch` to the current objects. Removals and changes name ids of the image, each at most
 * once; new objects get the next ids, in the order given.
 */
export function applyPatch(
  current: IdentifiedObjects,
  patch: AnnotationPatch,
  size: { width: number; height: number },
  classes: ReadonlyMap<string, ClassShape>,
): PatchedObjects {
  const known = new Set(current.ids);
  const named = new Set<number>();
  const name = (id: number, at: string) => {
    if (!known.has(id)) throw invalidAt(at, `no object of the image has id ${id}`);
    if (named.has(id)) throw invalidAt(at, `object ${id} is named twice in the patch`);
    named.add(id);
  };
  const removed = new Set<number>();
  (patch.remove ?? []).forEach((id, i) => {
    name(id, `/remove/${i}`);
    removed.add(id);
  });
  const changes = new Map<number, { fields: Record<string, unknown>; at: string }>();
  (patch.change ?? []).forEach((change, i) => {
    name(change.id, `/change/${i}/id`);
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(change)) {
      if (key === 'id') continue;
      if (!CHANGEABLE.has(key)) throw invalidAt(`/change/${i}/${key}`, 'is not a member of an object');
      fields[key] = value;
    }
    changes.set(change.id, { fields, at: `/change/${i}` });
  });
  const added = patch.add ?? [];
  added.forEach((o, i) => {
    if (o !== null && typeof o === 'object' && 'id' in o) throw invalidAt(`/add/${i}/id`, 'a new object gets its id from the server; leave it out');
  });
  const count = current.objects.length - removed.size + added.length;
  if (count > MAX_OBJECTS_PER_ANNOTATION) throw invalidAt('/add', `the annotation would have ${count} objects; at most ${MAX_OBJECTS_PER_ANNOTATION} are allowed`);

  // Read again: each changed object as stored with the change applied, then the new ones.
  const toRead: unknown[] = [];
  const origins: string[] = [];
  current.ids.forEach((id, k) => {
    const change = changes.get(id);
    if (!change) return;
    toRead.push(withoutValues({ ...current.objects[k], ...change.fields }));
    origins.push(change.at);
  });
  added.forEach((o, i) => {
    toRead.push(withoutValues(o));
    origins.push(`/add/${i}`);
  });
  const locate = (steps: PathStep[]) =>
    steps[0] === 'objects' && typeof steps[1] === 'number' ? origins[steps[1]]! + pointerOf(steps.slice(2)) : pointerOf(steps);
  const read = readAnnotation({ size, objects: toRead }, classes, locate).objects;

  const objects: AnnotationObject[] = [];
  const ids: number[] = [];
  const tagsAt: string[] = [];
  const from: number[] = [];
  const values: ({ tags?: unknown; tagValues?: unknown; at: string } | null)[] = [];
  let r = 0;
  current.ids.forEach((id, k) => {
    if (removed.has(id)) return;
    const change = changes.get(id);
    objects.push(change ? toAnnotationObject(read[r++]!) : current.objects[k]!);
    ids.push(id);
    from.push(change ? -1 : k);
    tagsAt.push(change ? `${change.at}/tags` : `/objects/${k}/tags`);
    const touchesTags = change && ('tags' in change.fields || 'tagValues' in change.fields);
    values.push(touchesTags ? { tags: change.fields.tags, tagValues: change.fields.tagValues, at: change.at } : null);
  });
  let next = current.next;
  added.forEach((_, i) => {
    objects.push(toAnnotationObject(read[r++]!));
    ids.push(next++);
    from.push(-1);
    tagsAt.push(`/add/${i}/tags`);
    const o = added[i] as Record<string, unknown>;
    values.push({ tags: o.tags, tagValues: o.tagValues, at: `/add/${i}` });
  });
  return { objects, ids, next, from, tagsAt: (i) => tagsAt[i]!, objectValues: (i) => values[i]! };
}
