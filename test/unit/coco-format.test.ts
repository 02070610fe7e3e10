// The COCO reader against the peer fixtures: ids of any kind, polygons, boxes, both kinds of RLE.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { inflateSync } from 'node:zlib';
import sharp from 'sharp';
import { type ShapedObject, settleClasses } from '../../src/formats/canonical.ts';
import { CocoFormatError, cocoSubset, cocoSubsets, decodeRle, detect, imageCandidates, maskToBitmap, readCocoFile } from '../../src/formats/coco/index.ts';
import { readMaskSize } from '../../src/formats/supervisely/index.ts';
import { PEER } from '../helpers/peer-fixtures.ts';

const load = (rel: string): unknown => JSON.parse(readFileSync(path.join(PEER, rel), 'utf8'));
const read = (rel: string) => readCocoFile(load(rel), rel);

async function maskPixels(data: string): Promise<number> {
  const { data: raw, info } = await sharp(inflateSync(Buffer.from(data, 'base64'))).greyscale().raw().toBuffer({ resolveWithObject: true });
  let n = 0;
  for (let i = 0; i < raw.length; i += info.channels) if (raw[i]! > 0) n += 1;
  return n;
}

describe('COCO reader', () => {
  test('datumaro val: polygon, uncompressed RLE with iscrowd, attributes as tags', async () => {
    const file = read('datumaro/coco/coco_instances/annotations/instances_val.json');
    assert.equal(file.subset, 'val');
    assert.deepEqual(file.labels, ['a', 'b', 'c']);
    assert.equal(file.images.length, 1);
    const [image] = file.images;
    assert.deepEqual([image!.id, image!.fileName, image!.width, image!.height], ['40', 'b.jpg', 5, 10]);
    const [polygon, mask] = image!.objects;
    assert.equal(polygon!.shape, 'polygon');
    assert.deepEqual(polygon!.points.exterior, [[0, 0], [1, 0], [1, 2], [0, 2]]);
    assert.deepEqual(polygon!.tags, [{ name: 'x', value: 1 }, { name: 'y', value: 'hello' }]);
    assert.equal(mask!.shape, 'bitmap');
    assert.deepEqual(mask!.tags, [{ name: 'iscrowd', value: null }]);
    // counts [0, 20, 30] down the columns of a 5x10 image: the two left columns, 2x10 px.
    assert.deepEqual(mask!.bitmap!.origin, [0, 0]);
    assert.deepEqual(readMaskSize(mask!.bitmap!.data), { width: 2, height: 10 });
    assert.equal(await maskPixels(mask!.bitmap!.data), 20);
  });

  test('datumaro train: empty segmentation is a box; image id 5', () => {
    const file = read('datumaro/coco/coco_instances/annotations/instances_train.json');
    assert.equal(file.subset, 'train');
    const [object] = file.images[0]!.objects;
    assert.equal(object!.shape, 'rectangle');
    assert.deepEqual(object!.points.exterior, [[2, 2], [5, 3]]);
  });

  test('labelformat object detection: image id 0, category id 0, 16 boxes', () => {
    const file = read('labelformat/coco/object_detection/train.json');
    assert.equal(file.subset, 'train');
    assert.equal(file.labels.length, 32);
    assert.ok(file.labels.includes('bicycle with space'));
    assert.deepEqual(file.images.map((i) => i.id), ['0', '1']);
    assert.equal(file.images.reduce((n, i) => n + i.objects.length, 0), 16);
    assert.ok(file.images.every((i) => i.objects.every((o) => o.shape === 'rectangle')));
    assert.deepEqual(file.warnings, []);
  });

  test('string image ids match integer references; results lists are refused', () => {
    const file = read('faster_coco_eval/coco/dataset/gt_ignore_test.json');
    assert.equal(file.images[0]!.id, '2299');
    assert.equal(file.images[0]!.objects.length, 14);
    assert.equal(file.images[0]!.objects.filter((o) => o.tags.some((t) => t.name === 'iscrowd')).length, 1);
    for (const rel of ['faster_coco_eval/coco/dataset/dt_dataset.json', 'cocoapi/coco/results/instances_val2014_fakesegm100_results.json']) {
      assert.throws(() => read(rel), (e: unknown) => e instanceof CocoFormatError && /results list/.test(e.message) && e.path === rel);
    }
  });

  test('images listed out of order keep their own ids', () => {
    const file = read('faster_coco_eval/coco/dataset/gt_dataset.json');
    assert.equal(file.images.find((i) => i.id === '1')!.fileName, 'img_3.jpg');
    assert.equal(file.images.reduce((n, i) => n + i.objects.length, 0), 9);
  });

  test('instances_val2014_100: crowd RLE masks keep every pixel and sit on their COCO box', async () => {
    const file = read('faster_coco_eval/coco/dataset/cocoapi/instances_val2014_100.json');
    assert.equal(file.images.length, 100);
    const masks = file.images.flatMap((i) => i.objects).filter((o) => o.shape === 'bitmap');
    assert.equal(masks.length, 9);
    type Raw = { iscrowd: number; bbox: number[]; segmentation: { counts: number[] } };
    const raw = (load('faster_coco_eval/coco/dataset/cocoapi/instances_val2014_100.json') as { annotations: Raw[] }).annotations.filter((a) => a.iscrowd);
    for (const m of masks) {
      const source = raw.find((a) => a.bbox[0] === m.bitmap!.origin[0] && a.bbox[1] === m.bitmap!.origin[1]);
      assert.ok(source, `a crowd annotation has its box at ${m.bitmap!.origin}`);
      const ones = source.segmentation.counts.reduce((n, c, i) => (i % 2 ? n + c : n), 0);
      assert.equal(await maskPixels(m.bitmap!.data), ones);
      // COCO's crowd boxes use an inclusive right/bottom edge: the mask is one pixel wider and taller.
      assert.deepEqual([m.bitmap!.width, m.bitmap!.height], [source.bbox[2]! + 1, source.bbox[3]! + 1]);
    }
  });

  test('compressed RLE strings decode like the COCO API', () => {
    const results = load('cocoapi/coco/results/instances_val2014_fakesegm100_results.json') as { segmentation: { counts: string; size: [number, number] } }[];
    const { counts, size } = results[0]!.segmentation;
    const mask = decodeRle(counts, size[0], size[1]);
    const bitmap = maskToBitmap(mask)!;
    assert.equal(mask.pixels.reduce((n, p) => n + p, 0), 53487);
    assert.deepEqual([bitmap.origin, bitmap.width, bitmap.height], [[259, 41], 347, 244]);
    assert.throws(() => decodeRle([5, 100], 3, 3), /more than the 9 pixels/);
  });

  test('a bad annotation is left out with a warning naming it', () => {
    const file = readCocoFile(
      {
        images: [{ id: 1, file_name: 'x.png', width: 4, height: 4 }],
        categories: [{ id: 7, name: 'cat' }],
        annotations: [
          { id: 3, image_id: 1, category_id: 9, bbox: [0, 0, 1, 1] },
          { id: 4, image_id: 2, category_id: 7, bbox: [0, 0, 1, 1] },
          { id: 5, image_id: 1, category_id: 7, segmentation: [[1, 2, 3]] },
          { id: 6, image_id: 1, category_id: 7, segmentation: [[0, 0, 2, 0, 2, 2], [3, 3, 4, 3, 4, 4]] },
        ],
      },
      'sub/instances_x.json',
    );
    assert.equal(file.images[0]!.objects.length, 2, 'each polygon part is its own object');
    assert.deepEqual(file.warnings.map((w) => [w.path, w.message]), [
      ['sub/instances_x.json', 'annotations[0] (id 3): category_id 9 is not in categories; it is ignored'],
      ['sub/instances_x.json', 'annotations[1] (id 4): image_id 2 is not in images; it is ignored'],
      ['sub/instances_x.json', 'annotations[2] (id 5): segmentation[0] is not a polygon of at least 3 [x, y] pairs; that part is ignored'],
      ['sub/instances_x.json', 'annotations[2] (id 5): it has neither a usable segmentation nor a bbox; it is ignored'],
    ]);
    assert.throws(() => readCocoFile({ annotations: [] }, 'a.json'), /images: must be an array/);
  });

  test('subsets, detection and image places', () => {
    assert.equal(cocoSubset('annotations/instances_val2017.json'), 'val2017');
    assert.equal(cocoSubset('train.json'), 'train');
    // Roboflow's splits share one file name: the folder names them; a lone file keeps its own name.
    const roboflow = cocoSubsets(['test/_annotations.coco.json', 'train/_annotations.coco.json', 'valid/_annotations.coco.json', 'annotations/instances_val2017.json']);
    assert.deepEqual([...roboflow.values()], ['test', 'train', 'valid', 'val2017']);
    assert.deepEqual([...cocoSubsets(['a/annotations/instances_train.json', 'b/annotations/instances_train.json', 'instances_val.json']).values()], ['a', 'b', 'val']);
    assert.deepEqual([...cocoSubsets(['_annotations.coco.json', 'valid/_annotations.coco.json']).values()], ['_annotations.coco', 'valid']);
    assert.equal(detect(['a/train.json', 'data/x.jpg']), true);
    assert.equal(detect(['meta.json', 'ds/ann/x.jpg.json']), false);
    const places = imageCandidates('annotations/instances_val.json', 'val', 'b.jpg');
    assert.equal(places[0], 'annotations/b.jpg');
    assert.ok(places.includes('images/val/b.jpg'));
    assert.ok(imageCandidates('train.json', 'train', 'x y.jpg').includes('data/x y.jpg'));
  });

  test('classes: one per label and shape; boxes join a polygon label as polygons', () => {
    const o = (classTitle: string, shape: ShapedObject['shape']): ShapedObject => ({
      classTitle,
      shape,
      description: '',
      tags: [],
      bitmap: shape === 'bitmap' ? { origin: [0, 0], data: '', width: 1, height: 1 } : null,
      points: { exterior: shape === 'bitmap' ? [] : [[1, 2], [3, 4]], interior: [] },
    });
    const objects = [o('person', 'polygon'), o('person', 'bitmap'), o('person', 'rectangle'), o('car', 'rectangle')];
    const classes = settleClasses(objects, ['person', 'car', 'kite'], () => '#e6194b');
    assert.deepEqual(classes.map((c) => [c.title, c.shape]), [['person', 'polygon'], ['person (bitmap)', 'bitmap'], ['car', 'rectangle'], ['kite', 'rectangle']]);
    assert.deepEqual(objects.map((x) => x.classTitle), ['person', 'person (bitmap)', 'person', 'car']);
    assert.deepEqual(objects[2]!.points.exterior, [[1, 2], [3, 2], [3, 4], [1, 4]]);
  });
});
