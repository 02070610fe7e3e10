// The evaluation against pycocotools' own figures: COCOeval run on the val2014 subset of 100 images
// with cocoapi's fake bbox and segm results (the figures faster_coco_eval's tests keep for
// pycocotools, tests/test_cocoapi_fake_data.py; pycocoEvalDemo prints the same, rounded).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { type EvalObject, type IouType, cocoEvaluate } from '../../src/evaluation/coco-eval.ts';
import { type Rle, rleFromPolygon, rleFromString, rleMerge } from '../../src/evaluation/rle.ts';

const PEER = new URL('../fixtures/peer/', import.meta.url);
const readJson = <T>(path: string): T => JSON.parse(readFileSync(new URL(path, PEER), 'utf8')) as T;

interface CocoAnnotation {
  image_id: number;
  category_id: number;
  bbox: number[];
  segmentation: number[][] | { counts: number[] | string; size: [number, number] };
  iscrowd?: number;
  score?: number;
}
interface CocoGt {
  images: { id: number; width: number; height: number }[];
  categories: { id: number }[];
  annotations: CocoAnnotation[];
}

/** COCO.annToRLE: polygons merged, uncompressed or compressed runs as they are. */
function maskOf(a: CocoAnnotation, h: number, w: number): () => Rle {
  return () => {
    const s = a.segmentation;
    if (Array.isArray(s)) return rleMerge(s.map((polygon) => rleFromPolygon(polygon, h, w)));
    if (typeof s.counts === 'string') return rleFromString(s.counts, s.size[0], s.size[1]);
    return { h: s.size[0], w: s.size[1], counts: Uint32Array.from(s.counts) };
  };
}

function run(gtFile: string, dtFile: string, iouType: IouType) {
  const gt = readJson<CocoGt>(gtFile);
  const dt = readJson<CocoAnnotation[]>(dtFile);
  const sizes = new Map(gt.images.map((i) => [i.id, i]));
  const objectOf = (a: CocoAnnotation): EvalObject => {
    const image = sizes.get(a.image_id)!;
    let bbox = a.bbox;
    if (iouType === 'segm' && a.score !== undefined) bbox = [];
    return {
      imageId: a.image_id,
      categoryId: a.category_id,
      bbox,
      ...(iouType === 'segm' ? { mask: maskOf(a, image.height, image.width) } : {}),
      ...(a.score !== undefined ? { score: a.score } : {}),
      crowd: a.iscrowd === 1,
    };
  };
  return cocoEvaluate({
    iouType,
    imageIds: gt.images.map((i) => i.id),
    categoryIds: gt.categories.map((c) => c.id),
    truths: gt.annotations.map(objectOf),
    detections: dt.map(objectOf),
  });
}

describe('COCO evaluation equals pycocotools COCOeval', () => {
  const gtFile = 'faster_coco_eval/coco/dataset/cocoapi/instances_val2014_100.json';

  test('boxes: instances_val2014_fakebbox100_results.json', () => {
    const result = run(gtFile, 'cocoapi/coco/results/instances_val2014_fakebbox100_results.json', 'bbox');
    assert.ok(Math.abs(result.ap - 0.5045806987249628) < 1e-12, String(result.ap));
    assert.ok(Math.abs(result.ap50 - 0.6969727247299577) < 1e-12, String(result.ap50));
    assert.ok(Math.abs(result.ap75 - 0.5729816669904824) < 1e-12, String(result.ap75));
    assert.ok(Math.abs(result.ar100 - 0.595352982877607) < 1e-12, String(result.ar100));
  });

  test('masks: instances_val2014_fakesegm100_results.json (compressed runs against polygons and crowd runs)', () => {
    const result = run(gtFile, 'cocoapi/coco/results/instances_val2014_fakesegm100_results.json', 'segm');
    assert.ok(Math.abs(result.ap - 0.3195452758576433) < 1e-12, String(result.ap));
    assert.ok(Math.abs(result.ap50 - 0.5622883972521636) < 1e-12, String(result.ap50));
    assert.ok(Math.abs(result.ap75 - 0.29892653412086784) < 1e-12, String(result.ap75));
    assert.ok(Math.abs(result.ar100 - 0.4168394992198818) < 1e-12, String(result.ar100));
  });
});
