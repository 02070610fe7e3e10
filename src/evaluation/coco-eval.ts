// COCO-style evaluation of detections against ground truth, computed as pycocotools' COCOeval computes
// it (evaluate, accumulate, summarize) for one area range, "all", and at most 100 detections per
// image and class: the same stable sorts, greedy matching, crowd rule (a crowd truth is ignored and
// may match any number of detections, its IoU taken over the detection's area), 101 recall points
// and interpolated precision. The figures equal COCOeval's on the same inputs.
import { type Rle, boxIou, rleIou } from './rle.ts';

export type IouType = 'bbox' | 'segm';

/** A ground-truth or detected object; `score` only on detections, `crowd` only on truths. */
export interface EvalObject {
  imageId: number;
  categoryId: number;
  /** [x, y, width, height], for bbox evaluation. */
  bbox: readonly number[];
  /** The mask, for segm evaluation (made when first needed). */
  mask?: () => Rle;
  score?: number;
  crowd?: boolean;
}

export interface EvalInput {
  iouType: IouType;
  /** The images evaluated (COCOeval's params.imgIds): every image of the ground truth. */
  imageIds: readonly number[];
  /** The classes evaluated (params.catIds). */
  categoryIds: readonly number[];
  truths: readonly EvalObject[];
  detections: readonly EvalObject[];
}

export const IOU_THRESHOLDS = linspace(0.5, 0.95, 10);
export const RECALL_THRESHOLDS = linspace(0, 1, 101);
const MAX_DETECTIONS = 100;

/** numpy.linspace: start + i·step, the last value exactly the stop. */
function linspace(start: number, stop: number, num: number): number[] {
  const step = (stop - start) / (num - 1);
  return Array.from({ length: num }, (_, i) => (i === num - 1 ? stop : i * step + start));
}

/** numpy.argsort(kind='mergesort'): a stable sort of indices. */
function stableOrder(keys: readonly number[]): number[] {
  return keys.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
}

export interface ImageEval {
  imageId: number;
  /** Per IoU threshold: per detection (best first) whether it matched a truth. */
  dtMatched: boolean[][];
  dtIgnored: boolean[][];
  dtScores: number[];
  gtIgnored: boolean[];
  /** Per IoU threshold: per truth whether a detection matched it. */
  gtMatched: boolean[][];
  /** Per IoU threshold: per truth the detection (its place, best first) that matched it first, −1 for none. */
  gtMatchedBy: number[][];
}

/** Whether two boxes [x, y, w, h] are more than a pixel apart. */
function apart(a: readonly number[], b: readonly number[]): boolean {
  return a[0]! + a[2]! + 1 < b[0]! || b[0]! + b[2]! + 1 < a[0]! || a[1]! + a[3]! + 1 < b[1]! || b[1]! + b[3]! + 1 < a[1]!;
}

export function iouOf(type: IouType, dt: EvalObject, gt: EvalObject, masks: Map<EvalObject, Rle>): number {
  const crowd = gt.crowd === true;
  if (type === 'bbox') return boxIou(dt.bbox, gt.bbox, crowd);
  // Masks whose boxes (given, and grown by a pixel) do not meet share no pixel: no need to compare runs.
  if (dt.bbox.length === 4 && gt.bbox.length === 4 && apart(dt.bbox, gt.bbox)) return 0;
  const maskOf = (o: EvalObject): Rle => {
    let mask = masks.get(o);
    if (!mask) {
      if (!o.mask) throw new Error('segm evaluation needs masks');
      mask = o.mask();
      masks.set(o, mask);
    }
    return mask;
  };
  return rleIou(maskOf(dt), maskOf(gt), crowd);
}

/**
 * COCOeval.evaluateImg for the area range "all" and 100 detections (or `maxDetections`) of one image
 * and class. Truths are answered crowds last, detections best first.
 */
