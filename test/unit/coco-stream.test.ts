// The COCO file read from its bytes in passes agrees with the reader of the parsed document, on every
// peer fixture and in any member order; broken files are refused saying where.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { ShapedObject } from '../../src/formats/canonical.ts';
import { type ByteSource, CocoFormatError, readCocoFile, readCocoIndex, readCocoObjects, surveyCocoAnnotations } from '../../src/formats/coco/index.ts';
import { JsonLocationError } from '../../src/formats/json-members.ts';
import { PEER } from '../helpers/peer-fixtures.ts';

const FIXTURES = [
  'datumaro/coco/coco_instances/annotations/instances_train.json',
  'datumaro/coco/coco_instances/annotations/instances_val.json',
  'labelformat/coco/object_detection/train.json',
  'labelformat/coco/instance_segmentation/instances_with_binary_mask.json',
  'labelformat/coco/instance_segmentation/instances.json',
  'faster_coco_eval/coco/dataset/gt_dataset.json',
  'faster_coco_eval/coco/dataset/cocoapi/instances_val2014_100.json',
  'faster_coco_eval/coco/dataset/gt_ignore_test.json',
];

/** The bytes in chunks of `size`, opened anew for every pass. */
const source = (bytes: Buffer, size = 1000): ByteSource => async () =>
  (async function* () {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  })();

async function streamed(bytes: Buffer, file: string, size?: number) {
  const open = source(bytes, size);
  const index = await readCocoIndex(open, file);
  const survey = await surveyCocoAnnotations(open, index, () => true);
  const objects = new Map<string, ShapedObject[]>();
  await readCocoObjects(open, index, survey, async (image, list) => {
    assert.ok(!objects.has(image.id), `image ${image.id} handed over twice`);
    objects.set(image.id, list);
  });
  return { index, survey, objects };
}

describe('COCO read as a stream', () => {
  test('every peer fixture: the same images, objects, labels and warnings as the parsed reader', async () => {
    for (const rel of FIXTURES) {
      const bytes = readFileSync(path.join(PEER, rel));
      const whole = readCocoFile(JSON.parse(bytes.toString('utf8')), rel);
      const { index, survey, objects } = await streamed(bytes, rel, 97);
      assert.deepEqual(index.index.labels, whole.labels, rel);
      assert.deepEqual([...index.warnings, ...survey.warnings], whole.warnings, rel);
      assert.deepEqual([...index.index.images.values()].map((i) => [i.id, i.fileName, i.width, i.height]), whole.images.map((i) => [i.id, i.fileName, i.width, i.height]), rel);
      for (const image of whole.images) assert.deepEqual(objects.get(image.id) ?? [], image.objects, `${rel} image ${image.id}`);
      const shapes = new Map<string, Set<string>>();
      for (const image of whole.images) for (const o of image.objects) shapes.set(o.classTitle, (shapes.get(o.classTitle) ?? new Set()).add(o.shape));
      assert.deepEqual(survey.shapes, shapes, rel);
    }
  });

  test('categories last and annotations before images; images scattered through the annotations', async () => {
    const doc = {
      annotations: [
        { id: 1, image_id: 2, category_id: 5, bbox: [0, 0, 2, 2] },
        { id: 2, image_id: 1, category_id: 5, segmentation: [[0, 0, 3, 0, 3, 3]] },
        { id: 3, image_id: 2, category_id: 6, bbox: [1, 1, 1, 1] },
      ],
      images: [
        { id: 1, file_name: 'a.png', width: 4, height: 4 },
        { id: 2, file_name: 'b.png', width: 4, height: 4 },
        { id: 3, file_name: 'c.png', width: 4, height: 4 },
      ],
      categories: [
        { id: 5, name: 'cat' },
        { id: 6, name: 'dog' },
      ],
    };
    const { objects, survey } = await streamed(Buffer.from(JSON.stringify(doc, null, 2)), 'x.json', 16);
    assert.deepEqual([...objects.keys()], ['1', '2'], 'each image as soon as its last annotation is read; none for c.png');
    assert.deepEqual(objects.get('2')!.map((o) => [o.classTitle, o.shape]), [['cat', 'rectangle'], ['dog', 'rectangle']]);
    assert.deepEqual(survey.shapes, new Map([['cat', new Set(['rectangle', 'polygon'])], ['dog', new Set(['rectangle'])]]));
  });

  test('only the wanted images are surveyed and handed over', async () => {
    const bytes = readFileSync(path.join(PEER, 'datumaro/coco/coco_instances/annotations/instances_val.json'));
    const open = source(bytes);
    const index = await readCocoIndex(open, 'val.json');
    const survey = await surveyCocoAnnotations(open, index, () => false);
    assert.deepEqual([survey.counts.size, survey.shapes.size], [0, 0]);
    let handed = 0;
    await readCocoObjects(open, index, survey, async () => void (handed += 1));
    assert.equal(handed, 0);
  });

  test('refusals: not JSON (with the place), a results list, no images array', async () => {
    const broken = Buffer.from('{"images": [{"id": 1, "file_name": "a.png"}],\n "annotations": [\n  {"id": 1, "image_id": 1 "bbox": []}\n]}');
    const index = await readCocoIndex(source(broken, 8), 'broken.json');
    const error = await surveyCocoAnnotations(source(broken, 8), index, () => true).catch((e: unknown) => e);
    assert.ok(error instanceof JsonLocationError);
    assert.deepEqual([error.line, error.column], [3, 27]);
    await assert.rejects(readCocoIndex(source(Buffer.from('[{"image_id": 1}]')), 'r.json'), (e: unknown) => e instanceof CocoFormatError && /results list/.test(e.message));
    await assert.rejects(readCocoIndex(source(Buffer.from('{"annotations": []}')), 'n.json'), /images: must be an array/);
    await assert.rejects(readCocoIndex(source(Buffer.from('{"images": {}}')), 'o.json'), /images: must be an array/);
  });
});
