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
import { type MemberMode, streamMembers } from '../json-members.ts';
import { CocoFormatError } from './errors.ts';
import { type CocoImage, type CocoIndex, addCategory, addImage, cocoSubset, convertAnnotation, newCocoIndex, placeAnnotation } from './reader.ts';

/** Opens the file's bytes, once per pass. */
export type ByteSource = () => Promise<AsyncIterable<Buffer>>;

export interface CocoIndexFile {
  path: string;
  subset: string;
  index: CocoIndex;
  warnings: FormatWarning[];
}

export interface CocoSurvey {
  /** Shapes of the objects of each label, on the images surveyed. */
  shapes: Map<string, Set<ClassShape>>;
  /** Annotations placed on each image, by image id. */
  counts: Map<string, number>;
  warnings: FormatWarning[];
}

const ARRAYS = new Set(['images', 'annotations', 'categories']);

/**
 * One pass over the file: `streamed` members come element by element, the other COCO arrays are
 * skipped, anything else is parsed (so it is checked to be JSON) and dropped.
 */
async function pass(
  open: ByteSource,
  path: string,
  streamed: ReadonlySet<string>,
  element: (key: string, index: number, value: unknown) => void,
  afterChunk?: () => Promise<void>,
): Promise<Set<string>> {
  const seen = new Set<string>();
  const mode = (key: string): MemberMode => (streamed.has(key) ? 'elements' : ARRAYS.has(key) ? 'skip' : 'whole');
  const top = await streamMembers(await open(), {
    mode(key) {
      seen.add(key);
      return mode(key);
    },
    element,
    member(key) {
      if (streamed.has(key)) throw new CocoFormatError(path, key, 'must be an array');
    },
    ...(afterChunk ? { afterChunk } : {}),
  });
  if (top === 'array') {
    throw new CocoFormatError(path, '', 'this is a COCO results list (a top-level array of detections), not a dataset with images and categories; import the ground-truth file instead');
  }
  if (top !== 'object') throw new CocoFormatError(path, '', 'a COCO file must be a JSON object with images, annotations and categories');
  return seen;
}

/**
 * Pass 1. `subset` is the file's dataset (see cocoSubsets), by default the one its file name gives.
 * Throws CocoFormatError when the file is not a COCO dataset, JsonLocationError when it is not JSON.
 */
export async function readCocoIndex(open: ByteSource, path: string, subset = cocoSubset(path)): Promise<CocoIndexFile> {
  const warnings: FormatWarning[] = [];
  const warn = (message: string) => warnings.push({ path, message });
  const index = newCocoIndex();
  const seen = await pass(open, path, new Set(['images', 'categories']), (key, i, value) => {
    if (key === 'images') addImage(index, value, i, warn);
    else addCategory(index, value, i, warn);
  });
  if (!seen.has('images')) throw new CocoFormatError(path, 'images', 'must be an array');
  return { path, subset, index, warnings };
}

/** Pass 2, over the annotations of the images `wanted` (the others are only checked and warned about). */
export async function surveyCocoAnnotations(open: ByteSource, file: CocoIndexFile, wanted: (image: CocoImage) => boolean): Promise<CocoSurvey> {
  const warnings: FormatWarning[] = [];
  const warn = (message: string) => warnings.push({ path: file.path, message });
  const shapes = new Map<string, Set<ClassShape>>();
  const counts = new Map<string, number>();
  await pass(open, file.path, new Set(['annotations']), (_key, i, value) => {
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
  await pass(
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
