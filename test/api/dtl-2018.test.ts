// The DTL graphs Supervisely published in 2018–2019 (test/fixtures/dtl-2018/, sources in its
// README), each run unchanged through POST /v2/exports on small seeded projects that have the
// classes, tags and image names the graph expects, and checked for what the 2018 engine gives: the
// images kept or dropped, their names, sizes, classes, tags and counts per dataset. Graphs that read
// another's output run after it, as the tutorials chain them. A graph that needs a layer or a
// condition not registered here is skipped, naming what it waits for.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { Value } from 'typebox/value';
import { LAYER_SETTINGS, isAction } from '../../src/dtl/config.ts';
import { rasterBitmap } from '../../src/dtl/geometry.ts';
import { processingLayer } from '../../src/dtl/layers/index.ts';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import type { ExportRecord } from '../../src/formats/writer.ts';
import { newRaster } from '../../src/formats/raster.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { scratchDir } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { readExport } from '../helpers/export-round-trip.ts';
import { newDataset, newImage, newProject, newTag, polygon, tagImage } from '../helpers/factories.ts';
import type { TaskBody } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'dtl-2018');
const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

// --- Seeded projects -------------------------------------------------------------------------

interface ImageSpec {
  name: string;
  width?: number;
  height?: number;
  objects?: AnnotationObject[];
  tags?: string[];
}

interface ProjectSpec {
  classes: [string, string][];
  datasets: Record<string, ImageSpec[]>;
}

const rect = (classTitle: string, left: number, top: number, right: number, bottom: number): AnnotationObject => ({
  classTitle,
  description: '',
  tags: [],
  bitmap: null,
  points: { exterior: [[left, top], [right, bottom]], interior: [] },
});
/** A polygon class's box: the polygon of its four corners (covering the pixels left..right-1, top..bottom-1). */
const box = (classTitle: string, left: number, top: number, right: number, bottom: number) => polygon(classTitle, [[left, top], [right, top], [right, bottom], [left, bottom]]);
const square = (classTitle: string, left: number, top: number, side: number) => polygon(classTitle, [[left, top], [left + side, top], [left + side, top + side], [left, top + side]]);

/** A bitmap whose set pixels are the given boxes `[left, top, width, height]` of an image of that size. */
function bitmap(classTitle: string, width: number, height: number, ...boxes: [number, number, number, number][]): AnnotationObject {
  const raster = newRaster(width, height);
  for (const [l, t, w, h] of boxes) for (let y = t; y < t + h; y++) raster.pixels.fill(1, y * width + l, y * width + l + w);
  const bm = rasterBitmap(raster)!;
  return { classTitle, description: '', tags: [], bitmap: { origin: bm.origin, data: bm.data }, points: { exterior: [], interior: [] } };
}

const images = (prefix: string, count: number, spec: Omit<ImageSpec, 'name'> = {}): ImageSpec[] => Array.from({ length: count }, (_, i) => ({ ...spec, name: `${prefix}${i + 1}.png` }));
const lemons = (): ProjectSpec => ({
  classes: [['lemon', 'bitmap'], ['kiwi', 'bitmap']],
  datasets: { ds1: [{ name: 'l1.jpg', objects: [bitmap('lemon', 40, 30, [2, 3, 5, 4]), bitmap('kiwi', 40, 30, [20, 10, 6, 6])] }, { name: 'l2.jpg', objects: [bitmap('lemon', 40, 30, [10, 10, 8, 8])] }] },
});

/** The Mapillary classes the smart tool's graph maps. */
const MAPILLARY_OBJECTS = ['Trailer', 'Guard Rail', 'Bench', 'Trash Can', 'Fire Hydrant', 'Junction Box', 'On Rails', 'Bike Rack', 'Ground Animal', 'Phone Booth', 'Bus', 'Bicyclist', 'Mailbox', 'Manhole', 'Traffic Sign (Back)', 'Banner', 'Other Vehicle', 'Other Rider', 'Motorcyclist', 'Street Light', 'Catch Basin', 'Motorcycle', 'Person', 'Traffic Sign (Front)', 'Car', 'Caravan', 'Billboard', 'Truck', 'Boat', 'Wheeled Slow'];

