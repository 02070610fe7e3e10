// The score thresholds at which predictions agree with an annotation: one interval per IoU type and
// threshold, checked against matching the predictions above each threshold one by one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ComparedObject, MAX_MATCHED_PREDICTIONS, agreementOf } from '../../src/evaluation/agreement.ts';
import { IOU_THRESHOLDS, cocoEvaluate } from '../../src/evaluation/coco-eval.ts';
import { boxOf } from '../../src/evaluation/object-geometry.ts';

const size = { width: 200, height: 100 };
const box = (classId: number, x: number, y: number, w: number, h: number, score?: number): ComparedObject => ({
  classId,
  shape: 'rectangle',
  geometry: { bitmap: null, points: { exterior: [[x, y], [x + w, y + h]], interior: [] } },
  ...(score !== undefined ? { score } : {}),
});

/** Whether the predictions scored s or more leave nothing unmatched at IoU 0.5 of boxes, by the evaluation itself. */
async function agreesAt(truths: ComparedObject[], predictions: ComparedObject[], s: number): Promise<boolean> {
  const toEval = async (o: ComparedObject) => ({ imageId: 1, categoryId: o.classId, bbox: await boxOf(o.shape, o.geometry, size.height, size.width), ...(o.score !== undefined ? { score: o.score } : {}) });
  const kept = predictions.filter((p) => p.score! >= s);
  const categories = [...new Set([...truths, ...predictions].map((o) => o.classId))];
  const result = cocoEvaluate({ iouType: 'bbox', imageIds: [1], categoryIds: categories, truths: await Promise.all(truths.map(toEval)), detections: await Promise.all(kept.map(toEval)) });
  const image = result.images[0]!;
  return image.falsePositives === 0 && image.falseNegatives === 0;
}

describe('prediction agreement', () => {
  test('the interval of agreement equals matching the predictions above each threshold (IoU 0.5)', async () => {
    const cases: [ComparedObject[], ComparedObject[]][] = [
      [[box(1, 10, 10, 20, 20)], [box(1, 10, 10, 20, 20, 0.9)]],
      [[box(1, 10, 10, 20, 20)], [box(1, 10, 10, 20, 20, 0.9), box(1, 60, 10, 20, 20, 0.3)]],
      [[box(1, 10, 10, 20, 20), box(1, 60, 10, 20, 20)], [box(1, 10, 10, 20, 20, 0.9), box(1, 60, 10, 20, 20, 0.4), box(1, 100, 10, 20, 20, 0.2)]],
      [[box(1, 10, 10, 20, 20)], [box(2, 10, 10, 20, 20, 0.9)]],
      [[], [box(1, 10, 10, 20, 20, 0.6)]],
      [[box(1, 10, 10, 20, 20)], []],
      // Ties: the two are kept or dropped together, so no threshold agrees.
      [[box(1, 10, 10, 20, 20)], [box(1, 10, 10, 20, 20, 0.5), box(1, 60, 10, 20, 20, 0.5)]],
      // Two classes: each narrows the interval.
      [[box(1, 10, 10, 20, 20), box(2, 60, 10, 20, 20)], [box(1, 10, 10, 20, 20, 0.8), box(2, 60, 10, 20, 20, 0.35), box(1, 100, 50, 20, 20, 0.3)]],
    ];
    for (const [truths, predictions] of cases) {
      const rows = await agreementOf(size, truths, predictions);
      const at50 = rows.find((r) => r.iouType === 'bbox' && r.iou === 50)!;
      for (const s of [0, 0.1, 0.2, 0.25, 0.3, 0.32, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1]) {
        const stored = at50.above < s && s <= at50.upto;
        assert.equal(stored, await agreesAt(truths, predictions, s), `${JSON.stringify(predictions.map((p) => p.score))} at ${s}`);
      }
    }
  });

  test('twenty rows: ten IoU thresholds of boxes and of masks', async () => {
    const rows = await agreementOf(size, [box(1, 10, 10, 20, 20)], [box(1, 14, 10, 20, 20, 0.9)]);
    assert.equal(rows.length, 2 * IOU_THRESHOLDS.length);
    // IoU 320 / 480.
    const agrees = (iou: number) => rows.find((r) => r.iouType === 'bbox' && r.iou === iou)!;
    assert.deepEqual(agrees(65), { iouType: 'bbox', iou: 65, above: -1, upto: 0.9 });
    assert.ok(agrees(70).upto <= agrees(70).above);
  });

  test(`predictions of a class beyond the best ${MAX_MATCHED_PREDICTIONS} count as unmatched`, async () => {
    const truths = Array.from({ length: MAX_MATCHED_PREDICTIONS + 1 }, (_, i) => box(1, i % 190, Math.floor(i / 190) * 2, 1, 1));
    const predictions = truths.map((t, i) => ({ ...t, score: 1 - i / 10_000 }));
    const [row] = await agreementOf(size, truths, predictions);
    const last = predictions[MAX_MATCHED_PREDICTIONS]!.score;
    // Every object needs the last prediction, which is past the limit: no threshold agrees.
    assert.ok(row!.upto <= row!.above, JSON.stringify({ row, last }));
    const fewer = await agreementOf(size, truths.slice(0, MAX_MATCHED_PREDICTIONS), predictions);
    assert.deepEqual({ above: fewer[0]!.above, upto: fewer[0]!.upto }, { above: last, upto: predictions[MAX_MATCHED_PREDICTIONS - 1]!.score });
  });
});
