// An edit writes the stored text of the objects it leaves as they were, not a new serialisation of
// them: turning a thousand polygons' coordinates back into text is the largest cost of a PUT, and an
// editor's PUT sends most objects back unchanged. Which ones are unchanged is told by comparing with
// the objects as read: a PATCH reads them anyway; a PUT finds them among the annotations this process
// wrote last (WrittenAnnotations), kept with the text they were written as.
import { type AnnotationObject, serializeObjects } from '../formats/canonical.ts';
import { objectStarts } from './annotation-text.ts';

/** Annotations kept, and how much of their text: about four times that in memory once read. */
const KEPT_ANNOTATIONS = 16;
const KEPT_CHARS = 4_000_000;

/**
 * The objects of the annotations this process wrote last, by image, each with the text it was
 * written as. A kept entry is used only while the image's stored text is still that text, so a write
 * by another process, or one rolled back, is never mistaken for it.
 */
export class WrittenAnnotations {
  private readonly entries = new Map<number, { objectsJson: string; objects: readonly AnnotationObject[] }>();
  private chars = 0;

  /** The objects the image's stored text was written from, if this process wrote it last. */
  objectsOf(imageId: number, objectsJson: string): readonly AnnotationObject[] | undefined {
    const entry = this.entries.get(imageId);
    return entry && entry.objectsJson === objectsJson ? entry.objects : undefined;
  }

  remember(imageId: number, objectsJson: string, objects: readonly AnnotationObject[]): void {
    this.forget(imageId);
    if (objectsJson.length > KEPT_CHARS) return;
    this.entries.set(imageId, { objectsJson, objects });
    this.chars += objectsJson.length;
    // Map order is insertion order: the first entries are the least recently written.
    for (const [id] of this.entries) {
      if (this.entries.size <= KEPT_ANNOTATIONS && this.chars <= KEPT_CHARS) break;
      this.forget(id);
    }
  }

  private forget(imageId: number): void {
    const entry = this.entries.get(imageId);
    if (!entry) return;
    this.chars -= entry.objectsJson.length;
    this.entries.delete(imageId);
  }
}

/** One object as serializeObjects writes it among others. */
const objectText = (o: AnnotationObject): string => serializeObjects([o]).slice(1, -1);

/** Whether two objects read the same: then serializeObjects writes the same text for both. */
export function sameObject(a: AnnotationObject, b: AnnotationObject): boolean {
  if (a.classTitle !== b.classTitle || a.description !== b.description || !sameList(a.tags, b.tags)) return false;
  if (a.bitmap === null || b.bitmap === null) {
    if (a.bitmap !== b.bitmap) return false;
  } else if (a.bitmap.data !== b.bitmap.data || !sameList(a.bitmap.origin, b.bitmap.origin)) return false;
  return sameRing(a.points.exterior, b.points.exterior) && a.points.interior.length === b.points.interior.length && a.points.interior.every((ring, i) => sameRing(ring, b.points.interior[i]!));
}

const sameList = (a: readonly unknown[], b: readonly unknown[]): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

function sameRing(a: readonly (readonly number[])[], b: readonly (readonly number[])[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i]![0] !== b[i]![0] || a[i]![1] !== b[i]![1]) return false;
  return true;
}

/**
 * The text serializeObjects(objects) would write, made of the stored text where an object is the
 * stored one it came from. `from[i]` is the index among the stored objects of the one objects[i]
 * replaces (-1 for a new object); `unchanged(i)` tells whether it is still the same.
 */
export function objectsJsonReusing(
  storedJson: string,
  objects: readonly AnnotationObject[],
  from: readonly number[],
  unchanged: (index: number) => boolean,
): string {
  const starts = objectStarts(storedJson);
  const texts = objects.map((o, i) => {
    const k = from[i]!;
    if (k < 0 || !unchanged(i)) return objectText(o);
    // Stored objects are separated by a comma and the last one closes the array.
    const end = k + 1 < starts.length ? starts[k + 1]! - 1 : storedJson.length - 1;
    return storedJson.slice(starts[k], end);
  });
  return `[${texts.join(',')}]`;
}
