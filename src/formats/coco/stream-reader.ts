// Reads a COCO instances file from its bytes, in passes, so neither its text nor all of its objects
// are ever held (a file of a million polygons is hundreds of MB as text, more as objects):
//   1. readCocoIndex: categories and images (annotations skipped);
//   2. surveyCocoAnnotations: every annotation placed and converted once, for its warnings, the
//      shapes of each label and how many annotations each image has;
//   3. readCocoObjects: the annotations again, their objects gathered per image and handed over as
//      soon as an image has all of its own (at once when the file lists them image by image).
// Each pass reads the file anew. The COCO tools write categories last, so no pass can rely on
// knowing them before the annotations.
import type { ClassShape, FormatWarning, ShapedObject } from '../canonical.ts';
import type { CocoImage } from './image-index.ts';
import { type ByteSource, type CocoIndexFile, readPass } from './index-reader.ts';
import { convertAnnotation, placeAnnotation } from './reader.ts';

export { type ByteSource, type CocoIndexFile, readCocoIndex } from './index-reader.ts';

export interface CocoSurvey {
  /** Shapes of the objects of each label, on the images surveyed. */
  shapes: Map<string, Set<ClassShape>>;
  /** Annotations placed on each image, by image id. */
  counts: Map<string, number>;
  warnings: FormatWarning[];
}

/** Pass 2, over the annotations of the images `wanted` (the others are only checked and warned about). */
export async function surveyCocoAnnotations(open: ByteSource, file: CocoIndexFile, wanted: (image: CocoImage) => boolean): Promise<CocoSurvey> {
  const warnings: FormatWarning[] = [];
  const warn = (message: string) => warnings.push({ path: file.path, message });
  const shapes = new Map<string, Set<ClassShape>>();
  const counts = new Map<string, number>();
  await readPass(open, file.path, new Set(['annotations']), (_key, i, value) => {
    const placed = placeAnnotation(file.index, value, i);
    if ('warning' in placed) return warn(placed.warning);
    const objects = convertAnnotation(placed, warn);
    if (!wanted(placed.image)) return;
    counts.set(placed.image.id, (counts.get(placed.image.id) ?? 0) + 1);
    let set = shapes.get(placed.label);
    if (!set) shapes.set(placed.label, (set = new Set()));
    for (const o of objects) set.add(o.shape);
  });
  return { shapes, counts, warnings };
}

/**
 * Pass 3: hands over each wanted image that has annotations with all of its objects, in file order,
 * as soon as its last annotation is read. Warnings were given by the survey and are not repeated.
 */
export async function readCocoObjects(
  open: ByteSource,
  file: CocoIndexFile,
  survey: CocoSurvey,
  take: (image: CocoImage, objects: ShapedObject[]) => Promise<void>,
): Promise<void> {
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
      entry.objects.push(...convertAnnotation(placed, ignore));
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
