// What a tag's value may be, by the tag's value type (Supervisely's: none, any_number, any_string,
// oneof_string with its list of values), and what a list of possible values must be.
import type { TagValue, TagValueType } from '../formats/canonical.ts';
import { invalidAt } from './annotation-input.ts';

/** The most values a oneof_string tag may list, and the longest one: far more than a pick list shows. */
export const MAX_TAG_VALUES = 500;
export const MAX_TAG_VALUE_LENGTH = 255;
/** The longest value of an any_string tag (a note, a plate number, an OCR line). */
export const MAX_TEXT_VALUE_LENGTH = 4096;

/** A tag as its values are checked against it. */
export interface ValueRule {
  title: string;
  valueType: TagValueType;
  /** A oneof_string tag's possible values; null when it has no list (then any text is taken). */
  values: readonly string[] | null;
}

/**
 * The possible values a tag of `valueType` is given: a non-empty list of distinct, non-blank strings
 * for oneof_string, nothing for the other types. `at` points at the list in the request.
 */
export function checkPossibleValues(valueType: TagValueType, values: readonly string[] | undefined, at = '/values'): void {
  if (valueType !== 'oneof_string') {
    if (values !== undefined) throw invalidAt(at, `only a oneof_string tag lists its values; this one is ${valueType}`);
    return;
  }
  if (values === undefined || values.length === 0) throw invalidAt(at, 'a oneof_string tag lists at least one value');
  if (values.length > MAX_TAG_VALUES) throw invalidAt(at, `at most ${MAX_TAG_VALUES} values`);
  const seen = new Set<string>();
  values.forEach((v, i) => {
    if (v.trim() === '') throw invalidAt(`${at}/${i}`, 'must not be blank');
    if (v.length > MAX_TAG_VALUE_LENGTH) throw invalidAt(`${at}/${i}`, `must be at most ${MAX_TAG_VALUE_LENGTH} characters`);
    if (seen.has(v)) throw invalidAt(`${at}/${i}`, `"${v}" is listed twice`);
    seen.add(v);
  });
}

/** Why `value` cannot be a value of the tag, or null when it can. Null (no value) always can. */
export function valueProblem(rule: ValueRule, value: TagValue): string | null {
  if (value === null) return null;
  switch (rule.valueType) {
    case 'none':
      return `tag "${rule.title}" takes no value`;
    case 'any_number':
      return typeof value === 'number' && Number.isFinite(value) ? null : `tag "${rule.title}" takes a number, got ${JSON.stringify(value)}`;
    case 'any_string':
      if (typeof value !== 'string') return `tag "${rule.title}" takes text, got ${JSON.stringify(value)}`;
      return value.length > MAX_TEXT_VALUE_LENGTH ? `tag "${rule.title}" takes at most ${MAX_TEXT_VALUE_LENGTH} characters` : null;
    case 'oneof_string':
      if (typeof value !== 'string') return `tag "${rule.title}" takes one of its values, got ${JSON.stringify(value)}`;
      if (rule.values === null) return value.length > MAX_TEXT_VALUE_LENGTH ? `tag "${rule.title}" takes at most ${MAX_TEXT_VALUE_LENGTH} characters` : null;
      return rule.values.includes(value) ? null : `tag "${rule.title}" takes one of ${rule.values.map((v) => JSON.stringify(v)).join(', ')}; got ${JSON.stringify(value)}`;
  }
}

/** The stored possible_values text of a list, and back. */
export const possibleValuesText = (values: readonly string[] | undefined | null): string | null => (values && values.length ? JSON.stringify(values) : null);
export const possibleValuesOf = (text: string | null): string[] | null => (text === null ? null : (JSON.parse(text) as string[]));