const PROJECTS: Record<string, ProjectSpec> = {
  my_roads_01: {
    classes: [['road', 'polygon'], ['car', 'polygon']],
    datasets: { ds: [{ name: 'empty.png' }, { name: 'road.png', objects: [square('road', 0, 0, 10)] }, { name: 'road_car.png', objects: [square('road', 0, 0, 10), square('car', 2, 2, 3)] }, { name: 'car.png', objects: [square('car', 2, 2, 3)] }] },
  },
  my_project_masks: {
    classes: [['car_bm', 'bitmap'], ['person_bm', 'bitmap'], ['sky', 'bitmap']],
    datasets: { ds: [{ name: 'm.png', objects: [bitmap('car_bm', 40, 30, [0, 0, 4, 4], [10, 10, 2, 2]), bitmap('person_bm', 40, 30, [20, 0, 3, 9]), bitmap('sky', 40, 30, [0, 20, 40, 10])] }] },
  },
  my_project: {
    // The car drawn first, the person over it: rasterized, the car loses the pixels under the person.
    classes: [['car_poly', 'polygon'], ['person_poly', 'polygon']],
    datasets: { ds: [{ name: 'p.png', objects: [box('car_poly', 0, 0, 10, 10), box('person_poly', 5, 0, 10, 10)] }] },
  },
  lemons_annotated: { classes: [['lemon', 'bitmap']], datasets: { ds1: [{ name: 'a1.jpg', objects: [bitmap('lemon', 40, 30, [1, 1, 3, 3])] }, { name: 'a2.jpg' }] } },
  lemons_test: { classes: [['lemon', 'bitmap']], datasets: { ds1: [{ name: 't1.jpg' }] } },
  Project_AB: { classes: [['a', 'polygon']], datasets: { dsA: [{ name: 'ab-a.png' }], dsB: [{ name: 'ab-b.png' }] } },
  Project_A: { classes: [['a', 'polygon']], datasets: { dsA: [{ name: 'a-a.png' }] } },
  lemon6_orig: { classes: [['lemon', 'polygon']], datasets: { ds: [{ name: 'big.jpg', width: 400, height: 300, objects: [square('lemon', 100, 100, 40)] }] } },
  wai: { classes: [['char-bitmap', 'bitmap']], datasets: { ds: [{ name: 'w.png', objects: [bitmap('char-bitmap', 40, 30, [2, 2, 12, 3], [2, 2, 3, 12], [20, 5, 6, 6])] }] } },
  my_proj: {
    classes: [['thing', 'polygon']],
    datasets: { ds: [{ name: 'three.png', objects: [square('thing', 0, 0, 2), square('thing', 5, 5, 2), square('thing', 10, 10, 2)] }, { name: 'two.png', objects: [square('thing', 0, 0, 2), square('thing', 5, 5, 2)] }, ...images('plain', 4)] },
  },
  mini_pascal: {
    // 40 × 30 = 1200 pixels: 10% is 120. A 12 × 12 bus (144) stays, a 5 × 5 one (25) goes.
    classes: [['bus', 'polygon'], ['cat', 'polygon']],
    datasets: { ds: [{ name: 'b.png', width: 40, height: 30, objects: [square('bus', 0, 0, 12), square('bus', 20, 20, 5), square('cat', 30, 0, 2)] }] },
  },
  tutorial_project: { classes: [['x', 'rectangle']], datasets: { ds: [{ name: 'x.png', objects: [rect('x', 1, 1, 3, 3)] }, { name: 'none.png' }] } },
  vessels: { classes: [['vessel', 'bitmap']], datasets: { ds: [{ name: 'v.png', objects: [bitmap('vessel', 40, 30, [5, 0, 2, 30])] }] } },
  lemon: lemons(),
  lemon6: lemons(),
  roads_annotated: { classes: [['road', 'polygon']], datasets: { ds: [{ name: 'r1.png', objects: [square('road', 0, 10, 20)] }, { name: 'r2.png', objects: [square('road', 5, 5, 10)] }] } },
  inf_01_annotated: {
    classes: [['road_unet', 'bitmap'], ['sky_unet', 'bitmap']],
    datasets: { ds: [{ name: 'i1.png', tags: ['corrected'], objects: [bitmap('road_unet', 40, 30, [0, 20, 40, 10]), bitmap('sky_unet', 40, 30, [0, 0, 40, 5])] }, { name: 'i2.png', objects: [bitmap('road_unet', 40, 30, [0, 20, 40, 10])] }] },
  },
  cityscapes_orig: {
    classes: [['person', 'polygon'], ['rider', 'polygon'], ['car', 'polygon'], ['road', 'polygon']],
    datasets: {
      frankfurt: [
        // Road first, the car over it, people over the car; the tiny person is 4 × 4 pixels.
        { name: 'f1.png', width: 80, height: 60, objects: [box('road', 0, 30, 80, 60), box('car', 10, 20, 40, 50), box('person', 30, 10, 50, 50), box('rider', 60, 5, 64, 9)] },
        { name: 'f2.png', width: 80, height: 60, objects: [box('road', 0, 30, 80, 60)] },
      ],
    },
  },
  mapillary: {
    classes: [['Person', 'bitmap'], ['Bicyclist', 'bitmap'], ['Other Rider', 'bitmap'], ['Motorcyclist', 'bitmap'], ['Car', 'bitmap']],
    datasets: { ds: [{ name: 'm1.jpg', width: 80, height: 60, objects: [bitmap('Person', 80, 60, [10, 10, 20, 40]), bitmap('Bicyclist', 80, 60, [50, 50, 2, 2]), bitmap('Car', 80, 60, [0, 0, 30, 10])] }, { name: 'm2.jpg', width: 80, height: 60, objects: [bitmap('Car', 80, 60, [0, 0, 30, 10])] }] },
  },
  INRIA: {
    classes: [['building', 'bitmap']],
    datasets: {
      train: ['austin', 'chicago', 'kitsap', 'tyrol-w', 'vienna'].flatMap((town) => images(town, 8, { width: 1024, height: 512, objects: [bitmap('building', 1024, 512, [100, 100, 50, 50])] })),
    },
  },
  inf_INRIA_test_part: { classes: [['untitled_dl', 'bitmap']], datasets: { ds: [{ name: 'x.tif', objects: [bitmap('untitled_dl', 40, 30, [0, 0, 3, 3], [10, 10, 4, 4], [30, 20, 2, 2])] }] } },
  aberystwyth: { classes: [['leaf', 'bitmap']], datasets: { ds: [{ name: 'plant.png', objects: [bitmap('leaf', 40, 30, [0, 0, 5, 5], [20, 20, 6, 6])] }] } },
  'kitti-semseg-train': {
    classes: [['car', 'bitmap'], ['bus', 'bitmap'], ['train', 'bitmap'], ['truck', 'bitmap'], ['caravan', 'bitmap'], ['trailer', 'bitmap'], ['road', 'bitmap']],
    datasets: { training: [{ name: 'k1.png', width: 124, height: 38, objects: [bitmap('car', 124, 38, [10, 20, 20, 10]), bitmap('bus', 124, 38, [60, 10, 30, 20]), bitmap('road', 124, 38, [0, 30, 124, 8])] }] },
  },
  powerlines_annotated: {
    classes: [['Isolator', 'bitmap'], ['neutral', 'bitmap'], ['pole', 'bitmap']],
    datasets: { ds: [{ name: 'pl.jpg', width: 100, height: 100, objects: [bitmap('Isolator', 100, 100, [0, 0, 100, 100]), bitmap('pole', 100, 100, [40, 0, 5, 100])] }] },
  },
  'crop and weed': { classes: [['crop', 'bitmap'], ['weed', 'bitmap']], datasets: { ds: images('cw', 6, { objects: [bitmap('crop', 64, 48, [0, 0, 64, 48])] }) } },
  PascalVOC: { classes: [['neutral', 'bitmap'], ['person', 'bitmap']], datasets: { ds: [{ name: 'v.jpg', width: 100, height: 100, objects: [bitmap('person', 100, 100, [40, 40, 20, 20])] }] } },
  Mapillary: {
    classes: [...MAPILLARY_OBJECTS, 'Sky'].map((c): [string, string] => [c, 'bitmap']), datasets: { ds: [{ name: 'm.jpg', width: 100, height: 100, objects: [bitmap('Person', 100, 100, [40, 40, 20, 20]), bitmap('Car', 100, 100, [0, 0, 30, 20])] }] } },
  country_roads_labeled: { classes: [['road', 'bitmap']], datasets: { ds: [{ name: 'c.png', objects: [bitmap('road', 64, 48, [0, 20, 64, 28])] }] } },
};

