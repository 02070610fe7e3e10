// The stored form of one state of an image's annotation, as a revision keeps the state it replaced:
// the columns an annotation is written to (annotation-edits.service.ts), as JSON text, deflated, and
// named by the SHA-256 of the text so equal states are stored once. Objects stay the text they were
// stored as: a state read back writes the same bytes, and reading it never re-encodes a polygon.
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { objectStarts } from './annotation-text.ts';
import { parseObjectTagValues } from '../formats/object-tag-values.ts';
import { objectIdsOf } from './object-ids.ts';

/** An annotation's state as stored, apart from the image it belongs to. */
export interface AnnotationSnapshot {
  description: string;
  /** Image tags in tag id order: title, and value as JSON text or null. */
  tags: { title: string; value: string | null }[];
  objectsJson: string;
  objectIds: string | null;
  nextObjectId: number | null;
  objectTagValues: string | null;
}

/** The empty annotation: a new image's state before its first revision. */
export const EMPTY_SNAPSHOT: AnnotationSnapshot = { description: '', tags: [], objectsJson: '[]', objectIds: null, nextObjectId: null, objectTagValues: null };

export interface EncodedSnapshot {
  hash: string;
  body: Buffer;
  size: number;
}

export function encodeSnapshot(s: AnnotationSnapshot): EncodedSnapshot {
  const text = Buffer.from(
    JSON.stringify({
      description: s.description,
      tags: s.tags.map((t) => [t.title, t.value]),
      objectsJson: s.objectsJson,
      objectIds: s.objectIds,
      nextObjectId: s.nextObjectId,
      objectTagValues: s.objectTagValues,
    }),
  );
  return { hash: createHash('sha256').update(text).digest('base64url'), body: deflateRawSync(text), size: text.length };
}

export function decodeSnapshot(body: Buffer): AnnotationSnapshot {
  const read = JSON.parse(inflateRawSync(body).toString()) as Omit<AnnotationSnapshot, 'tags'> & { tags: [string, string | null][] };
  return { ...read, tags: read.tags.map(([title, value]) => ({ title, value })) };
}

/** Objects added, removed and changed (same id, other geometry, class, tags or values) from one state to another. */
export interface ObjectChanges {
  added: number;
  removed: number;
  changed: number;
}

/** Each object's text (and tag values) by id. */
function objectsById(s: Pick<AnnotationSnapshot, 'objectsJson' | 'objectIds' | 'objectTagValues'>): Map<number, string> {
  const starts = objectStarts(s.objectsJson);
  const ids = objectIdsOf(s.objectIds, starts.length);
  const values = parseObjectTagValues(s.objectTagValues);
  const end = s.objectsJson.lastIndexOf(']');
  const byId = new Map<number, string>();
  starts.forEach((at, k) => {
    const text = s.objectsJson.slice(at, starts[k + 1] ?? end).replace(/,\s*$/, '');
    const own = values[String(ids[k])];
    byId.set(ids[k]!, own ? `${text}\0${JSON.stringify(own)}` : text);
  });
  return byId;
}

export function objectChanges(
  before: Pick<AnnotationSnapshot, 'objectsJson' | 'objectIds' | 'objectTagValues'>,
  after: Pick<AnnotationSnapshot, 'objectsJson' | 'objectIds' | 'objectTagValues'>,
): ObjectChanges {
  const was = objectsById(before);
  const now = objectsById(after);
  let added = 0;
  let changed = 0;
  for (const [id, text] of now) {
    const old = was.get(id);
    if (old === undefined) added += 1;
    else if (old !== text) changed += 1;
  }
  const removed = [...was.keys()].filter((id) => !now.has(id)).length;
  return { added, removed, changed };
}
