// The values of object tags as images.object_tag_values keeps them: v1 stores an object's tags as
// titles (the contract), so the values live beside the objects, keyed by object id, then tag title:
// `{"3": {"difficult": 0, "pose": "Unspecified"}}`. Only tags with a value are there; an image
// without any is null. Keyed by id, a value stays with its object while edits move, add or remove
// others (ids are never given twice within an image, see services/object-ids.ts).
import type { CanonicalTag, TagValue } from './canonical.ts';

export type ObjectTagValues = Record<string, Record<string, TagValue>>;

/** The stored text for objects numbered 1..n in order (as an import stores them); null when no tag has a value. */
export function objectTagValuesText(objects: readonly { tags: readonly CanonicalTag[] }[]): string | null {
  const values: ObjectTagValues = {};
  let any = false;
  objects.forEach((o, i) => {
    for (const t of o.tags) {
      if (t.value === null) continue;
      (values[String(i + 1)] ??= {})[t.name] = t.value;
      any = true;
    }
  });
  return any ? JSON.stringify(values) : null;
}

export const parseObjectTagValues = (text: string | null): ObjectTagValues => (text === null ? {} : (JSON.parse(text) as ObjectTagValues));

/** An object's tag titles with the values stored for the object of id `id`. */
export function tagsWithValues(titles: readonly string[], values: ObjectTagValues, id: number): CanonicalTag[] {
  const own = values[String(id)];
  return titles.map((name) => ({ name, value: own && Object.hasOwn(own, name) ? own[name]! : null }));
}

/** The stored text with the tag `from` renamed `to`; an object that had both keeps the value of `to`. */
export function renameTagInValues(text: string, from: string, to: string): string {
  const values = parseObjectTagValues(text);
  for (const own of Object.values(values)) {
    if (!Object.hasOwn(own, from)) continue;
    if (!Object.hasOwn(own, to)) own[to] = own[from]!;
    delete own[from];
  }
  return JSON.stringify(values);
}

/** The stored text without the tag `title`; null when no value is left. */
export function removeTagFromValues(text: string, title: string): string | null {
  const values = parseObjectTagValues(text);
  let changed = false;
  for (const [id, own] of Object.entries(values)) {
    if (!Object.hasOwn(own, title)) continue;
    delete own[title];
    changed = true;
    if (Object.keys(own).length === 0) delete values[id];
  }
  if (!changed) return text;
  return Object.keys(values).length > 0 ? JSON.stringify(values) : null;
}

/**
 * The stored text for a copy of the objects, whose ids become 1..n: the values of the object of id
 * `ids[k]` go to id k + 1.
 */
export function renumberObjectTagValues(text: string | null, ids: readonly number[]): string | null {
  if (text === null) return null;
  const values = parseObjectTagValues(text);
  const renumbered: ObjectTagValues = {};
  ids.forEach((id, k) => {
    const own = values[String(id)];
    if (own) renumbered[String(k + 1)] = own;
  });
  return Object.keys(renumbered).length > 0 ? JSON.stringify(renumbered) : null;
}