async function seed(t: TestApp, title: string, spec: ProjectSpec): Promise<void> {
  const projectId = await newProject(t.ctx, { title, classes: spec.classes.map(([c, shape]) => ({ title: c, shape })) });
  const tagIds = new Map<string, number>();
  for (const [dataset, list] of Object.entries(spec.datasets)) {
    const datasetId = await newDataset(t.ctx, projectId, dataset);
    for (const [i, image] of list.entries()) {
      const width = image.width ?? 64;
      const height = image.height ?? 48;
      const { id } = await newImage(t.ctx, datasetId, { name: image.name, width, height, bytes: await pngImage(width, height, i + 1), objects: image.objects ?? [] });
      for (const tag of image.tags ?? []) {
        if (!tagIds.has(tag)) tagIds.set(tag, await newTag(t.ctx, projectId, { title: tag }));
        await tagImage(t.ctx, id, tagIds.get(tag)!);
      }
    }
  }
}

// --- What each graph needs and gives ------------------------------------------------------------

interface Outcome {
  meta: Record<string, unknown> & { deadEnds: { count: number; at: { layer: number; dst: string; count: number }[] }; warnings: string[] };
  /** The output's images: the new project's, or the archive's annotations (objects and tags). */
  records: Pick<ExportRecord, 'dataset' | 'name' | 'width' | 'height' | 'objects' | 'tags'>[];
  classes: string[];
}

