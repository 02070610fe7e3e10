// Reads a COCO instances file from its bytes, in passes, so neither its text nor all of its objects
// are ever held (a file of a million polygons is hundreds of MB as text, more as objects):
//   1. readCocoIndex: categories and images (annotations skipped);
//   2. surveyCocoAnnotations: every annotation placed and converted once, for its warnings, the
//      shapes of each label, how many annotations each image has, and whether the file lists them
//      image by image; an image past MAX_OBJECTS_PER_ANNOTATION objects ends the file there;
//   3. readCocoObjects: the annotations again, their objects gathered per image and handed over as
//      soon as an image has all of its own: in memory when the file lists them image by image (one
//      image is held at a time), else grouped on disk first (object-spool.ts).
// Each pass reads the file anew. The COCO tools write categories last, so no pass can rely on
// knowing them before the annotations.
import type { ClassShape, FormatWarning, ShapedObject } from '../canonical.ts';
import { KeptWarnings } from '../kept-warnings.ts';
import { MAX_OBJECTS_PER_ANNOTATION } from '../limits.ts';
import { CocoFormatError } from './errors.ts';
import type { CocoImage } from './image-index.ts';
import { type ByteSource, type CocoIndexFile, readPass } from './index-reader.ts';
import { spoolObjectsByImage } from './object-spool.ts';
import { convertAnnotation, placeAnnotation } from './reader.ts';

export { type ByteSource, type CocoIndexFile, readCocoIndex } from './index-reader.ts';

export interface CocoSurvey {
  /** Shapes of the objects of each label, on the images surveyed. */
  shapes: Map<string, Set<ClassShape>>;
  /** Annotations placed on each image, by image id, in the order the images first appear. */
  counts: Map<string, number>;
  /** Whether the annotations of each image come one after another (no other image's between them). */
  grouped: boolean;
  /** The first warnings (KEPT_WARNINGS); `moreWarnings` counts the rest. */
  warnings: FormatWarning[];
  moreWarnings: number;
}

/** Why a file is refused at the first object of an image past the limit. */
export function tooManyObjects(image: CocoImage): string {
  return `image "${image.fileName}" (id ${image.id}) has more than ${MAX_OBJECTS_PER_ANNOTATION} objects; the limit is ${MAX_OBJECTS_PER_ANNOTATION} objects per image`;
}

/**
 * Pass 2, over the annotations of the images `wanted` (the others are only checked and warned about).
 * Throws CocoFormatError at the first object of a wanted image past MAX_OBJECTS_PER_ANNOTATION, so a
 * file of millions of objects on one image ends there, having built no more than the limit's count.
 */
export async function surveyCocoAnnotations(open: ByteSource, file: CocoIndexFile, wanted: (image: CocoImage) => boolean): Promise<CocoSurvey> {
  const warnings = new KeptWarnings<FormatWarning>();
  const warn = (message: string) => warnings.push({ path: file.path, message });
  const shapes = new Map<string, Set<ClassShape>>();
  const counts = new Map<string, number>();
  const objectCounts = new Map<string, number>();
  let grouped = true;
  let current: string | null = null;
  await readPass(open, file.path, new Set(['annotations']), (_key, i, value) => {
    const placed = placeAnnotation(file.index, value, i);
    if ('warning' in placed) return warn(placed.warning);
    const objects = convertAnnotation(placed, warn);
    if (!wanted(placed.image)) return;
    const { id } = placed.image;
    const seen = counts.get(id);
    if (seen !== undefined && id !== current) grouped = false;
    current = id;
    counts.set(id, (seen ?? 0) + 1);
    const objectCount = (objectCounts.get(id) ?? 0) + objects.length;
    if (objectCount > MAX_OBJECTS_PER_ANNOTATION) throw new CocoFormatError(file.path, `annotations[${i}]`, tooManyObjects(placed.image));
    objectCounts.set(id, objectCount);
    let set = shapes.get(placed.label);
    if (!set) shapes.set(placed.label, (set = new Set()));
    for (const o of objects) set.add(o.shape);
  });
  return { shapes, counts, grouped, warnings: warnings.list, moreWarnings: warnings.more };
}

/**
 * Pass 3: hands over each wanted image that has annotations with all of its objects, as soon as its
 * last annotation is read (file order) or, when the survey found the file not listed image by image,
 * bucket by bucket from files made in `tempDir` (an existing folder). Warnings were given by the
 * survey and are not repeated.
 */
export async function readCocoObjects(
  open: ByteSource,
  file: CocoIndexFile,
  survey: CocoSurvey,
  take: (image: CocoImage, objects: ShapedObject[]) => Promise<void>,
  tempDir: string,
): Promise<void> {
  if (!survey.grouped) {
    await spoolObjectsByImage(open, file, survey.counts, tempDir, take);
    return;
  }
  const pending = new Map<string, { objects: ShapedObject[]; left: number }>();
  let ready: { image: CocoImage; objects: ShapedObject[] }[] = [];
  const ignore = () => {};
  const handOver = async () => {
    const batch = ready;
    ready = [];
    for (const r of batch) await take(r.image, r.objects);
  };
  await readPass(
    open,
    file.path,
    new Set(['annotations']),
    (_key, i, value) => {
      const placed = placeAnnotation(file.index, value, i);
      if ('warning' in placed) return;
      const count = survey.counts.get(placed.image.id);
      if (count === undefined) return; // not wanted
      let entry = pending.get(placed.image.id);
      if (!entry) pending.set(placed.image.id, (entry = { objects: [], left: count }));
      for (const o of convertAnnotation(placed, ignore)) entry.objects.push(o);
      entry.left -= 1;
      if (entry.left === 0) {
        pending.delete(placed.image.id);
        ready.push({ image: placed.image, objects: entry.objects });
      }
    },
    handOver,
  );
  await handOver();
}
