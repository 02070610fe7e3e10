// An annotator's objects on a honeypot compared with its ground truth, class by class (docs/jobs.md
// "Quality"). The IoU and the matching are the COCO evaluation's (coco-eval.ts): boxes by box IoU
// when every object of the class on the image is a rectangle, else masks by mask IoU (a rectangle's
// mask being its corners' polygon, as object-geometry.ts makes it). Matching is greedy at IoU ≥ 0.5:
// the annotator's objects, taken in the order of their best IoU with a truth (highest first, ties in
// drawing order), each take the free truth of their class that they overlap most. Ordering them so
// makes the result not depend on the order in which the objects were drawn, short of exact ties.
import { type EvalObject, type IouType, evaluateImage, iouOf } from './coco-eval.ts';
import { EVALUATED_SHAPES, type StoredGeometry, boxOf, maskOf } from './object-geometry.ts';
import type { Rle } from './rle.ts';

/** An object as compared: its class's title and shape (rectangle, polygon or bitmap) and geometry. */
export interface QualityObject {
  classTitle: string;
  shape: string;
  geometry: StoredGeometry;
}

/** Objects are matched at this IoU or above. */
export const MATCH_IOU = 0.5;

export interface ClassComparison {
  classTitle: string;
  iouType: IouType;
  /** Matched pairs: the truth's and the annotator's object (their places among the class's objects on the image, in stored order) and their IoU. */
  matches: { truth: number; answer: number; iou: number }[];
  /** Truths no object matched (their places). */
  misses: number[];
  /** The annotator's objects that matched no truth (their places). */
  extras: number[];
  truths: number;
  answers: number;
}

async function evalObjectsOf(objects: readonly QualityObject[], iouType: IouType, h: number, w: number): Promise<EvalObject[]> {
  const out: EvalObject[] = [];
  for (const o of objects) {
    const mask: Rle | undefined = iouType === 'segm' ? await maskOf(o.shape, o.geometry, h, w) : undefined;
    out.push({ imageId: 0, categoryId: 0, bbox: await boxOf(o.shape, o.geometry, h, w), ...(mask ? { mask: () => mask } : {}) });
  }
  return out;
}

/** Compares the annotator's objects with the truth, per class title (objects of shapes with no area are left out). */
export async function compareWithTruth(size: { width: number; height: number }, truths: readonly QualityObject[], answers: readonly QualityObject[]): Promise<ClassComparison[]> {
  const kept = (list: readonly QualityObject[]) => list.filter((o) => EVALUATED_SHAPES.has(o.shape));
  const gtAll = kept(truths);
  const dtAll = kept(answers);
  const titles = [...new Set([...gtAll, ...dtAll].map((o) => o.classTitle))].sort();
  const out: ClassComparison[] = [];
  for (const classTitle of titles) {
    const gtObjects = gtAll.filter((o) => o.classTitle === classTitle);
    const dtObjects = dtAll.filter((o) => o.classTitle === classTitle);
    const iouType: IouType = [...gtObjects, ...dtObjects].every((o) => o.shape === 'rectangle') ? 'bbox' : 'segm';
    const gts = await evalObjectsOf(gtObjects, iouType, size.height, size.width);
    const dts = await evalObjectsOf(dtObjects, iouType, size.height, size.width);
    const masks = new Map<EvalObject, Rle>();
    const ious = dts.map((d) => gts.map((g) => iouOf(iouType, d, g, masks)));
    // Best overlapping first: the evaluation takes detections best score first, stable on ties.
    const order = dts.map((_, i) => i).sort((a, b) => Math.max(0, ...ious[b]!) - Math.max(0, ...ious[a]!) || a - b);
    const ranked = order.map((i, rank) => ({ ...dts[i]!, score: dts.length - rank }));
    const e = evaluateImage(iouType, 0, gts, ranked, masks, Number.MAX_SAFE_INTEGER);
    const matches: ClassComparison['matches'] = [];
    const matchedAnswers = new Set<number>();
    const misses: number[] = [];
    // Threshold 0 of the evaluation is IoU 0.5 (MATCH_IOU); no truth is a crowd, so truths keep their order.
    gts.forEach((_, g) => {
      const by = e ? e.gtMatchedBy[0]![g]! : -1;
      if (by === -1) return void misses.push(g);
      const answer = order[by]!;
      matchedAnswers.add(answer);
      matches.push({ truth: g, answer, iou: ious[answer]![g]! });
    });
    const extras = dts.map((_, i) => i).filter((i) => !matchedAnswers.has(i));
    out.push({ classTitle, iouType, matches, misses, extras, truths: gts.length, answers: dts.length });
  }
  return out;
}