interface Case {
  file: string;
  /** Layers, or `if.<condition>`, that must be registered for the graph to run. */
  needs?: string[];
  check?: (o: Outcome) => void;
}

const names = (o: Outcome) => o.records.map((r) => `${r.dataset}/${r.name}`).sort();
const tagsOf = (r: Outcome['records'][number]) => r.tags.map((t) => t.name).sort();
const classesOf = (o: Outcome) => [...new Set(o.records.flatMap((r) => r.objects.map((x) => x.classTitle)))].sort();
const perDataset = (o: Outcome) => Object.fromEntries([...new Set(o.records.map((r) => r.dataset))].sort().map((d) => [d, o.records.filter((r) => r.dataset === d).length]));
/** Items of a train/val split: each tagged with exactly one of the two. */
function splitTrainVal(o: Outcome, train = 'train', val = 'val'): void {
  assert.ok(o.records.length > 0);
  for (const r of o.records) assert.equal(tagsOf(r).filter((t) => t === train || t === val).length, 1, `${r.name}: ${tagsOf(r).join(',')}`);
}
/** Every item starts with the background: the whole image to its last column and row. */
function backgroundFirst(o: Outcome): void {
  for (const r of o.records) assert.deepEqual([r.objects[0]!.classTitle, r.objects[0]!.points.exterior], ['bg', [[0, 0], [r.width - 1, r.height - 1]]], r.name);
}

