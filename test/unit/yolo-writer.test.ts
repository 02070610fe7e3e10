// The YOLO writer: Ultralytics' layout and data.yaml, rows read back by our reader within 1e-6 of the
// normalised coordinates, bitmaps as contours that draw the mask back, a real import of what it
// writes, and peer datasets through a round trip.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import type { Point, ShapedObject } from '../../src/formats/canonical.ts';
import { fillPolygon, newRaster, paintMask } from '../../src/formats/raster.ts';
import { decodeBitmap } from '../../src/formats/supervisely/index.ts';
import { readDataYaml, readLabelFile } from '../../src/formats/yolo/index.ts';
import { BITMAP_HOLES_FILLED, BOXES_ONLY, HOLES_DROPPED, SKIPPED_LINE_OR_POINT, type YoloTask } from '../../src/formats/yolo/rows.ts';
import { YoloWriter } from '../../src/formats/yolo/writer.ts';
import type { ExportProject, ExportRecord } from '../../src/formats/writer.ts';
import { listFiles, readText, scratchDir, writeAll, writeEntries } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { importFolder, readExport, storedImage } from '../helpers/export-round-trip.ts';
import { SAMPLE_PROJECT, STAIN_ORIGIN, STAIN_PIXELS, sampleImages, sampleRecords } from '../helpers/export-samples.ts';
import { withImportRunner } from '../helpers/importing.ts';
import { PEER } from '../helpers/peer-fixtures.ts';
import type { TestApp } from '../helpers/test-app.ts';

const NAMES = SAMPLE_PROJECT.classes.map((c) => c.title);

async function writeFolder(task: YoloTask, splitsFromDatasets: boolean, records = sampleRecords(), imageBytes = sampleImages(records), project: ExportProject = SAMPLE_PROJECT) {
  const dir = scratchDir('yolo-writer');
  const writer = new YoloWriter(project, { includeImages: true, task, splitsFromDatasets });
  await writeEntries(await writeAll(writer, records), dir, imageBytes);
  return { dir, notices: writer.notices() };
}

/** Asserts every coordinate of `actual` is within 1e-6 of `expected`'s, normalised by the image size. */
function assertNear(actual: Point[], expected: Point[], width: number, height: number, what: string): void {
  assert.equal(actual.length, expected.length, what);
  actual.forEach(([x, y], i) => {
    const [ex, ey] = expected[i]!;
    assert.ok(Math.abs(x / width - ex / width) <= 1e-6 && Math.abs(y / height - ey / height) <= 1e-6, `${what}: point ${i} is ${[x, y]}, expected ${[ex, ey]}`);
  });
}

const box = (points: Point[]): Point[] => {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  return [[Math.min(...xs), Math.min(...ys)], [Math.max(...xs), Math.max(...ys)]];
};

const labels = (dir: string, rel: string, width: number, height: number): ShapedObject[] => {
  const read = readLabelFile(readText(dir, rel), rel, NAMES, width, height);
  assert.deepEqual(read.warnings, []);
  return read.objects;
};

