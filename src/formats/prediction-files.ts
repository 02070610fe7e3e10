// Model output in the formats teams already write, read as predictions: each reader answers, per
// image key (a COCO image id or file name, a YOLO label file's stem, a Supervisely image name), the
// objects with their scores. Geometry is left as the formats give it; the service checks it against
// the project's classes like any prediction.
import { decodeRle, maskToBitmap } from './coco/mask.ts';
import type { Point } from './canonical.ts';

export interface FileObject {
  /** A class title, or a class id of the project when the source gives only ids. */
  classTitle?: string;
  classId?: number;
  points?: { exterior: Point[]; interior?: Point[][] };
  bitmap?: { origin: [number, number]; data: string } | null;
  score: number;
}

/** What a reader could not use, with where. */
export interface FileWarning {
  at: string;
  message: string;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const ringOf = (flat: readonly number[]): Point[] => Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!]);

/**
 * A COCO results list: `[{image_id, category_id, bbox | segmentation, score}]`. A polygon segmentation
 * of several parts gives an object a part (as the COCO import does); a run-length one a bitmap; with no
 * segmentation, the box is a rectangle. `category` names the class of a category id.
 */
export function readCocoResults(
  results: readonly unknown[],
  category: (id: number) => { classTitle: string } | { classId: number } | undefined,
  sizeOf: (imageId: number | string) => { width: number; height: number } | undefined,
  warnings: FileWarning[],
): Map<number | string, FileObject[]> {
  const byImage = new Map<number | string, FileObject[]>();
  results.forEach((r, i) => {
    const at = `/results/${i}`;
    if (!isRecord(r)) return warnings.push({ at, message: 'not an object; it is ignored' });
    const imageId = r.image_id;
    if (typeof imageId !== 'number' && typeof imageId !== 'string') return warnings.push({ at, message: 'no image_id; it is ignored' });
    if (!isNumber(r.score)) return warnings.push({ at, message: 'no score: a results list gives each detection one; it is ignored' });
    const cls = isNumber(r.category_id) ? category(r.category_id) : undefined;
    if (!cls) return warnings.push({ at, message: `category_id ${JSON.stringify(r.category_id)} names no class; it is ignored` });
    const add = (o: Omit<FileObject, 'score'>) => {
      const list = byImage.get(imageId) ?? [];
      list.push({ ...cls, ...o, score: r.score as number });
      byImage.set(imageId, list);
    };
    const seg = r.segmentation;
    if (Array.isArray(seg) && seg.length > 0) {
      for (const part of seg) {
        if (Array.isArray(part) && part.length >= 6 && part.length % 2 === 0 && part.every(isNumber)) add({ points: { exterior: ringOf(part) } });
        else warnings.push({ at: `${at}/segmentation`, message: 'a part is not a polygon of at least 3 points; it is ignored' });
      }
      return;
    }
    if (isRecord(seg)) {
      const size = seg.size;
      const image = sizeOf(imageId);
      const [h, w] = Array.isArray(size) && size.length === 2 && size.every(isNumber) ? size : [image?.height ?? 0, image?.width ?? 0];
      try {
        const bitmap = maskToBitmap(decodeRle(seg.counts as number[] | string, h!, w!));
        if (bitmap) add({ bitmap: { origin: bitmap.origin, data: bitmap.data } });
        else warnings.push({ at: `${at}/segmentation`, message: 'the mask is empty; it is ignored' });
      } catch (error) {
        warnings.push({ at: `${at}/segmentation`, message: `${(error as Error).message}; it is ignored` });
      }
      return;
    }
    const box = r.bbox;
    if (Array.isArray(box) && box.length === 4 && box.every(isNumber)) {
      const [x, y, bw, bh] = box as [number, number, number, number];
      add({ points: { exterior: [[x, y], [x + bw, y + bh]] } });
      return;
    }
    warnings.push({ at, message: 'neither a segmentation nor a bbox; it is ignored' });
  });
  return byImage;
}

/**
 * A YOLO label file with a confidence last on each line, as detectors write with `save_conf`:
 * `class cx cy w h conf` (a box) or `class x1 y1 … xn yn conf` (a polygon), normalised to the image.
 */
export function readYoloPredictions(text: string, at: string, names: readonly string[], width: number, height: number, warnings: FileWarning[]): FileObject[] {
  const objects: FileObject[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${at}:${i + 1}`;
    const tokens = line.split(/\s+/);
    const index = Number(tokens[0]);
    const classTitle = Number.isSafeInteger(index) ? names[index] : undefined;
    if (classTitle === undefined) return warnings.push({ at: where, message: `class index ${JSON.stringify(tokens[0])} is not among the ${names.length} names; the line is ignored` });
    const values = tokens.slice(1).map(Number);
    if (values.some((v) => !Number.isFinite(v))) return warnings.push({ at: where, message: 'a value is not a number; the line is ignored' });
    const score = values.pop();
    if (values.length === 4) {
      const [cx, cy, w, h] = values as [number, number, number, number];
      objects.push({ classTitle, points: { exterior: [[(cx - w / 2) * width, (cy - h / 2) * height], [(cx + w / 2) * width, (cy + h / 2) * height]] }, score: score! });
    } else if (values.length >= 6 && values.length % 2 === 0) {
      objects.push({ classTitle, points: { exterior: ringOf(values).map(([x, y]) => [x * width, y * height]) }, score: score! });
    } else {
      warnings.push({ at: where, message: 'expected "class cx cy w h conf" or "class x1 y1 … xn yn conf"; the line is ignored' });
    }
  });
  return objects;
}

/** The score of a Supervisely object: a `score` member, or the value of a tag `confidence` or `score`. */
function superviselyScore(o: Record<string, unknown>): number | undefined {
  if (isNumber(o.score)) return o.score;
  if (!Array.isArray(o.tags)) return undefined;
  for (const tag of o.tags as unknown[]) {
    if (isRecord(tag) && (tag.name === 'confidence' || tag.name === 'score') && isNumber(tag.value)) return tag.value;
  }
  return undefined;
}

/** A Supervisely annotation's objects that carry a score; an object without one is not a prediction. */
export function readSuperviselyPredictions(annotation: unknown, at: string, warnings: FileWarning[]): FileObject[] {
  if (!isRecord(annotation) || !Array.isArray(annotation.objects)) {
    warnings.push({ at, message: 'not an annotation with objects; it is ignored' });
    return [];
  }
  const objects: FileObject[] = [];
  (annotation.objects as unknown[]).forEach((o, i) => {
    const where = `${at}/objects/${i}`;
    if (!isRecord(o) || typeof o.classTitle !== 'string') return warnings.push({ at: where, message: 'no classTitle; it is ignored' });
    const score = superviselyScore(o);
    if (score === undefined) return warnings.push({ at: where, message: 'no score (a `score` member or a `confidence` tag); it is ignored' });
    objects.push({
      classTitle: o.classTitle,
      ...(isRecord(o.points) ? { points: o.points as FileObject['points'] } : {}),
      ...(o.bitmap !== undefined ? { bitmap: o.bitmap as FileObject['bitmap'] } : {}),
      score,
    });
  });
  return objects;
}