const CASES: Case[] = [
  {
    file: 'download-filter-1',
    check: (o) => {
      assert.deepEqual(names(o), ['my_roads_01__ds/car.png', 'my_roads_01__ds/road.png', 'my_roads_01__ds/road_car.png']);
      assert.deepEqual(o.meta.deadEnds, { count: 1, at: [{ layer: 1, dst: '$img_zero_obj', count: 1 }] });
    },
  },
  {
    file: 'download-filter-2',
    check: (o) => {
      assert.deepEqual(names(o), ['my_roads_01__ds/road.png']);
      assert.deepEqual(o.meta.deadEnds, { count: 3, at: [{ layer: 1, dst: '$img_no_road', count: 2 }, { layer: 2, dst: '$img_with_car', count: 1 }] });
    },
  },
  { file: 'download-labeled', check: (o) => assert.deepEqual(names(o), ['tutorial_project__ds/x.png']) },
  { file: 'drop-classes-simple-1', check: (o) => assert.deepEqual([o.classes, classesOf(o)], [['car_bm'], ['car_bm']]) },
  { file: 'drop-classes-simple-2', check: (o) => assert.deepEqual([o.classes, classesOf(o)], [['car_bm', 'sky'], ['car_bm', 'sky']]) },
  {
    file: 'drop-classes-complex',
    check: (o) => {
      assert.deepEqual(o.classes, ['car_bm']);
      // The car keeps the columns the person does not cover: 5 of 10.
      const [car] = o.records[0]!.objects;
      assert.deepEqual([car!.classTitle, car!.bitmap!.origin], ['car_bm', [0, 0]]);
    },
  },
  { file: 'dtl-intro', check: (o) => assert.equal(o.records.length, 2) },
  {
    file: 'merge-datasets-1',
    check: (o) => assert.deepEqual(perDataset(o), { ds_annotated: 2, ds_test: 1 }),
  },
  { file: 'split-datasets', check: (o) => assert.deepEqual(names(o), ['ds1/a1.jpg', 'ds1/a2.jpg']) },
  {
    file: 'merge-datasets-2',
    check: (o) => assert.deepEqual(perDataset(o), { Project_AB__dsA: 1, Project_AB__dsB: 1, Project_A__dsA: 1 }),
  },
  {
    file: 'resize',
    check: (o) => {
      assert.deepEqual([o.records[0]!.width, o.records[0]!.height], [800, 600]);
      assert.deepEqual(o.records[0]!.objects[0]!.points.exterior[0], [200, 200]);
    },
  },
  {
    file: 'vectorize-bitmap-contours',
    check: (o) => {
      assert.deepEqual(o.classes, ['char-poly']);
      assert.equal(o.records[0]!.objects.length, 2);
      assert.ok(o.records[0]!.objects.every((x) => x.classTitle === 'char-poly' && x.points.exterior.length >= 3));
    },
  },
  { file: 'vectorize-bitmap-skeleton', needs: ['skeletonize', 'bitmap2lines'] },
  { file: 'vectorize-bitmap-three-classes', needs: ['skeletonize', 'bitmap2lines'] },
  {
    file: 'if-train-val-tags',
    check: (o) => {
      assert.equal(o.records.length, 6);
      splitTrainVal(o);
    },
  },
  { file: 'if-sample', check: (o) => assert.equal(o.meta.deadEnds.count + o.records.length, 6) },
  {
    file: 'if-objects-count',
    check: (o) => {
      assert.deepEqual(names(o), ['my_proj__ds/three.png']);
      assert.deepEqual(o.meta.deadEnds.at, [{ layer: 1, dst: '$data_2', count: 5 }]);
    },
  },
  { file: 'objects-filter-percent', check: (o) => assert.deepEqual(o.records[0]!.objects.map((x) => `${x.classTitle}@${x.points.exterior[0]!.join(',')}`), ['bus@0,0', 'cat@30,0']) },
  {
    file: 'nn-unet-vessels',
    check: (o) => {
      // 1 image, flipped: 4 (the flip of the flip too); each ten times cropped and once whole: 44.
      assert.equal(o.records.length, 44);
      splitTrainVal(o);
      backgroundFirst(o);
    },
  },
  { file: 'nn-unet-lemon', check: (o) => (assert.equal(o.records.length, 88), splitTrainVal(o), backgroundFirst(o)) },
  { file: 'nn-deeplab', check: (o) => (assert.equal(o.records.length, 88), backgroundFirst(o)) },
  { file: 'nn-mask-rcnn', check: (o) => (assert.equal(o.records.length, 88), splitTrainVal(o), assert.deepEqual(o.classes, ['lemon', 'kiwi'])) },
  {
    file: 'nn-yolo-v3',
    check: (o) => {
      assert.equal(o.records.length, 88);
      assert.deepEqual(o.classes, ['lemon_bbox', 'kiwi_bbox']);
      // l1.jpg's lemon covers columns 2..6 and rows 3..6, its kiwi 20..25 and 10..15: each box
      // includes its last pixel (the copy neither flipped nor cropped shows them as they were).
      const boxes = o.records.map((r) => JSON.stringify(r.objects.map((x) => [x.classTitle, x.points.exterior])));
      assert.ok(boxes.includes(JSON.stringify([['lemon_bbox', [[2, 3], [6, 6]]], ['kiwi_bbox', [[20, 10], [25, 15]]]])));
    },
  },
  { file: 'roads-1', check: (o) => (assert.equal(o.records.length, 2 * 2 * 11), splitTrainVal(o), backgroundFirst(o)) },
  {
    file: 'roads-2',
    check: (o) => {
      // Corrected: i1 twice; annotated: r1, r2. Flipped and not (8), ten crops each and the whole (88).
      assert.equal(o.records.length, 88);
      assert.deepEqual(o.meta.deadEnds.at, [{ layer: 1, dst: '$to_skip', count: 1 }]);
      assert.deepEqual(perDataset(o), { iteration_00: 44, iteration_01: 44 });
      assert.deepEqual(classesOf(o), ['bg', 'road']);
    },
  },
  {
    file: 'fast-person-1',
    check: (o) => {
      assert.deepEqual(o.classes, ['person']);
      assert.deepEqual(classesOf(o), ['person']);
    },
  },
  {
    file: 'fast-person-2',
    check: (o) => {
      // f2 has no person and goes; in f1 the 4-pixel rider, 40 px tall after the resize, stays, as does the person.
      assert.deepEqual(o.records.map((r) => r.name), ['f1.png']);
      assert.deepEqual([o.records[0]!.width, o.records[0]!.height], [800, 600]);
      assert.deepEqual(o.classes, ['person']);
      assert.equal(o.records[0]!.objects.length, 2);
      assert.deepEqual(o.meta.deadEnds.at, [{ layer: 1, dst: 'null', count: 1 }]);
    },
  },
  {
    file: 'fast-person-3',
    check: (o) => {
      // m2 has only a car (ignored) and goes; in m1 the 2 × 2 bicyclist (20 × 20 after the resize) stays.
      assert.deepEqual(names(o), ['mapillary__ds/m1.jpg']);
      assert.deepEqual(o.records[0]!.objects.map((x) => x.classTitle), ['person', 'person']);
      assert.deepEqual(o.records[0]!.objects.map((x) => x.points.exterior), [[[100, 100], [290, 490]], [[500, 500], [510, 510]]]);
    },
  },
  {
    file: 'fast-person-4',
    check: (o) => {
      // Two images and their flips, whole (4), and their crops that still show a person (up to 4).
      assert.ok(o.records.length >= 4 && o.records.length <= 8, String(o.records.length));
      splitTrainVal(o);
    },
  },
  { file: 'fast-person-5', check: (o) => assert.ok(o.records.length >= 4 && o.records.every((r) => r.objects.length > 0)) },
  {
    file: 'satellite-1',
    check: (o) => {
      // Every image matches its town's pattern (the name without its extension): none is lost.
      assert.equal(o.records.length, 40);
      for (const r of o.records) {
        const town = /^(.*?)\d+\.png$/.exec(r.name)![1]!;
        assert.deepEqual(tagsOf(r).filter((t) => t !== 'trainval' && t !== 'test'), [town]);
        assert.equal(tagsOf(r).length, 2);
      }
      assert.equal(o.meta.deadEnds.count, 4 * 40);
    },
  },
  {
    file: 'satellite-2',
    check: (o) => {
      // 1024 × 512 images, 512 windows: two crops each, flipped, 95% train; crops without a building go.
      for (const r of o.records) {
        assert.deepEqual([r.width, r.height], [512, 512]);
        assert.ok(tagsOf(r).includes('trainval') && r.objects.length > 0);
      }
      if (o.records.length === 0) assert.match(o.meta.warnings[0]!, /^the output is empty/);
      else splitTrainVal(o);
    },
  },
  { file: 'satellite-3', check: (o) => assert.equal(o.records[0]!.objects.length, 3) },
  { file: 'instance-boundary-1', check: (o) => assert.equal(o.records[0]!.objects.length, 2) },
  { file: 'instance-boundary-2', needs: ['line2bitmap'] },
  {
    file: 'irregular-image-size',
    check: (o) => {
      // One image, flipped and not, six copies each: 12 crops of 27–30% of the width.
      assert.equal(o.records.length, 12);
      assert.deepEqual(o.classes, ['vehicle']);
      assert.deepEqual(perDataset(o), { training: 12 });
      assert.ok(o.records.every((r) => r.width >= 33 && r.width <= 38 && r.height >= 34));
    },
  },
  {
    file: 'powerlines',
    check: (o) => {
      // The isolator covers the whole image: every crop keeps it, and is flipped once more.
      assert.equal(o.records.length, 100);
      assert.deepEqual(o.classes, ['Isolator', 'neutral']);
      splitTrainVal(o);
    },
  },
  { file: 'neutral-class-1', check: (o) => (assert.equal(o.records.length, 6), splitTrainVal(o, 'train_val', 'test')) },
  { file: 'neutral-class-2', needs: ['if.sum_object_area'] },
  { file: 'smarttool-pascal', needs: ['generate_hints'] },
  { file: 'smarttool-mapillary', needs: ['generate_hints'] },
  { file: 'repo-unet-roads-training', needs: ['line2bitmap'] },
  { file: 'repo-segmentation-graph', check: (o) => (assert.equal(o.records.length, 2 * 2 * 6), splitTrainVal(o), backgroundFirst(o)) },
];

