// COCO, Pascal VOC and YOLO imports of every peer fixture through the HTTP API, with preset 0 and
// with the format's own preset; the three labelformat detection fixtures must agree box for box.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { isImageName } from '../../src/formats/supervisely/index.ts';
import { dialects } from '../helpers/dialects.ts';
import { type Imported, type ImportedImage, type ProjectFile, importAndRead, withImportRunner, uploadProject } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type TestApp, json } from '../helpers/test-app.ts';
import { PEER } from '../helpers/peer-fixtures.ts';

const PRESET = { coco: 3, pascal_voc: 4, yolo: 5 } as const;
type Format = keyof typeof PRESET;

type Upload = ProjectFile & { type: 'image' | 'annotation' };

function fixtureFiles(dir: string, under = ''): Upload[] {
  const root = path.join(PEER, dir);
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((p) => statSync(path.join(root, p)).isFile())
    .sort()
    .map((p) => ({
      path: under + p.split(path.sep).join('/'),
      content: readFileSync(path.join(root, p)),
      type: isImageName(p) && !/Segmentation(Object|Class)/.test(p) ? 'image' : 'annotation',
    }));
}

const [sqlite] = dialects;

describe('COCO, Pascal VOC and YOLO import of the peer fixtures', () => {
  let t: TestApp;
  withImportRunner(sqlite!, (app) => (t = app));

  const upload = (files: Upload[], format: Format) => uploadProject(t, files.map((f) => ({ ...f, format })));

  async function importAs(files: Upload[], format: Format, preset: number): Promise<Imported> {
    const result = await importAndRead(t, files.map((f) => ({ ...f, format })), preset, `${format} ${preset}`);
    assert.equal(result.task.meta.format, format);
    return result;
  }

  /** Imports with the format's preset and with preset 0, checks both agree, answers the first. */
  async function importBoth(files: Upload[], format: Format): Promise<Imported> {
    const explicit = await importAs(files, format, PRESET[format]);
    const detected = await importAs(files, format, 0);
    assert.deepEqual([...detected.classes], [...explicit.classes]);
    assert.deepEqual([...detected.datasets], [...explicit.datasets]);
    return explicit;
  }

  const counts = (r: Imported) => [...r.datasets].map(([d, images]) => [d, images.map((i) => [i.name, i.size.width, i.size.height, i.objects.length])]);
  const warningsOf = (r: Imported) => r.warnings;

  test('datumaro coco_instances: two subsets, polygon, crowd RLE bitmap, box', async () => {
    const r = await importBoth(fixtureFiles('datumaro/coco/coco_instances'), 'coco');
    assert.deepEqual(counts(r), [['train', [['a.jpg', 10, 5, 1]]], ['val', [['b.jpg', 5, 10, 2]]]]);
    assert.deepEqual([...r.classes], [['a', 'polygon'], ['b', 'bitmap'], ['b (rectangle)', 'rectangle'], ['c', 'rectangle']]);
    const [polygon, mask] = r.datasets.get('val')![0]!.objects;
    assert.deepEqual(polygon!.points.exterior, [[0, 0], [1, 0], [1, 2], [0, 2]]);
    assert.deepEqual(polygon!.tags.sort(), ['x', 'y']);
    assert.deepEqual([mask!.classTitle, mask!.bitmap!.origin, mask!.tags], ['b', [0, 0], ['iscrowd']]);
    assert.deepEqual(r.datasets.get('train')![0]!.objects[0]!.points.exterior, [[2, 2], [5, 3]]);
    assert.deepEqual(warningsOf(r), []);
  });

  test('faster_coco_eval: results lists are refused with a message, missing images are named', async () => {
    const r = await importBoth(fixtureFiles('faster_coco_eval/coco/dataset'), 'coco');
    assert.deepEqual(counts(r), [['gt_dataset', [['img_3.jpg', 256, 256, 3], ['img_1.jpg', 256, 256, 3], ['img_2.jpg', 256, 256, 3]]]]);
    const warnings = warningsOf(r);
    assert.ok(warnings.some((w) => w.path === 'dt_dataset.json' && /results list/.test(w.message)));
    assert.ok(warnings.some((w) => w.path === 'cocoapi/instances_val2014_100.json' && /100 of its 100 images are not among the uploaded files/.test(w.message)));
    assert.ok(warnings.some((w) => w.path === 'gt_ignore_test.json' && /000000002299\.jpg/.test(w.message)));
  });

  test('labelformat instance segmentation: images from the YOLO sibling, one image absent', async () => {
    const images = fixtureFiles('labelformat/yolo/instance_segmentation').filter((f) => f.type === 'image').map((f) => ({ ...f, path: f.path.replace('images/', 'data/') }));
    const r = await importBoth([...fixtureFiles('labelformat/coco/instance_segmentation'), ...images], 'coco');
    assert.deepEqual([...r.datasets.keys()], ['instances', 'with_binary_mask']);
    assert.equal(r.datasets.get('instances')!.reduce((n, i) => n + i.objects.length, 0), 3);
    assert.ok(warningsOf(r).some((w) => w.path === 'instances_with_binary_mask.json' && /000000374545/.test(w.message)));
    for (const image of r.datasets.get('instances')!) for (const o of image.objects) assert.equal(r.classes.get(o.classTitle), 'polygon');
  });

  test('cocoapi results alone: the import is refused, saying why', async () => {
    const refs = await upload(fixtureFiles('cocoapi/coco/results'), 'coco');
    const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'results' }, preset: 3, files: refs } });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /results list/);
  });

  test('datumaro voc_dataset1: splits, tags, a part, the instance mask', async () => {
    const r = await importBoth(fixtureFiles('datumaro/voc/voc_dataset1'), 'pascal_voc');
    assert.deepEqual(counts(r), [['test', [['2007_000002.jpg', 20, 10, 0]]], ['train', [['2007_000001.jpg', 20, 10, 4]]]]);
    const objects = r.datasets.get('train')![0]!.objects;
    assert.deepEqual(objects.slice(0, 3).map((o) => [o.classTitle, o.points.exterior]), [['cat', [[1, 2], [3, 4]]], ['person', [[4, 5], [6, 7]]], ['head', [[5.5, 6], [7.5, 8]]]]);
    assert.deepEqual(objects[0]!.tags, ['pose', 'truncated', 'difficult']);
    assert.equal(objects[3]!.classTitle, 'cat (bitmap)');
    assert.equal(r.classes.get('cat'), 'rectangle');
    assert.equal(r.classes.get('cat (bitmap)'), 'bitmap');
  });

  test('datumaro voc_dataset2 with images made for it: no <size>, no objects, occluded', async () => {
    const images: Upload[] = [];
    for (const [i, id] of ['@', 'a', 'b', 'c', 'd'].entries()) images.push({ path: `JPEGImages/${id}.png`, content: await pngImage(8 + i, 6, 900 + i), type: 'image' });
    const r = await importBoth([...fixtureFiles('datumaro/voc/voc_dataset2'), ...images], 'pascal_voc');
    assert.deepEqual(counts(r).map(([d, list]) => [d, (list as unknown[]).length]), [['trainval', 5]]);
    const a = r.datasets.get('trainval')!.find((i) => i.name === 'a.png')!;
    assert.deepEqual(a.objects.map((o) => [o.classTitle, o.points.exterior, o.tags]), [['background', [[1, 2], [4, 6]], ['truncated', 'difficult', 'occluded']]]);
    assert.deepEqual(r.datasets.get('trainval')!.find((i) => i.name === '@.png')!.size, { width: 8, height: 6 });
  });

  test('VOC class masks without instance masks: one bitmap per class, colours from labelmap.txt', async () => {
    const files = fixtureFiles('datumaro/voc/voc_dataset1').filter((f) => !f.path.startsWith('SegmentationObject/'));
    const labelmap = { path: 'labelmap.txt', content: readFileSync(path.join(PEER, 'datumaro/voc/voc_dataset2/labelmap.txt')), type: 'annotation' as const };
    const r = await importBoth([...files, labelmap], 'pascal_voc');
    const objects = r.datasets.get('train')![0]!.objects;
    // The class mask of 2007_000001 is bicycle green (0,128,0) over all of its 20×10 pixels.
    assert.deepEqual(objects.map((o) => o.classTitle), ['cat', 'person', 'head', 'bicycle']);
    assert.deepEqual([objects[3]!.bitmap!.origin, objects[3]!.tags], [[0, 0], []]);
    assert.equal(r.classes.get('bicycle'), 'bitmap');
    const [project] = json<{ classes: { title: string; color: string }[] }[]>(await t.request({ method: 'GET', url: `/v1/projects?projectId=${r.task.meta.project.id as number}` }));
    const colors = new Map(project!.classes.map((c) => [c.title, c.color.toUpperCase()]));
    assert.equal(colors.get('bicycle'), '#008000');
    assert.equal(colors.get('cat'), '#400000');
    assert.deepEqual(warningsOf(r), []);

    const without = await importAs(files, 'pascal_voc', 4);
    assert.deepEqual(without.datasets.get('train')![0]!.objects.map((o) => o.classTitle), ['cat', 'person', 'head', 'bicycle'], 'the VOC 2012 colours without a label map');
  });

  test('YOLO fixtures: Darknet, labels/ without YAML, Roboflow, segmentation', async () => {
    const strict = await importBoth(fixtureFiles('datumaro/yolo/strict'), 'yolo');
    assert.deepEqual(counts(strict), [['train', [['1.jpg', 15, 10, 2]]]]);
    assert.deepEqual(strict.datasets.get('train')![0]!.objects.map((o) => o.classTitle), ['label_2', 'label_4']);
    const box = strict.datasets.get('train')![0]!.objects[0]!.points.exterior;
    assert.ok(Math.abs(box[0]![0]! - 0) < 1e-3 && Math.abs(box[1]![1]! - 4) < 1e-3, JSON.stringify(box));

    const labels = await importBoth(fixtureFiles('datumaro/yolo/labels'), 'yolo');
    assert.deepEqual(counts(labels).map(([d, l]) => [d, (l as unknown[]).length]), [['train', 1], ['val', 1]]);

    const roboflow = await importBoth(fixtureFiles('datumaro/yolo/roboflow_yolo'), 'yolo');
    assert.deepEqual(counts(roboflow).map(([d, l]) => [d, (l as unknown[]).length]), [['train', 2], ['val', 1]]);

    const seg = await importBoth(fixtureFiles('labelformat/yolo/instance_segmentation'), 'yolo');
    assert.equal([...seg.datasets.values()].flat().reduce((n, i) => n + i.objects.length, 0), 3);
    for (const image of [...seg.datasets.values()].flat()) for (const o of image.objects) assert.equal(seg.classes.get(o.classTitle), 'polygon');
  });

  test('the labelformat boxes agree across COCO, VOC and YOLO within half a pixel', async () => {
    const cocoImages = fixtureFiles('labelformat/coco/object_detection').filter((f) => f.type === 'image');
    const coco = await importBoth(fixtureFiles('labelformat/coco/object_detection'), 'coco');
    const voc = await importBoth([...fixtureFiles('labelformat/voc/object_detection'), ...cocoImages.map((f) => ({ ...f, path: `JPEGImages/${path.basename(f.path)}` }))], 'pascal_voc');
    const yolo = await importBoth(fixtureFiles('labelformat/yolo/object_detection'), 'yolo');
    type Boxes = [string, ImportedImage['size'], [string, number[]][]][];
    const boxes = (r: Imported): Boxes =>
      [...r.datasets.values()].flat().sort((a, b) => (a.name < b.name ? -1 : 1)).map((i) => [i.name, i.size, i.objects.map((o): [string, number[]] => [o.classTitle, o.points.exterior.flat()])]);
    const [c, v, y] = [boxes(coco), boxes(voc), boxes(yolo)];
    assert.equal(c.flatMap((i) => i[2]).length, 16);
    const worst = (other: Boxes) => {
      assert.deepEqual(other.map((i) => [i[0], i[1], i[2].map((o) => o[0])]), c.map((i) => [i[0], i[1], i[2].map((o) => o[0])]));
      let max = 0;
      other.forEach((image, k) => image[2].forEach((o, j) => o[1].forEach((value, n) => (max = Math.max(max, Math.abs(value - c[k]![2][j]![1][n]!))))));
      return max;
    };
    // VOC and COCO carry the same integers. The YOLO file was written from other boxes: its edges
    // differ from COCO's by up to 0.84 px in the data itself (e.g. 18 px tall in COCO, 0.0442067 × 416
    // = 18.39 px in YOLO), so the YOLO check allows one pixel.
    assert.equal(worst(v), 0);
    const yoloWorst = worst(y);
    assert.ok(yoloWorst <= 1, `YOLO boxes differ from COCO by up to ${yoloWorst} px`);
    assert.equal(coco.classes.get('bicycle with space'), 'rectangle');
  });
});