describe('YOLO writer', () => {
  test('detection: layout, data.yaml, a label file for every image, boxes within 1e-6', async () => {
    const records = sampleRecords();
    const { dir, notices } = await writeFolder('detect', true, records);
    assert.deepEqual(listFiles(dir), [
      'data.yaml',
      'images/train/a.jpg',
      'images/train/a_1.png',
      'images/val/c.jpg',
      'images/val/empty.jpg',
      'labels/train/a.txt',
      'labels/train/a_1.txt',
      'labels/val/c.txt',
      'labels/val/empty.txt',
    ]);
    const yaml = parse(readText(dir, 'data.yaml')) as Record<string, unknown>;
    assert.deepEqual(yaml, { path: '.', train: 'images/train', val: 'images/val', names: Object.fromEntries(NAMES.map((n, i) => [i, n])) });
    assert.match(readText(dir, 'data.yaml'), /^names:\n {2}0: person\n {2}1: car\n/m);
    const config = readDataYaml(readText(dir, 'data.yaml'), 'data.yaml');
    assert.deepEqual(config.names, NAMES);
    assert.deepEqual(config.splits, [{ name: 'train', entries: ['images/train'] }, { name: 'val', entries: ['images/val'] }]);

    const a = readText(dir, 'labels/train/a.txt').trim().split('\n');
    assert.equal(a.length, 4);
    assert.ok(a.every((row) => row.split(' ').slice(1).every((v) => Number(v) >= 0 && Number(v) <= 1)));
    assert.deepEqual(a.map((row) => Number(row.split(' ')[0])), [0, 1, 4, 5]);
    const [person, car, lake, stain] = labels(dir, 'labels/train/a.txt', 64, 48);
    const source = records[0]!.objects;
    assertNear(person!.points.exterior, box(source[0]!.points.exterior), 64, 48, 'person');
    assertNear(car!.points.exterior, source[1]!.points.exterior, 64, 48, 'car');
    assertNear(lake!.points.exterior, box(source[4]!.points.exterior), 64, 48, 'lake');
    assertNear(stain!.points.exterior, [STAIN_ORIGIN, [STAIN_ORIGIN[0] + 15, STAIN_ORIGIN[1] + 13]], 64, 48, 'stain');
    assert.equal(readText(dir, 'labels/train/a_1.txt').split('\n').length, 3);
    assert.equal(readText(dir, 'labels/val/c.txt'), '1 0.5 0.5 1 1\n');
    assert.equal(readText(dir, 'labels/val/empty.txt'), '');
    // Polygons and bitmaps as boxes: person, lake and stain of a.jpg, person of a.png.
    assert.deepEqual(notices.map((n) => [n.message, n.count]), [
      [BOXES_ONLY, 4],
      [SKIPPED_LINE_OR_POINT, 2],
      [notices[2]!.message, 1],
    ]);
    assert.match(notices[2]!.message, /renamed/);
  });

  test('segmentation: polygons within 1e-6, rectangles as corners, a bitmap as the contours of its pieces', async () => {
    const records = sampleRecords();
    const { dir, notices } = await writeFolder('segment', true, records);
    const [person, car, lake, piece1, piece2] = labels(dir, 'labels/train/a.txt', 64, 48);
    const source = records[0]!.objects;
    assertNear(person!.points.exterior, source[0]!.points.exterior, 64, 48, 'person');
    assertNear(car!.points.exterior, [[34, 4], [60, 4], [60, 18], [34, 18]], 64, 48, 'car');
    assertNear(lake!.points.exterior, source[4]!.points.exterior, 64, 48, 'lake');
    // The two pieces drawn back are the bitmap's pixels, its hole filled in.
    const drawn = newRaster(64, 48);
    for (const piece of [piece1!, piece2!]) fillPolygon(drawn, [piece.points.exterior], 1);
    const expected = newRaster(64, 48);
    for (const [x, y] of STAIN_PIXELS) expected.pixels[(STAIN_ORIGIN[1] + y) * 64 + STAIN_ORIGIN[0] + x] = 1;
    for (let y = 3; y < 5; y++) for (let x = 3; x < 5; x++) expected.pixels[(STAIN_ORIGIN[1] + y) * 64 + STAIN_ORIGIN[0] + x] = 1;
    assert.deepEqual(drawn.pixels, expected.pixels);
    assert.equal(readText(dir, 'labels/val/c.txt'), '1 0 0 1 0 1 1 0 1\n');
    assert.deepEqual(notices.map((n) => n.message).sort(), [BITMAP_HOLES_FILLED, HOLES_DROPPED, SKIPPED_LINE_OR_POINT, notices.find((n) => /renamed/.test(n.message))!.message].sort());
  });

  test('one split for all datasets when datasets are not splits; val is then the training folder', async () => {
    const { dir } = await writeFolder('detect', false);
    assert.deepEqual(listFiles(dir).filter((p) => p.startsWith('labels/')), ['labels/train/a.txt', 'labels/train/a_1.txt', 'labels/train/c.txt', 'labels/train/empty.txt']);
    assert.deepEqual(parse(readText(dir, 'data.yaml')), { path: '.', train: 'images/train', val: 'images/train', names: Object.fromEntries(NAMES.map((n, i) => [i, n])) });
    // The reader takes a val that repeats train as no split of its own.
    assert.deepEqual(readDataYaml(readText(dir, 'data.yaml'), 'data.yaml').splits, [{ name: 'train', entries: ['images/train'] }]);
  });

  test('datasets of other names are trained on beside train, and named test is a test split', async () => {
    const records = sampleRecords().map((r) => ({ ...r, dataset: r.dataset === 'val' ? 'Test' : r.dataset }));
    records.push({ ...records[0]!, dataset: 'extra' });
    const { dir } = await writeFolder('detect', true, records);
    const yaml = parse(readText(dir, 'data.yaml')) as Record<string, unknown>;
    assert.deepEqual([yaml.train, yaml.val, yaml.test], [['images/train', 'images/extra'], ['images/train', 'images/extra'], 'images/Test']);
  });

  describe('through the app', () => {
    const [sqlite] = dialects;
    let t: TestApp;
    withImportRunner(sqlite!, (app) => (t = app));

    /** Objects of two imports agree: same classes, every coordinate within 1e-6 normalised. */
    function assertSameObjects(second: ExportRecord[], first: ExportRecord[]): void {
      const key = (r: ExportRecord) => `${r.dataset}/${r.name}`;
      assert.deepEqual(second.map(key).sort(), first.map(key).sort());
      for (const r of first) {
        const other = second.find((s) => key(s) === key(r))!;
        assert.deepEqual(other.objects.map((o) => o.classTitle), r.objects.map((o) => o.classTitle), key(r));
        other.objects.forEach((o, i) => assertNear(o.points.exterior, r.objects[i]!.points.exterior, r.width, r.height, `${key(r)} object ${i}`));
      }
    }

    test('the sample project, segmentation: datasets as splits, objects within 1e-6', async () => {
      const records = sampleRecords();
      const { dir } = await writeFolder('segment', true, records);
      const { projectId } = await importFolder(t, dir, 'yolo');
      const { project, records: back } = await readExport(t, projectId);
      assert.deepEqual(project.classes.map((c) => c.title), NAMES);
      assert.deepEqual(back.map((r) => [r.dataset, r.name, r.objects.length]).sort(), [
        ['train', 'a.jpg', 5],
        ['train', 'a_1.png', 2],
        ['val', 'c.jpg', 1],
        ['val', 'empty.jpg', 0],
      ]);
      const a = back.find((r) => r.name === 'a.jpg')!;
      assertNear(a.objects[0]!.points.exterior, records[0]!.objects[0]!.points.exterior, 64, 48, 'person');
      const stain = newRaster(64, 48);
      paintMask(stain, await decodeBitmap(records[0]!.objects[5]!.bitmap!.data), records[0]!.objects[5]!.bitmap!.origin, 1);
      const drawn = newRaster(64, 48);
      for (const o of a.objects.slice(3)) fillPolygon(drawn, [o.points.exterior], 1);
      assert.equal(drawn.pixels.reduce((n, v) => n + v, 0), stain.pixels.reduce((n, v) => n + v, 0) + 4);
    });

    for (const [fixture, task] of [
      ['labelformat/yolo/instance_segmentation', 'segment'],
      ['datumaro/yolo/labels', 'detect'],
    ] as const) {
      test(`the peer dataset ${fixture}: imported, written, imported again, the same within 1e-6`, async () => {
        const { projectId } = await importFolder(t, path.join(PEER, ...fixture.split('/')), 'yolo');
        const first = await readExport(t, projectId);
        assert.ok(first.records.some((r) => r.objects.length > 0));
        const { dir, notices } = await writeFolder(task, true, first.records, storedImage(t), first.project);
        assert.deepEqual(notices, []);
        const again = await importFolder(t, dir, 'yolo');
        const second = await readExport(t, again.projectId);
        assert.deepEqual(second.project.classes.map((c) => c.title), first.project.classes.map((c) => c.title));
        assertSameObjects(second.records, first.records);
      });
    }
  });
});
