// One annotation file of an import, from its bytes to what the import stores: the objects serialised
// in record order, the image's tags and the object tag titles. Pure, so it runs the same on the task's
// thread and on the annotation threads (annotation-threads.ts).
import { serializeObjects, toAnnotationObject } from '../../formats/canonical.ts';
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

export function prepareAnnotation(bytes: Uint8Array, meta: ProjectMeta): Preparation {
  // Most files take the scanner's way; the rest (tags, bitmaps, escapes, errors) the general one.
  const scanned = scanAnnotation(bytes, scanClassesOf(meta));
  if (scanned) return { annotation: { ...scanned, imageTags: [], objectTags: [], objectTagValues: null } };
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