export function evaluateImage(
  type: IouType,
  imageId: number,
  gts: EvalObject[],
  dts: EvalObject[],
  masks: Map<EvalObject, Rle>,
  maxDetections = MAX_DETECTIONS,
): ImageEval | null {
  if (gts.length === 0 && dts.length === 0) return null;
  const gtIgnore = gts.map((g) => (g.crowd ? 1 : 0));
  const gtOrder = stableOrder(gtIgnore);
  const gt = gtOrder.map((i) => gts[i]!);
  const gtIg = gtOrder.map((i) => gtIgnore[i] === 1);
  const dt = stableOrder(dts.map((d) => -(d.score ?? 0)))
    .slice(0, maxDetections)
    .map((i) => dts[i]!);
  const ious = dt.map((d) => gt.map((g) => iouOf(type, d, g, masks)));
  const T = IOU_THRESHOLDS.length;
  const gtm = Array.from({ length: T }, () => gt.map(() => false));
  const dtm = Array.from({ length: T }, () => dt.map(() => false));
  const dtIg = Array.from({ length: T }, () => dt.map(() => false));
  const gtBy = Array.from({ length: T }, () => gt.map(() => -1));
  IOU_THRESHOLDS.forEach((threshold, t) => {
    dt.forEach((_, d) => {
      let best = Math.min(threshold, 1 - 1e-10);
      let m = -1;
      for (let g = 0; g < gt.length; g++) {
        // A truth already matched is taken, unless it is a crowd.
        if (gtm[t]![g] && !gt[g]!.crowd) continue;
        // Having matched a real truth, stop at the first ignored one (they are sorted last).
        if (m > -1 && !gtIg[m] && gtIg[g]) break;
        if (ious[d]![g]! < best) continue;
        best = ious[d]![g]!;
        m = g;
      }
      if (m === -1) return;
      dtIg[t]![d] = gtIg[m]!;
      dtm[t]![d] = true;
      if (!gtm[t]![m]) gtBy[t]![m] = d;
      gtm[t]![m] = true;
    });
  });
  return { imageId, dtMatched: dtm, dtIgnored: dtIg, dtScores: dt.map((d) => d.score ?? 0), gtIgnored: gtIg, gtMatched: gtm, gtMatchedBy: gtBy };
}

export interface ClassResult {
  categoryId: number;
  /** AP@[.5:.95], AP50, AP75; null when the class has no truth that counts. */
  ap: number | null;
  ap50: number | null;
  ap75: number | null;
  /** Precision at each of the 101 recall points at IoU .5 (0 past the highest recall reached, −1 for a class with no truth). */
  precision50: number[];
}

export interface ImageResult {
  imageId: number;
  /** At IoU .5: detections matched, detections unmatched, truths unmatched (crowds left out). */
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
}

export interface EvalResult {
  iouType: IouType;
  /** COCOeval's stats[0..2] and stats[8]: AP@[.5:.95], AP50, AP75, AR@100 (−1 when nothing counts). */
  ap: number;
  ap50: number;
  ap75: number;
  ar100: number;
  classes: ClassResult[];
  /** The precision–recall curve at IoU .5 and .75 and averaged over the ten thresholds: mean over classes. */
  curve: { recall: number[]; precision50: number[]; precision75: number[]; precision: number[] };
  images: ImageResult[];
}

/** np.mean of the values above −1, or −1 when there is none (as summarize prints). */
function meanOfCounted(values: Iterable<number>): number {
  let sum = 0;
  let n = 0;
  for (const v of values) {
    if (v > -1) {
      sum += v;
      n++;
    }
  }
  return n === 0 ? -1 : sum / n;
}