/** What a case waits for that is not registered: a layer, or an `if` condition. */
function missing(c: Case): string[] {
  return (c.needs ?? []).filter((need) => {
    if (need.startsWith('if.')) {
      const condition = need.slice(3);
      return !Value.Check(LAYER_SETTINGS.if, { condition: { [condition]: 1, classes: ['a'] } }) && !Value.Check(LAYER_SETTINGS.if, { condition: { [condition]: 1 } });
    }
    return !(isAction(need) && processingLayer(need));
  });
}

test('every published graph in test/fixtures/dtl-2018 is a case here', () => {
  const files = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
  assert.deepEqual(files, CASES.map((c) => c.file).sort());
});

for (const dialect of dialects) {
  describe(`the published 2018 DTL graphs on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner;

    before(async () => {
      t = await startTestApp(dialect);
      runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 10_000 });
      for (const [title, spec] of Object.entries(PROJECTS)) await seed(t, title, spec);
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    async function finished(id: number): Promise<TaskBody & { meta: Outcome['meta'] & { project?: { id: number } } }> {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const { task } = json<{ task: TaskBody & { meta: Outcome['meta'] & { project?: { id: number } } } }>(await t.request({ method: 'GET', url: `/v2/exports/${id}` }));
        if (['finished', 'error', 'stopped'].includes(task.status)) {
          assert.equal(task.status, 'finished', JSON.stringify(task.meta));
          return task;
        }
        if (Date.now() > deadline) assert.fail(`export ${id} still ${task.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    /** The archive of a save output as records: each dataset's `ann/*.json`. */
    async function archiveRecords(id: number): Promise<Outcome['records']> {
      const download = await t.request({ method: 'GET', url: `/v2/exports/${id}/archive` });
      assert.equal(download.statusCode, 200);
      const dir = scratchDir(`dtl-2018-${id}`);
      const file = `${dir}.zip`;
      fs.writeFileSync(file, download.rawPayload);
      execFileSync('unzip', ['-q', file, '-d', dir]);
      fs.rmSync(file);
      const records: Outcome['records'] = [];
      for (const dataset of fs.readdirSync(dir).filter((d) => fs.existsSync(path.join(dir, d, 'ann')))) {
        for (const ann of fs.readdirSync(path.join(dir, dataset, 'ann'))) {
          const a = JSON.parse(fs.readFileSync(path.join(dir, dataset, 'ann', ann), 'utf8')) as { size: { width: number; height: number }; objects: Outcome['records'][number]['objects']; tags: Outcome['records'][number]['tags'] };
          records.push({ dataset, name: ann.slice(0, -'.json'.length), width: a.size.width, height: a.size.height, objects: a.objects, tags: a.tags });
        }
      }
      return records;
    }

    for (const c of CASES) {
      const waits = missing(c);
      test(`${c.file}: runs as published`, { skip: waits.length > 0 ? `waits for ${waits.join(', ')}` : false }, async () => {
        const config = JSON.parse(fs.readFileSync(path.join(FIXTURES, `${c.file}.json`), 'utf8')) as { action: string }[];
        const res = await t.request({ method: 'POST', url: '/v2/exports', payload: { config } });
        assert.equal(res.statusCode, 201, res.body);
        const task = await finished(json<{ task: TaskBody }>(res).task.id);
        assert.deepEqual(task.meta.skipped, { count: 0, first: [] });
        let outcome: Outcome;
        if (task.meta.project) {
          const { project, records } = await readExport(t, task.meta.project.id);
          outcome = { meta: task.meta, records, classes: project.classes.map((k) => k.title) };
        } else {
          outcome = { meta: task.meta, records: await archiveRecords(task.id), classes: [] };
        }
        if (outcome.records.length > 0) assert.deepEqual(task.meta.warnings, []);
        c.check?.(outcome);
      });
    }

    test('a graph whose output receives nothing says so in the task’s warnings', async () => {
      const config = [
        { action: 'data', src: ['my_roads_01/*'], dst: '$all', settings: { classes_mapping: 'default' } },
        { action: 'if', src: ['$all'], dst: ['$named', 'null'], settings: { condition: { regex_names: ['^nothing[0-9]+$'] } } },
        { action: 'supervisely', src: ['$named'], dst: 'nothing', settings: {} },
      ];
      const res = await t.request({ method: 'POST', url: '/v2/exports', payload: { config } });
      assert.equal(res.statusCode, 201, res.body);
      const task = await finished(json<{ task: TaskBody }>(res).task.id);
      assert.deepEqual(task.meta.warnings, ['the output is empty: no item reached layer 2 (supervisely); 4 went to dead ends (meta.deadEnds)']);
      assert.deepEqual(task.meta.deadEnds, { count: 4, at: [{ layer: 1, dst: 'null', count: 4 }] });
    });
  });
}
