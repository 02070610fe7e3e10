// The values of an annotation's tags as a v2 write sets them. A value comes, in this order, from the
// tag given as {name, value} with a value, from the object's (or image's) `tagValues` when the
// request has that member (a tag left out of it then has no value), or else from what the object
// (or image) had: a representation sent back without values keeps the ones an import stored. Every
// value that changes is checked against its tag's value type; a bad one is a 400 pointing at it.
import type { TagValue } from '../formats/canonical.ts';
import type { ObjectTagValues } from '../formats/object-tag-values.ts';
import { invalidAt, pointerOf } from './annotation-input.ts';
import { type ValueRule, valueProblem } from './tag-value-rules.ts';

/** What a request says of one object's (or the image's) tags, and where that is in the request. */
export interface TaggedInput {
  /** The titles it carries after the write. */
  titles: readonly string[];
  /** The raw `tags` member as sent, or undefined when not sent (PATCH). */
  tags?: unknown;
  /** The raw `tagValues` member as sent, or undefined. */
  tagValues?: unknown;
  /** Pointer of the object (or '' for the image) in the request. */
  at: string;
  /** The values it had, by title. */
  before: Readonly<Record<string, TagValue>> | undefined;
}

/** The values of one object or the image, by title, only tags with a value; checked as the module says. */
export function resolveTagValues(input: TaggedInput, rules: ReadonlyMap<string, ValueRule>): Record<string, TagValue> {
  const explicit = new Map<string, { value: TagValue; at: string }>();
  if (Array.isArray(input.tags)) {
    input.tags.forEach((tag: unknown, j) => {
      if (tag !== null && typeof tag === 'object' && 'name' in tag) {
        const { name, value } = tag as { name: string; value?: TagValue };
        if (value !== undefined && value !== null) explicit.set(name, { value, at: `${input.at}/tags/${j}/value` });
      }
    });
  }
  const given = input.tagValues as Record<string, TagValue> | undefined;
  const titles = new Set(input.titles);
  if (given !== undefined) {
    for (const key of Object.keys(given)) {
      if (!titles.has(key)) throw invalidAt(`${input.at}/tagValues${pointerOf([key])}`, `"${key}" is not among the tags given`);
    }
  }
  const values: Record<string, TagValue> = {};
  for (const title of input.titles) {
    const before = input.before && Object.hasOwn(input.before, title) ? input.before[title]! : null;
    let value: TagValue;
    let at: string | null;
    const set = explicit.get(title);
    if (set) ({ value, at } = set);
    else if (given !== undefined) {
      value = Object.hasOwn(given, title) ? given[title]! : null;
      at = `${input.at}/tagValues${pointerOf([title])}`;
    } else {
      value = before;
      at = null;
    }
    if (value === null) continue;
    if (at !== null && value !== before) {
      const rule = rules.get(title);
      const problem = rule ? valueProblem(rule, value) : null;
      if (problem) throw invalidAt(at, problem);
    }
    values[title] = value;
  }
  return values;
}

/** images.object_tag_values for objects of these ids with these values; null when none has a value. */
export function objectTagValuesTextOf(ids: readonly number[], values: readonly Record<string, TagValue>[]): string | null {
  const stored: ObjectTagValues = {};
  let any = false;
  ids.forEach((id, k) => {
    const own = values[k]!;
    if (Object.keys(own).length === 0) return;
    stored[String(id)] = own;
    any = true;
  });
  return any ? JSON.stringify(stored) : null;
}

/** The image tags' values as the representation's `tagValues` text; null when none has a value. */
export function imageTagValuesText(tags: readonly { title: string; value: string | null }[]): string | null {
  const parts = tags.filter((t) => t.value !== null).map((t) => `${JSON.stringify(t.title)}:${t.value}`);
  return parts.length ? `{${parts.join(',')}}` : null;
}
