// Whether a model's predictions agree with an image's annotation, for every score threshold at once.
// Predictions are matched to annotated objects of their class as the COCO evaluation matches them
// (src/evaluation/coco-eval.ts: best score first, each taking the free object it overlaps most, crowds
// ignored). They disagree at a threshold s when a prediction scored s or more is left unmatched or an
// annotated object is left unmatched by them.
//
// Matching in score order means a lower-scored prediction never changes the matches of the ones above
// it: lowering s only adds predictions, so unmatched predictions can only grow and unmatched objects
// only shrink. The thresholds at which an image agrees are therefore one interval (above, upto] per
// IoU threshold, which is all that has to be stored for a gallery filter to answer any s.
import { type EvalObject, IOU_THRESHOLDS, type IouType, evaluateImage } from './coco-eval.ts';
import { EVALUATED_SHAPES, type StoredGeometry, maskOf } from './object-geometry.ts';
import { type Rle, rleToBox } from './rle.ts';

/** Predictions of one class beyond this many (best first) count as unmatched: an image with more disagrees below their scores. */
export const MAX_MATCHED_PREDICTIONS = 1000;
/** The IoU thresholds stored, in hundredths: COCO's ten, 0.50 to 0.95. */
export const AGREEMENT_IOUS = IOU_THRESHOLDS.map((t) => Math.round(t * 100));
export const AGREEMENT_IOU_TYPES: readonly IouType[] = ['bbox', 'segm'];

export interface ComparedObject {
  classId: number;
  shape: string;
  geometry: StoredGeometry;
  /** Predictions only. */
  score?: number;
  /** Annotated crowds: need no match, and a prediction over one is not unmatched. */
  crowd?: boolean;
}

/** The image agrees at thresholds s with above < s ≤ upto (an empty interval when upto ≤ above). */
export interface Agreement {
  iouType: IouType;
  /** IoU threshold in hundredths (50 … 95). */
  iou: number;
  above: number;
  upto: number;
}

const NEVER = { above: 1, upto: 0 };

async function evalObjects(objects: readonly ComparedObject[], height: number, width: number) {
  const out: { classId: number; object: EvalObject }[] = [];
  for (const o of objects) {
    if (!EVALUATED_SHAPES.has(o.shape)) continue;
    let bbox: number[];
    let mask: Rle;
    if (o.shape === 'rectangle') {
      const [[ax, ay], [bx, by]] = o.geometry.points.exterior as [[number, number], [number, number]];
      bbox = [Math.min(ax, bx), Math.min(ay, by), Math.abs(bx - ax), Math.abs(by - ay)];
      mask = await maskOf(o.shape, o.geometry, height, width);
    } else {
      mask = await maskOf(o.shape, o.geometry, height, width);
      bbox = rleToBox(mask);
    }
    out.push({ classId: o.classId, object: { imageId: 0, categoryId: o.classId, bbox, mask: () => mask, ...(o.score !== undefined ? { score: o.score } : {}), ...(o.crowd ? { crowd: true } : {}) } });
  }
  return out;
}

/** The interval of agreement of one class at IoU threshold index t. */
function classInterval(e: NonNullable<ReturnType<typeof evaluateImage>>, t: number, allScores: readonly number[]): { above: number; upto: number } {
  const n = allScores.length;
  // k1: how many best predictions are all matched; the next one is the first unmatched (past the
  // matched ones, the first beyond MAX_MATCHED_PREDICTIONS).
  let k1 = e.dtMatched[t]!.findIndex((m) => !m);
  if (k1 === -1) k1 = e.dtScores.length;
  // k2: how many best predictions it takes to match every object that counts.
  let k2 = 0;
  for (let g = 0; g < e.gtIgnored.length; g++) {
    if (e.gtIgnored[g]) continue;
    if (!e.gtMatched[t]![g]) return NEVER;
    k2 = Math.max(k2, e.gtMatchedBy[t]![g]! + 1);
  }
  if (k2 > k1) return NEVER;
  return { above: k1 === n ? -1 : allScores[k1]!, upto: k2 === 0 ? 1 : allScores[k2 - 1]! };
}

/** The agreement of the predictions with the annotation, for each IoU type and threshold. */
export async function agreementOf(
  size: { width: number; height: number },
  truths: readonly ComparedObject[],
  predictions: readonly ComparedObject[],
): Promise<Agreement[]> {
  const gts = await evalObjects(truths, size.height, size.width);
  const dts = await evalObjects(predictions, size.height, size.width);
  const classIds = [...new Set([...gts, ...dts].map((o) => o.classId))];
  const answer: Agreement[] = [];
  for (const iouType of AGREEMENT_IOU_TYPES) {
    const intervals = AGREEMENT_IOUS.map(() => ({ above: -1, upto: 1 }));
    for (const classId of classIds) {
      const classTruths = gts.filter((o) => o.classId === classId).map((o) => o.object);
      // Best first, ties in their stored order (the evaluation's stable sort).
      const classPredictions = dts
        .filter((o) => o.classId === classId)
        .map((o) => o.object)
        .map((o, i) => ({ o, i }))
        .sort((a, b) => b.o.score! - a.o.score! || a.i - b.i)
        .map(({ o }) => o);
      const allScores = classPredictions.map((o) => o.score!);
      const e = evaluateImage(iouType, 0, classTruths, classPredictions.slice(0, MAX_MATCHED_PREDICTIONS), new Map(), MAX_MATCHED_PREDICTIONS);
      if (!e) continue;
      intervals.forEach((interval, t) => {
        const c = classInterval(e, t, allScores);
        interval.above = Math.max(interval.above, c.above);
        interval.upto = Math.min(interval.upto, c.upto);
      });
    }
    intervals.forEach((interval, t) => {
      const empty = interval.upto <= interval.above;
      answer.push({ iouType, iou: AGREEMENT_IOUS[t]!, ...(empty ? NEVER : interval) });
    });
  }
  return answer;
}