/** Runs the evaluation. */
export function cocoEvaluate(input: EvalInput): EvalResult {
  const key = (imageId: number, categoryId: number) => `${imageId}:${categoryId}`;
  const group = (objects: readonly EvalObject[]) => {
    const byKey = new Map<string, EvalObject[]>();
    for (const o of objects) {
      const k = key(o.imageId, o.categoryId);
      const list = byKey.get(k);
      if (list) list.push(o);
      else byKey.set(k, [o]);
    }
    return byKey;
  };
  const gts = group(input.truths);
  const dts = group(input.detections);
  const imageIds = [...input.imageIds].sort((a, b) => a - b);
  const categoryIds = [...input.categoryIds].sort((a, b) => a - b);
  const T = IOU_THRESHOLDS.length;
  const R = RECALL_THRESHOLDS.length;
  const K = categoryIds.length;
  // precision[t][k][r], recall[t][k]; −1 where a class has no truth that counts.
  const precision = Array.from({ length: T }, () => Array.from({ length: K }, () => new Array<number>(R).fill(-1)));
  const recall = Array.from({ length: T }, () => new Array<number>(K).fill(-1));
  const perImage = new Map<number, ImageResult>(imageIds.map((id) => [id, { imageId: id, truePositives: 0, falsePositives: 0, falseNegatives: 0 }]));

  categoryIds.forEach((categoryId, k) => {
    // Masks live while their class is evaluated.
    const masks = new Map<EvalObject, Rle>();
    const evals: ImageEval[] = [];
    for (const imageId of imageIds) {
      const e = evaluateImage(input.iouType, imageId, gts.get(key(imageId, categoryId)) ?? [], dts.get(key(imageId, categoryId)) ?? [], masks);
      if (e) evals.push(e);
    }
    for (const e of evals) {
      const counts = perImage.get(e.imageId)!;
      e.dtMatched[0]!.forEach((matched, d) => {
        if (e.dtIgnored[0]![d]) return;
        if (matched) counts.truePositives++;
        else counts.falsePositives++;
      });
      e.gtMatched[0]!.forEach((matched, g) => {
        if (!matched && !e.gtIgnored[g]) counts.falseNegatives++;
      });
    }
    if (evals.length === 0) return;
    const scores = evals.flatMap((e) => e.dtScores);
    const order = stableOrder(scores.map((s) => -s));
    const npig = evals.reduce((n, e) => n + e.gtIgnored.filter((ig) => !ig).length, 0);
    if (npig === 0) return;
    for (let t = 0; t < T; t++) {
      const matched = evals.flatMap((e) => e.dtMatched[t]!);
      const ignored = evals.flatMap((e) => e.dtIgnored[t]!);
      let tp = 0;
      let fp = 0;
      const rc: number[] = [];
      const pr: number[] = [];
      for (const i of order) {
        if (ignored[i]) {
          // An ignored detection adds to neither sum, but still has a place in the arrays.
        } else if (matched[i]) tp++;
        else fp++;
        rc.push(tp / npig);
        pr.push(tp / (fp + tp + Number.EPSILON));
      }
      const nd = rc.length;
      recall[t]![k] = nd ? rc[nd - 1]! : 0;
      for (let i = nd - 1; i > 0; i--) if (pr[i]! > pr[i - 1]!) pr[i - 1] = pr[i]!;
      const q = new Array<number>(R).fill(0);
      for (let r = 0; r < R; r++) {
        // numpy.searchsorted(rc, threshold, side='left')
        let lo = 0;
        let hi = nd;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (rc[mid]! < RECALL_THRESHOLDS[r]!) lo = mid + 1;
          else hi = mid;
        }
        if (lo >= nd) break;
        q[r] = pr[lo]!;
      }
      precision[t]![k] = q;
    }
  });

  // In numpy's order of precision[t, r, k], so the sums add up alike.
  const all = (ts: number[], only?: number) =>
    ts.flatMap((t) => RECALL_THRESHOLDS.flatMap((_, r) => (only === undefined ? precision[t]!.map((row) => row[r]!) : [precision[t]![only]![r]!])));
  const thresholds = IOU_THRESHOLDS.map((_, t) => t);
  const T75 = IOU_THRESHOLDS.indexOf(0.75);
  const curveAt = (ts: number[]) =>
    RECALL_THRESHOLDS.map((_, r) => {
      const values = ts.flatMap((t) => precision[t]!.map((row) => row[r]!));
      return meanOfCounted(values);
    });
  return {
    iouType: input.iouType,
    ap: meanOfCounted(all(thresholds)),
    ap50: meanOfCounted(all([0])),
    ap75: meanOfCounted(all([T75])),
    ar100: meanOfCounted(recall.flat()),
    classes: categoryIds.map((categoryId, k) => {
      const orNull = (v: number) => (v === -1 ? null : v);
      return {
        categoryId,
        ap: orNull(meanOfCounted(all(thresholds, k))),
        ap50: orNull(meanOfCounted(all([0], k))),
        ap75: orNull(meanOfCounted(all([T75], k))),
        precision50: precision[0]![k]!,
      };
    }),
    curve: { recall: RECALL_THRESHOLDS, precision50: curveAt([0]), precision75: curveAt([T75]), precision: curveAt(thresholds) },
    images: [...perImage.values()],
  };
}
