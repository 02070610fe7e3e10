// Imports of every fixture under test/fixtures/outside/ (datasets written by other projects) through
// the HTTP API, on each database, with the format's own preset and with preset 0. What each import
// must hold is counted from the fixture's own files here (datasets, images, objects of each class on
// each image), so a dataset, an image or an object that goes missing fails the test; what a fixture
// cannot import is checked to be said.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { isImageName } from '../../src/formats/supervisely/index.ts';
import { dialects } from '../helpers/dialects.ts';
import { generatedImage, outsideFixtureCopy } from '../helpers/fixture-copy.ts';
import { type Imported, type ProjectFile, importAndRead, withImportRunner, uploadProject } from '../helpers/importing.ts';
import { OUTSIDE } from '../helpers/peer-fixtures.ts';
import type { TestApp } from '../helpers/test-app.ts';

type Format = 'coco' | 'pascal_voc' | 'yolo' | 'supervisely';
const PRESET: Record<Format, number> = { coco: 3, pascal_voc: 4, yolo: 5, supervisely: 1 };

/** Objects of each class on each image of each dataset: dataset → image name → class → count. */
type Tally = Map<string, Map<string, Map<string, number>>>;

function count(tally: Tally, dataset: string, image: string, label?: string, n = 1): void {
  let images = tally.get(dataset);
  if (!images) tally.set(dataset, (images = new Map()));
  let labels = images.get(image);
  if (!labels) images.set(image, (labels = new Map()));
  if (label !== undefined) labels.set(label, (labels.get(label) ?? 0) + n);
}

/** A tally as sorted nested lists, so two tallies compare with deepEqual whatever their order. */
const sorted = (tally: Tally) =>
  [...tally]
    .map(([d, images]) => [d, [...images].map(([i, labels]) => [i, [...labels].sort()] as const).sort()] as const)
    .sort();

/**
 * What the import holds, by the labels of the source: a label whose objects of another shape moved to
 * the class `<label> (<shape>)` counts under the label.
 */
function importedTally(r: Imported): Tally {
  const tally: Tally = new Map();
  for (const [dataset, images] of r.datasets) {
    for (const image of images) {
      count(tally, dataset, image.name);
      for (const o of image.objects) count(tally, dataset, image.name, o.classTitle.replace(/ \((point|rectangle|line|polygon|bitmap)\)$/, ''));
    }
  }
  return tally;
}

const fixtureText = (fixture: string, rel: string) => readFileSync(path.join(OUTSIDE, ...fixture.split('/'), ...rel.split('/')), 'utf8');

function filesUnder(root: string): string[] {
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((p) => statSync(path.join(root, p)).isFile())
    .map((p) => p.split(path.sep).join('/'))
    .sort();
}

/** The fixture with its missing images generated, as a client uploads it: every file, each with its type. */
async function fixtureFiles(fixture: string, format: Format): Promise<ProjectFile[]> {
  const copy = await outsideFixtureCopy(fixture);
  try {
    return filesUnder(copy).map((p) => ({
      path: p,
      content: readFileSync(path.join(copy, ...p.split('/'))),
      type: isImageName(p) ? 'image' : format === 'supervisely' && p === 'meta.json' ? 'class' : 'annotation',
      format,
    }));
  } finally {
    rmSync(path.dirname(copy), { recursive: true, force: true });
  }
}

const imagePathsOf = (files: readonly ProjectFile[]) => files.filter((f) => f.type === 'image').map((f) => f.path);
const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const stemOf = (p: string) => baseName(p).replace(/\.[^.]*$/, '');

/**
 * A COCO file's images and objects: one object per annotation, but one per part of a polygon
 * segmentation with several parts (COCO's parts are separate pieces).
 */
