// The Pascal VOC writer: layout, XML, boxes as they are, split lists, labelmap and palette masks, read
// back by our readers and by a real import, and a peer dataset through a round trip.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import type { Point } from '../../src/formats/canonical.ts';
import { isBackgroundLabel, readClassMask, readInstanceMask, readLabelMap, readSplitList, readVocXml } from '../../src/formats/pascal-voc/index.ts';
import { BOXES_ONLY, SKIPPED_LINE_OR_POINT, VocWriter } from '../../src/formats/pascal-voc/writer.ts';
import { type Raster, newRaster, paintMask, paintObject } from '../../src/formats/raster.ts';
import { decodeBitmap, readMaskSize } from '../../src/formats/supervisely/index.ts';
import type { ExportObject, ExportProject, ExportRecord } from '../../src/formats/writer.ts';
import { listFiles, readText, scratchDir, writeAll, writeEntries } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { importFolder, readExport, storedImage } from '../helpers/export-round-trip.ts';
import { SAMPLE_PROJECT, sampleImages, sampleRecords } from '../helpers/export-samples.ts';
import { withImportRunner } from '../helpers/importing.ts';
import { PEER } from '../helpers/peer-fixtures.ts';
import type { TestApp } from '../helpers/test-app.ts';

async function writeFolder(records: ExportRecord[], imageBytes: (hash: string) => Promise<Buffer>, project: ExportProject = SAMPLE_PROJECT, segmentation = true) {
  const dir = scratchDir('voc-writer');
  const writer = new VocWriter(project, { includeImages: true, segmentation });
  await writeEntries(await writeAll(writer, records), dir, imageBytes);
  return { dir, notices: writer.notices() };
}

/** The box VOC keeps of an object, as our reader reads it back: the same numbers. */
function vocBox(points: Point[]): Point[] {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  return [[Math.min(...xs), Math.min(...ys)], [Math.max(...xs), Math.max(...ys)]];
}

async function pixelsOf(bitmap: { origin: [number, number]; data: string }, width: number, height: number): Promise<Uint8Array> {
  const r = newRaster(width, height);
  paintMask(r, await decodeBitmap(bitmap.data), bitmap.origin, 1);
  return r.pixels;
}

async function drawn(shape: 'polygon' | 'bitmap', object: ExportObject, width: number, height: number): Promise<Uint8Array> {
  const r: Raster = newRaster(width, height);
  await paintObject(r, shape, object, 1);
  return r.pixels;
}

const file = (dir: string, rel: string) => fs.readFileSync(path.join(dir, rel));

