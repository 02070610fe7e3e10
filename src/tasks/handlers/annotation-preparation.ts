// One annotation file of an import, from its bytes to what the import stores: the objects serialised
// in record order, the image's tags and the object tag titles. Pure, so it runs the same on the task's
// thread and on the annotation threads (annotation-threads.ts).
import { encodeContent, type EncodedSnapshot } from '../../formats/annotation-snapshot.ts';
import { serializeObjects, toAnnotationObject } from '../../formats/canonical.ts';
import { scanMembers } from '../../formats/json-members.ts';
import { MAX_OBJECTS_PER_ANNOTATION } from '../../formats/limits.ts';
import { type ObjectBoxes, boxesOf } from '../../formats/object-summary.ts';
import { objectTagValuesText } from '../../formats/object-tag-values.ts';
import { ScanClasses, scanAnnotation } from '../../formats/supervisely/annotation-scanner.ts';
import { type ProjectMeta, SuperviselyFormatError, parseAnnotation } from '../../formats/supervisely/index.ts';

export interface PreparedAnnotation {
  description: string;
  objectsJson: string;
  imageTags: { title: string; value: string | null }[];
  objectTags: string[];
  /** images.object_tag_values of the objects (numbered 1..n), null when no object tag has a value. */
  objectTagValues: string | null;
  /** What writing the image derives from the above (see withDerived), when made already. */
  derived?: DerivedForms;
}

/** The snapshot of an annotation's content and its objects' boxes (images.repository.ts NewImageInput). */
export interface DerivedForms {
  content: EncodedSnapshot;
  boxes: ObjectBoxes;
}

/** The annotation, or why its image cannot be imported. */
export type Preparation = { annotation: PreparedAnnotation } | { problem: string };

/** The scanner's view of each meta's classes, made once per meta. */
const scanClasses = new WeakMap<ProjectMeta, ScanClasses>();

function scanClassesOf(meta: ProjectMeta): ScanClasses {
  let classes = scanClasses.get(meta);
  if (!classes) scanClasses.set(meta, (classes = new ScanClasses(new Map(meta.classes.map((c) => [c.title, c.shape])))));
  return classes;
}

/**
 * The most bytes of an annotation file an import reads: parsed whole, a file of tiny objects takes
 * several times its size in memory. One at the objects limit is a few MB, bitmaps aside.
 */
export const MAX_ANNOTATION_FILE_BYTES = 64 * 1024 * 1024;
/** From this size a file's objects are counted (element by element) before it is parsed whole. */
const COUNT_FIRST_BYTES = 1024 * 1024;

class TooManyObjects extends Error {}

/**
 * Whether the file's `objects` has more than MAX_OBJECTS_PER_ANNOTATION elements, read one element
 * at a time and stopping at the first past the limit; a file that is not JSON is left to JSON.parse.
 */
function hasTooManyObjects(bytes: Uint8Array): boolean {
  let count = 0;
  try {
    scanMembers(bytes, {
      mode: (key) => (key === 'objects' ? 'elements' : 'skip'),
      element() {
        if (++count > MAX_OBJECTS_PER_ANNOTATION) throw new TooManyObjects();
      },
      member() {},
    });
  } catch (error) {
    if (error instanceof TooManyObjects) return true;
  }
  return false;
}

export function prepareAnnotation(bytes: Uint8Array, meta: ProjectMeta): Preparation {
  if (bytes.byteLength > MAX_ANNOTATION_FILE_BYTES) {
    return { problem: `annotation: the file is larger than ${MAX_ANNOTATION_FILE_BYTES / (1024 * 1024)} MiB, the limit for an annotation file` };
  }
  // Most files take the scanner's way; the rest (tags, bitmaps, escapes, errors) the general one.
  const scanned = scanAnnotation(bytes, scanClassesOf(meta));
  if (scanned) return { annotation: { ...scanned, imageTags: [], objectTags: [], objectTagValues: null } };
  if (bytes.byteLength >= COUNT_FIRST_BYTES && hasTooManyObjects(bytes)) {
    return { problem: `annotation: objects: more than ${MAX_OBJECTS_PER_ANNOTATION} objects; the limit is ${MAX_OBJECTS_PER_ANNOTATION} objects per image` };
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    return { problem: 'annotation: the annotation file is not valid JSON' };
  }
  try {
    const { annotation } = parseAnnotation(json, meta, { skipUnsupported: true });
    return {
      annotation: {
        description: annotation.description,
        objectsJson: serializeObjects(annotation.objects.map(toAnnotationObject)),
        imageTags: annotation.tags.map((t) => ({ title: t.name, value: t.value === null ? null : JSON.stringify(t.value) })),
        objectTags: [...new Set(annotation.objects.flatMap((o) => o.tags.map((t) => t.name)))],
        objectTagValues: objectTagValuesText(annotation.objects),
      },
    };
  } catch (error) {
    if (error instanceof SuperviselyFormatError) return { problem: `annotation: ${error.message}` };
    throw error;
  }
}

/** An image without an annotation file. */
export const EMPTY_ANNOTATION: PreparedAnnotation = { description: '', objectsJson: '[]', imageTags: [], objectTags: [], objectTagValues: null };

/**
 * The preparation with the forms writing its image derives from it: hashing and deflating the
 * content and reading the objects' boxes were a third of the task thread's time in a large import,
 * and the annotation threads that call this had time to spare.
 */
export function withDerived(preparation: Preparation): Preparation {
  if (!('annotation' in preparation)) return preparation;
  const { description, objectsJson, objectTagValues } = preparation.annotation;
  const derived = { content: encodeContent({ description, objectsJson, objectIds: null, objectTagValues }), boxes: boxesOf(objectsJson) };
  return { annotation: { ...preparation.annotation, derived } };
}