function countCoco(tally: Tally, dataset: string, text: string): void {
  const coco = JSON.parse(text) as {
    images: { id: number; file_name: string }[];
    annotations: { image_id: number; category_id: number; segmentation?: unknown }[];
    categories: { id: number; name: string }[];
  };
  const names = new Map(coco.images.map((i) => [i.id, baseName(i.file_name)]));
  const labels = new Map(coco.categories.map((c) => [c.id, c.name]));
  for (const name of names.values()) count(tally, dataset, name);
  for (const a of coco.annotations) {
    const parts = Array.isArray(a.segmentation) && a.segmentation.length > 0 ? a.segmentation.length : 1;
    count(tally, dataset, names.get(a.image_id)!, labels.get(a.category_id)!, parts);
  }
}

/** The objects of a Pascal VOC XML by their `<name>`. */
function countVoc(tally: Tally, dataset: string, image: string, xml: string): void {
  count(tally, dataset, image);
  for (const [, label] of xml.matchAll(/<object>\s*<name>([^<]*)<\/name>/g)) count(tally, dataset, image, label!);
}

/** The objects of a YOLO label file: one a line, its class by index into `names`. */
function countYolo(tally: Tally, dataset: string, image: string, text: string, names: readonly string[]): void {
  count(tally, dataset, image);
  for (const line of text.split(/\r?\n/)) if (line.trim() !== '') count(tally, dataset, image, names[Number(line.trim().split(/\s+/)[0])]!);
}