describe('Pascal VOC writer', () => {
  test('without segmentation, polygons and bitmaps are boxes only, and a notice counts them', async () => {
    const records = sampleRecords();
    const { dir, notices } = await writeFolder(records, sampleImages(records), SAMPLE_PROJECT, false);
    assert.ok(!listFiles(dir).some((f) => f.startsWith('Segmentation')));
    // person, lake and stain of a.jpg, person of a.png
    assert.deepEqual(notices.filter((n) => n.message === BOXES_ONLY).map((n) => [n.count, n.first]), [[4, 'train/a.jpg']]);
    const withMasks = await writeFolder(records, sampleImages(records));
    assert.ok(!withMasks.notices.some((n) => n.message === BOXES_ONLY));
  });

  test('layout, split lists, labelmap, and XML with boxes as they are and tags', async () => {
    const records = sampleRecords();
    const { dir, notices } = await writeFolder(records, sampleImages(records));
    assert.deepEqual(listFiles(dir), [
      'Annotations/a.xml',
      'Annotations/a_1.xml',
      'Annotations/c.xml',
      'Annotations/empty.xml',
      'ImageSets/Main/train.txt',
      'ImageSets/Main/val.txt',
      'ImageSets/Segmentation/train.txt',
      'JPEGImages/a.jpg',
      'JPEGImages/a_1.png',
      'JPEGImages/c.jpg',
      'JPEGImages/empty.jpg',
      'SegmentationClass/a.png',
      'SegmentationClass/a_1.png',
      'SegmentationObject/a.png',
      'SegmentationObject/a_1.png',
      'labelmap.txt',
    ]);
    assert.deepEqual(readSplitList(readText(dir, 'ImageSets/Main/train.txt')), ['a', 'a_1']);
    assert.deepEqual(readSplitList(readText(dir, 'ImageSets/Main/val.txt')), ['c', 'empty']);
    assert.deepEqual(readSplitList(readText(dir, 'ImageSets/Segmentation/train.txt')), ['a', 'a_1']);
    const labelMap = readLabelMap(readText(dir, 'labelmap.txt'), 'labelmap.txt');
    assert.deepEqual(labelMap.warnings, []);
    assert.deepEqual(labelMap.labels.map((l) => [l.name, l.color]), [['background', 0], ...SAMPLE_PROJECT.classes.map((c) => [c.title, parseInt(c.color.slice(1), 16)])]);

    const xml = readText(dir, 'Annotations/a.xml');
    assert.match(xml, /<size>\s*<width>64<\/width>\s*<height>48<\/height>\s*<depth>3<\/depth>\s*<\/size>/);
    assert.match(xml, /<segmented>1<\/segmented>/);
    const a = readVocXml(xml, 'Annotations/a.xml');
    assert.deepEqual([a.filename, a.size, a.warnings], ['a.jpg', { width: 64, height: 48 }, []]);
    const source = records[0]!.objects;
    assert.deepEqual(a.objects.map((o) => [o.classTitle, o.points.exterior]), [
      ['person', vocBox(source[0]!.points.exterior)],
      ['car', vocBox(source[1]!.points.exterior)],
      ['lake', vocBox(source[4]!.points.exterior)],
      ['stain', [[4, 30], [19, 43]]],
    ]);
    // The flag `occluded` is written as 1; no pose, truncated or difficult the object did not have.
    assert.deepEqual(a.objects[0]!.tags, [
      { name: 'occluded', value: 1 },
      { name: 'score', value: 0.5 },
    ]);
    assert.doesNotMatch(xml, /<(pose|truncated|difficult)>/);
    assert.deepEqual(readVocXml(readText(dir, 'Annotations/a_1.xml'), 'a_1.xml').filename, 'a_1.png');
    assert.deepEqual(readVocXml(readText(dir, 'Annotations/c.xml'), 'c.xml').objects[0]!.points.exterior, [[0, 0], [50, 40]]);
    assert.match(readText(dir, 'Annotations/c.xml'), /<segmented>0<\/segmented>/);
    assert.deepEqual(readVocXml(readText(dir, 'Annotations/empty.xml'), 'empty.xml').objects, []);
    assert.deepEqual(notices.filter((n) => n.message === SKIPPED_LINE_OR_POINT).map((n) => n.count), [2]);
  });

  test('the masks are palette PNGs that our readers turn back into each object and each class, pixel for pixel', async () => {
    const records = sampleRecords();
    const { dir } = await writeFolder(records, sampleImages(records));
    for (const folder of ['SegmentationClass', 'SegmentationObject']) {
      const meta = await sharp(file(dir, `${folder}/a.png`)).metadata();
      assert.deepEqual([meta.isPalette, meta.width, meta.height], [true, 64, 48]);
    }
    const a = readVocXml(readText(dir, 'Annotations/a.xml'), 'a.xml');
    const source = records[0]!.objects;
    const byObject = await readInstanceMask(file(dir, 'SegmentationObject/a.png'), 'a.png', a.objects, a.objectIndex);
    assert.deepEqual(byObject.warnings, []);
    assert.deepEqual(byObject.objects.map((o) => o.classTitle), ['person', 'lake', 'stain']);
    const expected = [await drawn('polygon', source[0]!, 64, 48), await drawn('polygon', source[4]!, 64, 48), await drawn('bitmap', source[5]!, 64, 48)];
    for (const [i, o] of byObject.objects.entries()) assert.deepEqual(await pixelsOf(o.bitmap!, 64, 48), expected[i], o.classTitle);

    const labels = readLabelMap(readText(dir, 'labelmap.txt'), 'labelmap.txt').labels;
    const byClass = await readClassMask(file(dir, 'SegmentationClass/a.png'), 'a.png', labels, isBackgroundLabel);
    assert.deepEqual(byClass.warnings, []);
    assert.deepEqual(byClass.objects.map((o) => o.classTitle), ['person', 'lake', 'stain']);
    for (const [i, o] of byClass.objects.entries()) assert.deepEqual(await pixelsOf(o.bitmap!, 64, 48), expected[i], o.classTitle);
  });

  test('class colours that masks could not tell apart are replaced in the labelmap', async () => {
    const project: ExportProject = { ...SAMPLE_PROJECT, classes: SAMPLE_PROJECT.classes.map((c, i) => ({ ...c, color: i < 3 ? '#123456' : i === 3 ? '#000000' : c.color })) };
    const { dir } = await writeFolder(sampleRecords(), sampleImages(sampleRecords()), project);
    const { labels, warnings } = readLabelMap(readText(dir, 'labelmap.txt'), 'labelmap.txt');
    assert.deepEqual(warnings, []);
    assert.equal(new Set(labels.map((l) => l.color)).size, labels.length);
    assert.equal(labels[1]!.color, 0x123456);
  });

  test('without segmentation: no masks, no segmentation lists, segmented 0', async () => {
    const records = sampleRecords();
    const { dir } = await writeFolder(records, sampleImages(records), SAMPLE_PROJECT, false);
    assert.ok(listFiles(dir).every((p) => !/Segmentation/.test(p)));
    assert.match(readText(dir, 'Annotations/a.xml'), /<segmented>0<\/segmented>/);
  });

  describe('through the app', () => {
    const [sqlite] = dialects;
    let t: TestApp;
    withImportRunner(sqlite!, (app) => (t = app));

    test('the sample project: boxes as they are, masks pixel for pixel, datasets from the split lists, colours from the labelmap', async () => {
      const records = sampleRecords();
      const { dir } = await writeFolder(records, sampleImages(records));
      const { projectId } = await importFolder(t, dir, 'pascal_voc');
      const { project, records: back } = await readExport(t, projectId);
      assert.deepEqual(back.map((r) => [r.dataset, r.name, r.width, r.height]), [
        ['train', 'a.jpg', 64, 48],
        ['train', 'a_1.png', 40, 30],
        ['val', 'c.jpg', 50, 40],
        ['val', 'empty.jpg', 20, 20],
      ]);
      assert.equal(project.classes.find((c) => c.title === 'person')!.color, '#FF0000');
      const a = back[0]!;
      const source = records[0]!.objects;
      assert.deepEqual(a.objects.slice(0, 4).map((o) => [o.classTitle, o.points.exterior]), [
        ['person', vocBox(source[0]!.points.exterior)],
        ['car', vocBox(source[1]!.points.exterior)],
        ['lake', vocBox(source[4]!.points.exterior)],
        ['stain', [[4, 30], [19, 43]]],
      ]);
      const masks = a.objects.slice(4);
      assert.deepEqual(masks.map((o) => o.classTitle), ['person (bitmap)', 'lake (bitmap)', 'stain (bitmap)']);
      assert.deepEqual(await pixelsOf(masks[0]!.bitmap!, 64, 48), await drawn('polygon', source[0]!, 64, 48));
      assert.deepEqual(await pixelsOf(masks[1]!.bitmap!, 64, 48), await drawn('polygon', source[4]!, 64, 48));
      assert.deepEqual(await pixelsOf(masks[2]!.bitmap!, 64, 48), await drawn('bitmap', source[5]!, 64, 48));
    });

    test('the peer dataset voc_dataset1: imported, written, imported again; boxes and tags the same, masks the same', async () => {
      const { projectId } = await importFolder(t, path.join(PEER, 'datumaro/voc/voc_dataset1'), 'pascal_voc');
      const first = await readExport(t, projectId);
      const { dir, notices } = await writeFolder(first.records, storedImage(t), first.project);
      assert.deepEqual(notices, []);
      const again = await importFolder(t, dir, 'pascal_voc');
      const second = await readExport(t, again.projectId);
      assert.deepEqual(second.records.map((r) => [r.dataset, r.name]), first.records.map((r) => [r.dataset, r.name]));
      const shapes = new Map(first.project.classes.map((c) => [c.title, c.shape]));
      for (const [k, r] of first.records.entries()) {
        // Every object comes back as its box with its tags, then each mask as a bitmap of `<class> (bitmap)`.
        const expected: [string, string[], Point[] | Uint8Array][] = [];
        const masks: [string, string[], Uint8Array][] = [];
        for (const o of r.objects) {
          const shape = shapes.get(o.classTitle)!;
          const tags = o.tags.map((t) => t.name);
          const box = shape === 'bitmap' ? bitmapBox(o) : o.points.exterior;
          expected.push([o.classTitle, tags, vocBox(box)]);
          if (shape === 'bitmap') masks.push([`${o.classTitle} (bitmap)`, tags, await pixelsOf(o.bitmap!, r.width, r.height)]);
        }
        const got: [string, string[], Point[] | Uint8Array][] = [];
        for (const o of second.records[k]!.objects) {
          got.push([o.classTitle, o.tags.map((t) => t.name), o.bitmap ? await pixelsOf(o.bitmap, r.width, r.height) : o.points.exterior]);
        }
        assert.deepEqual(got, [...expected, ...masks], r.name);
      }
    });
  });
});

/** The box of a bitmap's PNG: the box of its mask, as our readers crop it. */
function bitmapBox(o: ExportObject): Point[] {
  const { width, height } = readMaskSize(o.bitmap!.data);
  const [x, y] = o.bitmap!.origin;
  return [[x, y], [x + width, y + height]];
}
