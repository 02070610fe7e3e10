// The COCO writer: the facts a COCO file must get right, its objects read back by our reader and by a
// real import (polygons exact, masks pixel for pixel), peer files through a round trip, and memory
// that does not grow with the annotations.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { Point } from '../../src/formats/canonical.ts';
import { readCocoFile } from '../../src/formats/coco/index.ts';
import { SKIPPED_LINE_OR_POINT } from '../../src/formats/coco/geometry.ts';
import { CocoWriter } from '../../src/formats/coco/writer.ts';
import { streamMembers } from '../../src/formats/json-members.ts';
import { type Raster, fillPolygon, newRaster, paintMask } from '../../src/formats/raster.ts';
import { decodeBitmap } from '../../src/formats/supervisely/index.ts';
import type { ExportObject, ExportRecord } from '../../src/formats/writer.ts';
import { collectGarbage } from '../../src/heap-growth.ts';
import { listFiles, readJson, scratchDir, writeAll, writeEntries } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { importFolder, readExport, storedImage } from '../helpers/export-round-trip.ts';
import { SAMPLE_PROJECT, sampleImages, sampleRecords } from '../helpers/export-samples.ts';
import { withImportRunner } from '../helpers/importing.ts';
import { PEER } from '../helpers/peer-fixtures.ts';
import type { TestApp } from '../helpers/test-app.ts';

interface CocoDocument {
  info: Record<string, unknown>;
  licenses: unknown[];
  images: { id: number; width: number; height: number; file_name: string }[];
  annotations: { id: number; image_id: number; category_id: number; segmentation: number[][] | { size: number[]; counts: number[] }; area: number; bbox: number[]; iscrowd: number; attributes?: Record<string, unknown> }[];
  categories: { id: number; name: string; supercategory: string }[];
}

async function writeFolder(records: ExportRecord[], imageBytes: (hash: string) => Promise<Buffer>, project = SAMPLE_PROJECT) {
  const dir = scratchDir('coco-writer');
  const writer = new CocoWriter(project, { includeImages: true, tempDir: scratchDir('coco-spool'), now: new Date('2024-05-06T07:08:09Z') });
  await writeEntries(await writeAll(writer, records), dir, imageBytes);
  await writer.close();
  return { dir, notices: writer.notices() };
}

/** The pixels a bitmap sets on an image of the given size. */
async function bitmapRaster(bitmap: { origin: [number, number]; data: string }, width: number, height: number): Promise<Raster> {
  const r = newRaster(width, height);
  paintMask(r, await decodeBitmap(bitmap.data), bitmap.origin, 1);
  return r;
}

function polygonRaster(rings: Point[][], width: number, height: number): Raster {
  const r = newRaster(width, height);
  fillPolygon(r, rings, 1);
  return r;
}

const corners = (box: Point[]): Point[] => {
  const [[l, t], [r, b]] = box as [Point, Point];
  return [[l, t], [r, t], [r, b], [l, b]];
};

