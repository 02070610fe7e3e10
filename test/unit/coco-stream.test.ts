// The COCO file read from its bytes in passes agrees with the reader of the parsed document, on every
// peer fixture and in any member order; broken files are refused saying where.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { ShapedObject } from '../../src/formats/canonical.ts';
import { type ByteSource, CocoFormatError, readCocoFile, readCocoIndex, readCocoObjects, surveyCocoAnnotations } from '../../src/formats/coco/index.ts';
import { JsonLocationError } from '../../src/formats/json-members.ts';
import { KEPT_WARNINGS } from '../../src/formats/kept-warnings.ts';
import { MAX_OBJECTS_PER_ANNOTATION } from '../../src/formats/supervisely/index.ts';
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

/** Where files not listed image by image are grouped. */
const tempDir = mkdtempSync(path.join(os.tmpdir(), 'annostore-coco-stream-'));
after(() => rmSync(tempDir, { recursive: true, force: true }));

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
  }, tempDir);
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

  test('categories last and annotations before images; images scattered through the annotations, grouped on disk', async () => {
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
    assert.equal(survey.grouped, false);
    assert.deepEqual([...objects.keys()], ['2', '1'], 'each image in the order it first appears; none for c.png');
    assert.deepEqual(readdirSync(tempDir), [], 'the grouping files are removed');
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
    await readCocoObjects(open, index, survey, async () => void (handed += 1), tempDir);
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

  test('a file listed image by image: each image handed over as soon as its last annotation is read, nothing on disk', async () => {
    const doc = {
      images: [1, 2].map((id) => ({ id, file_name: `${id}.png`, width: 9, height: 9 })),
      annotations: [
        { id: 1, image_id: 2, category_id: 1, bbox: [0, 0, 2, 2] },
        { id: 2, image_id: 2, category_id: 1, bbox: [1, 1, 2, 2] },
        { id: 3, image_id: 1, category_id: 1, bbox: [2, 2, 2, 2] },
      ],
      categories: [{ id: 1, name: 'cat' }],
    };
    const bytes = Buffer.from(JSON.stringify(doc));
    const open = source(bytes, 8);
    const index = await readCocoIndex(open, 'g.json');
    const survey = await surveyCocoAnnotations(open, index, () => true);
    assert.equal(survey.grouped, true);
    const seen: string[] = [];
    await readCocoObjects(open, index, survey, async (image, list) => {
      seen.push(`${image.id}:${list.length}`);
      assert.deepEqual(readdirSync(tempDir), [], 'no grouping files');
    }, tempDir);
    assert.deepEqual(seen, ['2:2', '1:1']);
  });

  test('annotations of many images interleaved, past one bucket: every image gets its objects in file order', async () => {
    const images = 40;
    const perImage = 700; // 28,000 annotations: more than one bucket
    const annotations = [];
    for (let k = 0; k < perImage; k += 1) {
      for (let i = 1; i <= images; i += 1) annotations.push({ id: annotations.length + 1, image_id: i, category_id: 1 + (k % 2), bbox: [k, i, 1, 1] });
    }
    const doc = { images: Array.from({ length: images }, (_, i) => ({ id: i + 1, file_name: `${i + 1}.png`, width: 900, height: 900 })), annotations, categories: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }] };
    const bytes = Buffer.from(JSON.stringify(doc));
    const whole = readCocoFile(doc, 'i.json');
    const { objects, survey } = await streamed(bytes, 'i.json', 64 * 1024);
    assert.equal(survey.grouped, false);
    assert.equal(objects.size, images);
    for (const image of whole.images) assert.deepEqual(objects.get(image.id), image.objects, `image ${image.id}`);
    assert.deepEqual(readdirSync(tempDir), []);
  });

  test(`an image past ${MAX_OBJECTS_PER_ANNOTATION} objects ends the file at its first object past the limit, naming the limit`, async () => {
    const total = 1_000_000;
    let yielded = 0;
    const element = (k: number) => `${k ? ',' : ''}{"id":${k + 1},"image_id":1,"category_id":1,"bbox":[1,2,3,4]}`;
    // A file of a million objects on one image, made as it is read: the read must stop near the limit.
    const open: ByteSource = async () =>
      (async function* () {
        yield Buffer.from('{"images":[{"id":1,"file_name":"one.png","width":64,"height":64}],"categories":[{"id":1,"name":"dot"}],"annotations":[');
        for (let k = 0; k < total; k += 1000) {
          const piece = Buffer.from(Array.from({ length: 1000 }, (_, j) => element(k + j)).join(''));
          yielded += 1000;
          yield piece;
        }
        yield Buffer.from(']}');
      })();
    const index = await readCocoIndex(open, 'many.json');
    yielded = 0;
    const error = await surveyCocoAnnotations(open, index, () => true).catch((e: unknown) => e);
    assert.ok(error instanceof CocoFormatError, String(error));
    assert.equal(error.message, `many.json: annotations[${MAX_OBJECTS_PER_ANNOTATION}]: image "one.png" (id 1) has more than ${MAX_OBJECTS_PER_ANNOTATION} objects; the limit is ${MAX_OBJECTS_PER_ANNOTATION} objects per image`);
    assert.ok(yielded <= MAX_OBJECTS_PER_ANNOTATION + 2000, `read ${yielded} of ${total} annotations before refusing`);
  });

  test(`warnings: the first ${KEPT_WARNINGS} are kept and the rest counted`, async () => {
    const annotations = Array.from({ length: KEPT_WARNINGS + 250 }, (_, k) => ({ id: k + 1, image_id: 99, category_id: 1, bbox: [0, 0, 1, 1] }));
    const doc = { images: [{ id: 1, file_name: 'a.png' }], annotations, categories: [{ id: 1, name: 'a' }] };
    const open = source(Buffer.from(JSON.stringify(doc)), 4096);
    const survey = await surveyCocoAnnotations(open, await readCocoIndex(open, 'w.json'), () => true);
    assert.equal(survey.warnings.length, KEPT_WARNINGS);
    assert.equal(survey.moreWarnings, 250);
    assert.match(survey.warnings[0]!.message, /^annotations\[0\] \(id 1\): image_id 99 is not in images/);
  });
});