for (const dialect of dialects) {
  describe(`import of the outside fixtures on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    withImportRunner(dialect, (app) => (t = app));

    /** Imports with the format's preset and with preset 0, checks both agree, answers the first. */
    async function importBoth(files: ProjectFile[], format: Format): Promise<Imported> {
      const explicit = await importAndRead(t, files, PRESET[format], `${format} ${PRESET[format]}`);
      const detected = await importAndRead(t, files, 0, `${format} 0`);
      assert.equal(detected.task.meta.format, format);
      assert.deepEqual([...detected.classes], [...explicit.classes]);
      assert.deepEqual([...detected.datasets], [...explicit.datasets]);
      assert.deepEqual(detected.warnings, explicit.warnings);
      return explicit;
    }

    test('super-gradients tinycoco (COCO val2017): 6 images, 136 annotations, polygons and a crowd mask', async () => {
      const fixture = 'super-gradients/coco/tinycoco';
      const r = await importBoth(await fixtureFiles(fixture, 'coco'), 'coco');
      const expected: Tally = new Map();
      countCoco(expected, 'val2017', fixtureText(fixture, 'annotations/instances_val2017.json'));
      assert.deepEqual(sorted(importedTally(r)), sorted(expected));
      assert.equal(r.datasets.get('val2017')!.length, 6);
      assert.deepEqual(r.warnings, []);
    });

    test('sahi coco_evaluate: the dataset imports; its results list is refused with a warning', async () => {
      const fixture = 'sahi/coco/coco_evaluate';
      const r = await importBoth(await fixtureFiles(fixture, 'coco'), 'coco');
      const expected: Tally = new Map();
      countCoco(expected, 'dataset', fixtureText(fixture, 'dataset.json'));
      assert.deepEqual(sorted(importedTally(r)), sorted(expected));
      assert.ok(Array.isArray(JSON.parse(fixtureText(fixture, 'result.json'))));
      assert.deepEqual(r.warnings.map((w) => w.path), ['result.json']);
      assert.match(r.warnings[0]!.message, /results list/);
    });

    test('Roboflow COCO export: one dataset per split folder, each from its own _annotations.coco.json', async () => {
      const fixture = 'roboflow-python/coco/sharks-tiny-coco';
      const r = await importBoth(await fixtureFiles(fixture, 'coco'), 'coco');
      const expected: Tally = new Map();
      for (const split of ['train', 'valid', 'test']) countCoco(expected, split, fixtureText(fixture, `${split}/_annotations.coco.json`));
      assert.deepEqual([...r.datasets.keys()].sort(), ['test', 'train', 'valid']);
      assert.deepEqual(sorted(importedTally(r)), sorted(expected));
      assert.deepEqual(r.warnings, []);
    });

    test('COCO splits that share an image name: each split keeps its own image and objects', async () => {
      const box = (id: number, category: number, bbox: number[]) => ({ id, image_id: 1, category_id: category, bbox, area: bbox[2]! * bbox[3]!, iscrowd: 0, segmentation: [] });
      const coco = (width: number, height: number, annotations: unknown[]) =>
        Buffer.from(JSON.stringify({ images: [{ id: 1, file_name: 'a.jpg', width, height }], annotations, categories: [{ id: 1, name: 'x' }, { id: 2, name: 'y' }] }));
      const files: ProjectFile[] = [
        { path: 'train/_annotations.coco.json', type: 'annotation', format: 'coco', content: coco(40, 30, [box(1, 1, [1, 2, 10, 5]), box(2, 1, [20, 10, 4, 4])]) },
        { path: 'train/a.jpg', type: 'image', format: 'coco', content: await generatedImage('a.jpg', 40, 30, 11) },
        { path: 'valid/_annotations.coco.json', type: 'annotation', format: 'coco', content: coco(20, 10, [box(1, 2, [2, 2, 3, 3])]) },
        { path: 'valid/a.jpg', type: 'image', format: 'coco', content: await generatedImage('a.jpg', 20, 10, 12) },
      ];
      const r = await importBoth(files, 'coco');
      const shown = [...r.datasets].map(([d, images]) => [d, images.map((i) => [i.name, i.size.width, i.size.height, i.objects.map((o) => [o.classTitle, o.points.exterior])])]);
      assert.deepEqual(shown.sort(), [
        ['train', [['a.jpg', 40, 30, [['x', [[1, 2], [11, 7]]], ['x', [[20, 10], [24, 14]]]]]]],
        ['valid', [['a.jpg', 20, 10, [['y', [[2, 2], [5, 5]]]]]]],
      ]);
      assert.deepEqual(r.warnings, []);
    });

    test('Roboflow VOC chess: every XML finds its image, 0af.xml its 0AF.jpg too', async () => {
      const fixture = 'roboflow-python/voc/chess';
      const files = await fixtureFiles(fixture, 'pascal_voc');
      const r = await importBoth(files, 'pascal_voc');
      const expected: Tally = new Map();
      const images = imagePathsOf(files);
      for (const image of images) count(expected, 'ds0', image);
      for (const xml of files.filter((f) => f.path.endsWith('.xml'))) {
        // Roboflow writes the image's id as the XML's name; this export was made on a disk that ignores case.
        const image = images.find((p) => stemOf(p).toLowerCase() === stemOf(xml.path).toLowerCase())!;
        countVoc(expected, 'ds0', image, xml.content.toString('utf8'));
      }
      assert.equal(images.length, 12);
      assert.deepEqual(sorted(importedTally(r)), sorted(expected));
      assert.equal(r.datasets.get('ds0')!.find((i) => i.name === '0AF.jpg')!.objects.length, 13);
      assert.deepEqual(r.warnings, []);

      // Without its image, the XML's boxes cannot be imported, and the task says so.
      const without = await importAndRead(t, files.filter((f) => f.path !== '0AF.jpg'), PRESET.pascal_voc, 'chess without 0AF.jpg');
      assert.equal(without.datasets.get('ds0')!.length, 11);
      assert.deepEqual(without.warnings.map((w) => w.path), ['0af.xml']);
      assert.match(without.warnings[0]!.message, /no uploaded image matches/);
    });

    test('mmdetection VOC2012: the XML pairs with its image by id, whatever its <filename> says', async () => {
      const fixture = 'mmdetection/voc/VOCdevkit';
      const xml = fixtureText(fixture, 'VOC2012/Annotations/000001.xml');
      // The XML names 000002.jpg; VOC finds an annotation's image by the XML's own name.
      assert.match(xml, /<filename>000002\.jpg<\/filename>/);
      // VOC2012 has a 000002.jpg too, which this XML must not take.
      const other = { path: 'VOC2012/JPEGImages/000002.jpg', type: 'image' as const, format: 'pascal_voc', content: await generatedImage('000002.jpg', 500, 375, 21) };
      const r = await importBoth([...(await fixtureFiles(fixture, 'pascal_voc')), other], 'pascal_voc');
      const expected: Tally = new Map();
      countVoc(expected, 'ds0', '000001.jpg', xml);
      count(expected, 'ds0', '000002.jpg');
      assert.deepEqual(sorted(importedTally(r)), sorted(expected));
      assert.deepEqual(r.warnings, []);
    });

    for (const fixture of ['label-studio-converter/yolo/test_import_yolo_data', 'label-studio-converter/yolo-seg/test_import_yolo_seg_data_unif_dims']) {
      test(`Label Studio converter ${baseName(fixture)}: classes.txt and labels/, boxes or polygons`, async () => {
        const files = await fixtureFiles(fixture, 'yolo');
        const r = await importBoth(files, 'yolo');
        const names = fixtureText(fixture, 'classes.txt').split(/\r?\n/).filter((l) => l.trim() !== '');
        const expected: Tally = new Map();
        // No split in the files: one dataset, of the reader's default name.
        for (const image of imagePathsOf(files)) countYolo(expected, 'train', baseName(image), fixtureText(fixture, `labels/${stemOf(image)}.txt`), names);
        assert.deepEqual(sorted(importedTally(r)), sorted(expected));
        assert.deepEqual(r.warnings, []);
      });
    }

    test('Roboflow YOLOv9 export: data.yaml with paths of another machine, one dataset per split folder', async () => {
      const fixture = 'roboflow-python/yolo/sharks-tiny-yolov9';
      const files = await fixtureFiles(fixture, 'yolo');
      const r = await importBoth(files, 'yolo');
      const { names } = parseYaml(fixtureText(fixture, 'data.yaml')) as { names: string[] };
      const expected: Tally = new Map();
      for (const image of imagePathsOf(files)) {
        const [split] = image.split('/');
        countYolo(expected, split!, baseName(image), fixtureText(fixture, `${split}/labels/${stemOf(image)}.txt`), names);
      }
      assert.deepEqual([...expected.keys()].sort(), ['test', 'train', 'valid']);
      assert.deepEqual(sorted(importedTally(r)), sorted(expected));
      assert.deepEqual(r.warnings, []);
    });

    test('sahi coco2yolo: label files beside their images, data.yml splits on another machine', async () => {
      const fixture = 'sahi/yolo/coco2yolo';
      const files = await fixtureFiles(fixture, 'yolo');
      const r = await importBoth(files, 'yolo');
      const { names } = parseYaml(fixtureText(fixture, 'data.yml')) as { names: string[] };
      const expected: Tally = new Map();
      for (const image of imagePathsOf(files)) countYolo(expected, image.split('/')[0]!, baseName(image), fixtureText(fixture, image.replace(/\.[^.]*$/, '.txt')), names);
      assert.deepEqual([...expected.keys()].sort(), ['train', 'val']);
      assert.deepEqual(sorted(importedTally(r)), sorted(expected));
      assert.deepEqual(r.warnings, []);
    });

    test('tcotte Supervisely project: 93 rectangles on a 5184×3456 image; without the image, a 400 that says why', async () => {
      const fixture = 'tcotte-SuperviselyDatasets/supervisely/project_demo';
      const files = await fixtureFiles(fixture, 'supervisely');
      const r = await importBoth(files, 'supervisely');
      const annotation = JSON.parse(fixtureText(fixture, 'dataset/ann/(77).jpg.json')) as { objects: { classTitle: string }[] };
      const expected: Tally = new Map();
      count(expected, 'dataset', '(77).jpg');
      for (const o of annotation.objects) count(expected, 'dataset', '(77).jpg', o.classTitle);
      assert.deepEqual(sorted(importedTally(r)), sorted(expected));
      assert.deepEqual(r.datasets.get('dataset')![0]!.size, { width: 5184, height: 3456 });
      assert.deepEqual(r.warnings, []);

      // As the source ships it, without its image: nothing can be imported, and the answer names the file.
      const refs = await uploadProject(t, files.filter((f) => f.type !== 'image'));
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'no image' }, preset: PRESET.supervisely, files: refs } });
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /holds no image.*\(77\)\.jpg\.json: annotation without an image/);
    });
  });
}
