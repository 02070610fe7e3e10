// Comparing states of an image's annotation; their stored form is src/formats/annotation-snapshot.ts.
import { objectStarts } from './annotation-text.ts';
import { parseObjectTagValues } from '../formats/object-tag-values.ts';
import { objectIdsOf } from './object-ids.ts';
import type { AnnotationSnapshot } from '../formats/annotation-snapshot.ts';

export { type AnnotationSnapshot, EMPTY_SNAPSHOT, type EncodedSnapshot, decodeSnapshot, encodeSnapshot } from '../formats/annotation-snapshot.ts';

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
