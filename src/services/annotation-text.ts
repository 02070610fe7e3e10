// The JSON text of an image's annotation under v2, made from the stored text of its objects with each
// object's id written in, and the entity tag of that state. Neither re-encodes the objects: turning a
// thousand polygons' coordinates back into text costs more than the rest of a PUT together.
import { createHash } from 'node:crypto';
import { type ObjectTagValues, parseObjectTagValues } from '../formats/object-tag-values.ts';
import { checkIfMatch, entityTag } from './preconditions.ts';

/**
 * How every stored object begins. objects_json is written by serializeObjects (and the import's
 * scanner, to the same bytes), classTitle first; no other object in it has that member, and inside a
 * string the quotes would be escaped, so each occurrence is exactly the start of an object.
 */
const OBJECT_START = '{"classTitle":';

/** Where each object of stored objects text begins (its `{`), found without parsing the text. */
export function objectStarts(objectsJson: string): number[] {
  const starts: number[] = [];
  for (let at = objectsJson.indexOf(OBJECT_START); at >= 0; at = objectsJson.indexOf(OBJECT_START, at + OBJECT_START.length)) starts.push(at);
  return starts;
}

/**
 * The objects' text with `"id":<id>` as the first member of each (every object has members), then
 * `"tagValues":{…}` for an object whose tags have values.
 */
function withIds(objectsJson: string, starts: readonly number[], ids: readonly number[], values: ObjectTagValues): string {
  if (starts.length !== ids.length) throw new Error(`${ids.length} ids for ${starts.length} objects`);
  const parts: string[] = [];
  let from = 0;
  for (let k = 0; k < starts.length; k += 1) {
    const at = starts[k]! + 1;
    const own = values[String(ids[k])];
    parts.push(objectsJson.slice(from, at), own ? `"id":${ids[k]},"tagValues":${JSON.stringify(own)},` : `"id":${ids[k]},`);
    from = at;
  }
  parts.push(objectsJson.slice(from));
  return parts.join('');
}

/** An annotation's state as stored: what its representation is made of. */
export interface AnnotationState {
  description: string;
  /** Image tag titles in tag id order. */
  tags: string[];
  name: string;
  width: number;
  height: number;
  /** The objects as v1 stores and sends them. */
  objectsJson: string;
  /** Their ids (images.object_ids, null for 1..n). */
  objectIds: string | null;
  /** The image tags' values as the representation's `tagValues` text, null when none has one. */
  imageTagValues: string | null;
  /** images.object_tag_values: the objects' tag values by id, null when none has one. */
  objectTagValues: string | null;
}

/**
 * The entity tag of the annotation: a digest of the state its representation is written from, so it
 * changes exactly when the representation does (v1's objects text is always written by the one
 * serialiser, and the ids are stored as null whenever they are 1..n).
 */
export const annotationTag = (s: AnnotationState): string => entityTag(taggedForm(s));

/**
 * What the tag is a digest of. The objects' text goes in as a digest of its own: hashed as it is, it
 * is not first copied into the JSON of the whole.
 */
const taggedForm = (s: AnnotationState) => {
  const form: unknown[] = [s.description, s.tags, s.name, s.width, s.height, createHash('sha256').update(s.objectsJson).digest('base64url'), s.objectIds];
  // Values go in only when there are some: an annotation without any keeps the tag it always had.
  if (s.imageTagValues !== null || s.objectTagValues !== null) form.push(s.imageTagValues, s.objectTagValues);
  return form;
};

/** Throws 412 PRECONDITION_FAILED, naming the current tag, when `ifMatch` is given and names another state. */
export const checkAnnotationIfMatch = (s: AnnotationState, ifMatch: string | undefined): void => checkIfMatch(taggedForm(s), ifMatch);

/**
 * The representation's JSON text: v1's record `data` (description, tags, name, size, objects), each
 * object with its id first. `starts` are objectStarts(objectsJson), when already known.
 */
export function annotationJson(s: AnnotationState, ids: readonly number[], starts = objectStarts(s.objectsJson)): string {
  const imageValues = s.imageTagValues === null ? '' : `,"tagValues":${s.imageTagValues}`;
  return `{"description":${JSON.stringify(s.description)},"tags":${JSON.stringify(s.tags)}${imageValues},"name":${JSON.stringify(s.name)},"size":{"width":${s.width},"height":${s.height}},"objects":${withIds(s.objectsJson, starts, ids, parseObjectTagValues(s.objectTagValues))}}`;
}