describe('COCO writer', () => {
  test('one file per dataset with ids from 1, info, bbox, area, polygons and RLE as COCO has them', async () => {
    const records = sampleRecords();
    const { dir, notices } = await writeFolder(records, sampleImages(records));
    assert.deepEqual(listFiles(dir), ['annotations/instances_train.json', 'annotations/instances_val.json', 'images/train/a.jpg', 'images/train/a.png', 'images/val/c.jpg', 'images/val/empty.jpg']);
    const train = readJson<CocoDocument>(dir, 'annotations/instances_train.json');
    const val = readJson<CocoDocument>(dir, 'annotations/instances_val.json');
    for (const doc of [train, val]) {
      assert.deepEqual(Object.keys(doc), ['info', 'licenses', 'images', 'annotations', 'categories']);
      assert.deepEqual(doc.info, { description: 'sample', version: '1.0', year: 2024, contributor: '', url: '', date_created: '2024-05-06T07:08:09.000Z' });
      assert.deepEqual(doc.licenses, []);
      assert.deepEqual(doc.images.map((i) => i.id), doc.images.map((_, k) => k + 1));
      assert.deepEqual(doc.annotations.map((a) => a.id), doc.annotations.map((_, k) => k + 1));
      assert.deepEqual(doc.categories, SAMPLE_PROJECT.classes.map((c, k) => ({ id: k + 1, name: c.title, supercategory: '' })));
      for (const a of doc.annotations) {
        assert.ok(Array.isArray(a.segmentation) ? a.segmentation.every((p) => p.length >= 6 && p.length % 2 === 0) && a.iscrowd === 0 : a.iscrowd === 1);
        assert.equal(a.bbox.length, 4);
      }
    }
    assert.deepEqual(train.images, [
      { id: 1, width: 64, height: 48, file_name: 'a.jpg' },
      { id: 2, width: 40, height: 30, file_name: 'a.png' },
    ]);
    assert.deepEqual(val.images.map((i) => i.file_name), ['c.jpg', 'empty.jpg']);

    const [person, car, lake, stain] = train.annotations;
    assert.deepEqual([person!.category_id, person!.segmentation, person!.bbox, person!.area], [1, [[4, 4, 28, 6, 16, 26]], [4, 4, 24, 22], 252]);
    assert.deepEqual(person!.attributes, { occluded: true, score: 0.5 });
    assert.deepEqual([car!.category_id, car!.segmentation, car!.bbox, car!.area], [2, [[34, 4, 60, 4, 60, 18, 34, 18]], [34, 4, 26, 14], 364]);
    const lakePixels = polygonRaster([records[0]!.objects[4]!.points.exterior, ...records[0]!.objects[4]!.points.interior], 64, 48);
    assert.deepEqual((lake!.segmentation as { size: number[] }).size, [48, 64]);
    assert.equal(lake!.area, lakePixels.pixels.reduce((n, v) => n + v, 0));
    assert.deepEqual(stain!.bbox, [4, 30, 15, 13]);
    assert.equal(stain!.area, 8 * 8 - 4 + 9);
    // The line and the point: left out, counted.
    assert.equal(train.annotations.length, 6);
    assert.deepEqual(notices, [{ message: SKIPPED_LINE_OR_POINT, count: 2, first: 'train/a.jpg' }]);
  });

  test('our reader gives the objects back: polygons exact, masks pixel for pixel', async () => {
    const records = sampleRecords();
    const { dir } = await writeFolder(records, sampleImages(records));
    const file = readCocoFile(readJson(dir, 'annotations/instances_train.json'), 'annotations/instances_train.json');
    assert.equal(file.subset, 'train');
    const [a] = file.images;
    const source = records[0]!.objects;
    const [person, car, lake, stain] = a!.objects;
    assert.deepEqual([person!.classTitle, person!.shape, person!.points.exterior], ['person', 'polygon', source[0]!.points.exterior]);
    assert.deepEqual(person!.tags, [{ name: 'occluded', value: 'true' }, { name: 'score', value: 0.5 }]);
    assert.deepEqual([car!.shape, car!.points.exterior], ['polygon', corners(source[1]!.points.exterior)]);
    assert.deepEqual([lake!.classTitle, lake!.shape, lake!.tags], ['lake', 'bitmap', [{ name: 'iscrowd', value: null }]]);
    const o = source[4]!.points;
    assert.deepEqual((await bitmapRaster(lake!.bitmap!, 64, 48)).pixels, polygonRaster([o.exterior, ...o.interior], 64, 48).pixels);
    assert.deepEqual((await bitmapRaster(stain!.bitmap!, 64, 48)).pixels, (await bitmapRaster(source[5]!.bitmap!, 64, 48)).pixels);
    assert.deepEqual(file.images[1]!.objects.map((x) => x.points.exterior), [corners(records[1]!.objects[0]!.points.exterior), records[1]!.objects[1]!.points.exterior]);
  });

  test('an object tagged iscrowd is a crowd annotation whatever its geometry, and the tag is no attribute', async () => {
    const records = sampleRecords().slice(2, 3);
    records[0]!.objects = [{ ...records[0]!.objects[0]!, classTitle: 'person', points: { exterior: [[1, 1], [30, 2], [20, 30]], interior: [] }, tags: [{ name: 'iscrowd', value: null }] }];
    const { dir } = await writeFolder(records, sampleImages(records));
    const [annotation] = readJson<CocoDocument>(dir, 'annotations/instances_val.json').annotations;
    assert.deepEqual([annotation!.segmentation, annotation!.iscrowd, annotation!.attributes], [[[1, 1, 30, 2, 20, 30]], 1, undefined]);
    const [image] = readCocoFile(readJson(dir, 'annotations/instances_val.json'), 'annotations/instances_val.json').images;
    assert.deepEqual(image!.objects.map((o) => o.tags.map((t) => t.name)), [['iscrowd']]);
  });

  test('close removes the spool, read or not', async () => {
    const spool = scratchDir('coco-spool');
    const records = sampleRecords();
    const writer = new CocoWriter(SAMPLE_PROJECT, { includeImages: false, tempDir: spool });
    const entries = await writeAll(writer, records);
    assert.deepEqual(entries.map((e) => e.path), ['annotations/instances_train.json', 'annotations/instances_val.json']);
    assert.equal(listFiles(spool).length, 4);
    await writer.close();
    assert.deepEqual(fs.readdirSync(spool), []);
  });

  describe('through the app', () => {
    const [sqlite] = dialects;
    let t: TestApp;
    withImportRunner(sqlite!, (app) => (t = app));

    /** What COCO keeps of a stored object: rectangles become the polygons of their corners. */
    const kept = (shapes: Map<string, string>) => (o: ExportObject) => (shapes.get(o.classTitle) === 'rectangle' ? { ...o, points: { exterior: corners(o.points.exterior), interior: [] } } : o);
    const byName = (records: ExportRecord[]) => records.map((r) => ({ ...r, hash: '' })).sort((a, b) => (a.dataset + a.name < b.dataset + b.name ? -1 : 1));

    test('the sample project: each dataset a subset, the objects as COCO keeps them', async () => {
      const records = sampleRecords();
      const { dir } = await writeFolder(records, sampleImages(records));
      const { projectId } = await importFolder(t, dir, 'coco');
      const { project, records: back } = await readExport(t, projectId);
      assert.deepEqual(project.classes.map((c) => [c.title, c.shape]), [['person', 'polygon'], ['car', 'polygon'], ['road', 'rectangle'], ['sign', 'rectangle'], ['lake', 'bitmap'], ['stain', 'bitmap']]);
      assert.deepEqual(back.map((r) => [r.dataset, r.name, r.width, r.height, r.objects.length]), [
        ['train', 'a.jpg', 64, 48, 4],
        ['train', 'a.png', 40, 30, 2],
        ['val', 'c.jpg', 50, 40, 1],
        ['val', 'empty.jpg', 20, 20, 0],
      ]);
      const [person, car, lake, stain] = back[0]!.objects;
      const source = records[0]!.objects;
      assert.deepEqual(person!.points, source[0]!.points);
      assert.deepEqual(person!.tags.map((x) => x.name), ['occluded', 'score']);
      assert.deepEqual(car!.points.exterior, corners(source[1]!.points.exterior));
      const o = source[4]!.points;
      assert.deepEqual((await bitmapRaster(lake!.bitmap!, 64, 48)).pixels, polygonRaster([o.exterior, ...o.interior], 64, 48).pixels);
      assert.deepEqual((await bitmapRaster(stain!.bitmap!, 64, 48)).pixels, (await bitmapRaster(source[5]!.bitmap!, 64, 48)).pixels);
      assert.deepEqual(back[2]!.objects[0]!.points.exterior, [[0, 0], [50, 0], [50, 40], [0, 40]]);
    });

    for (const [fixture, files] of [
      ['datumaro/coco/coco_instances', null],
      ['faster_coco_eval/coco/dataset', ['gt_dataset.json', 'img_1.jpg', 'img_2.jpg', 'img_3.jpg']],
    ] as const) {
      test(`the peer files ${fixture}: imported, written, imported again, the same`, async () => {
        const source = path.join(PEER, ...fixture.split('/'));
        const { projectId } = await importFolder(t, source, 'coco', (p) => files !== null && !(files as readonly string[]).includes(p));
        const first = await readExport(t, projectId);
        const { dir, notices } = await writeFolder(first.records, storedImage(t), first.project);
        assert.deepEqual(notices, []);
        for (const f of listFiles(dir).filter((p) => p.endsWith('.json'))) {
          const doc = readJson<CocoDocument>(dir, f);
          assert.deepEqual(doc.categories.map((c) => c.id), first.project.classes.map((_, k) => k + 1));
        }
        const again = await importFolder(t, dir, 'coco');
        const second = await readExport(t, again.projectId);
        const shapes = new Map(first.project.classes.map((c) => [c.title, c.shape]));
        assert.ok(first.records.some((r) => r.objects.length > 0));
        assert.deepEqual(byName(second.records), byName(first.records.map((r) => ({ ...r, objects: r.objects.map(kept(shapes)) }))));
        fs.rmSync(dir, { recursive: true, force: true });
      });
    }
  });

  test('memory: 20,000 images of 10 polygons stream through without holding the annotations', async (t) => {
    const polygon = (i: number, k: number): Point[] => Array.from({ length: 8 }, (_, p) => [100 + k * 37.25 + Math.cos(p) * 20.5 + (i % 7), 80 + Math.sin(p) * 18.75 + (i % 11)] as Point);
    const record = (i: number): ExportRecord => ({
      dataset: 'big',
      name: `image-${String(i).padStart(6, '0')}.jpg`,
      width: 640,
      height: 480,
      hash: `hash-${i}`,
      description: '',
      tags: [],
      objects: Array.from({ length: 10 }, (_, k) => ({ classTitle: 'person', description: '', tags: [], bitmap: null, points: { exterior: polygon(i, k), interior: [] } })),
    });
    const writer = new CocoWriter(SAMPLE_PROJECT, { includeImages: false, tempDir: scratchDir('coco-spool') });
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    for (let i = 0; i < 20_000; i++) {
      await writer.add(record(i));
      if (i % 5000 === 4999) {
        collectGarbage();
        peak = Math.max(peak, process.memoryUsage().heapUsed - before);
      }
    }
    const [entry] = await writer.finish();
    collectGarbage();
    peak = Math.max(peak, process.memoryUsage().heapUsed - before);
    let bytes = 0;
    let annotations = 0;
    let images = 0;
    const body = entry!.body as { stream: () => AsyncIterable<Buffer> };
    const counted = (async function* () {
      for await (const chunk of body.stream()) {
        bytes += chunk.length;
        yield chunk;
      }
    })();
    await streamMembers(counted, {
      mode: (key) => (key === 'annotations' || key === 'images' ? 'elements' : 'whole'),
      element: (key, index, value) => {
        const id = (value as { id: number }).id;
        assert.equal(id, index + 1);
        if (key === 'annotations') annotations += 1;
        else images += 1;
      },
      member: () => {},
    });
    await writer.close();
    assert.equal(images, 20_000);
    assert.equal(annotations, 200_000);
    t.diagnostic(`COCO file ${(bytes / 1e6).toFixed(1)} MB; heap growth at most ${(peak / 1e6).toFixed(1)} MB while writing`);
    assert.ok(bytes > 40e6, `the file is ${bytes} bytes`);
    assert.ok(peak < bytes / 10, `the heap grew by ${peak} bytes for a file of ${bytes}`);
  });
});
