// The masks writer: Supervisely's save_masks layout, machine masks by class index and human masks in
// the class colours, compared with the machine masks Supervisely itself wrote for a peer project, and
// the project beside them imported back.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { MasksWriter } from '../../src/formats/masks/writer.ts';
import { newRaster, paintObject } from '../../src/formats/raster.ts';
import { parseAnnotation, parseProjectMeta } from '../../src/formats/supervisely/index.ts';
import type { ExportProject, ExportRecord } from '../../src/formats/writer.ts';
import { listFiles, readJson, scratchDir, writeAll, writeEntries } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { importFolder, readExport, storedImage } from '../helpers/export-round-trip.ts';
import { SAMPLE_PROJECT, STAIN_ORIGIN, sampleImages, sampleRecords } from '../helpers/export-samples.ts';
import { withImportRunner } from '../helpers/importing.ts';
import { PEER } from '../helpers/peer-fixtures.ts';
import type { TestApp } from '../helpers/test-app.ts';

async function writeFolder(records: ExportRecord[], imageBytes: ((hash: string) => Promise<Buffer>) | null, project: ExportProject = SAMPLE_PROJECT) {
  const dir = scratchDir('masks-writer');
  const writer = new MasksWriter(project, { includeImages: imageBytes !== null, machine: true, human: true });
  await writeEntries(await writeAll(writer, records), dir, imageBytes ?? (() => Promise.reject(new Error('no images'))));
  await writer.close();
  return { dir, notices: writer.notices() };
}

/** A PNG's pixels, `channels` bytes each. */
async function pixels(file: string, channels: 1 | 3): Promise<{ width: number; height: number; data: Buffer }> {
  const image = sharp(file);
  const { data, info } = await (channels === 1 ? image.extractChannel(0) : image.removeAlpha().toColourspace('srgb')).raw().toBuffer({ resolveWithObject: true });
  assert.equal(info.channels, channels);
  return { width: info.width, height: info.height, data };
}

const countOf = (data: Uint8Array, value: number) => data.reduce((n, v) => n + (v === value ? 1 : 0), 0);

describe('masks writer', () => {
  test('titles that name a drive or climb out stay inside the archive', async () => {
    const [a] = sampleRecords();
    const titles = ['C:\\drive', 'c:', '..\\x', '../x'];
    const records = titles.map((title) => ({ ...a!, dataset: title, name: `${title}.jpg` }));
    const writer = new MasksWriter(SAMPLE_PROJECT, { includeImages: false, machine: true, human: true });
    const paths = (await writeAll(writer, records)).map((e) => e.path);
    await writer.close();
    assert.ok(paths.includes('C__drive/masks_machine/C__drive.png'), paths.join(' '));
    assert.ok(paths.includes('c_/masks_human/c_.png'), paths.join(' '));
    for (const p of paths) {
      assert.ok(p.split('/').every((segment) => !/^[A-Za-z]:/.test(segment) && !/^\.+$/.test(segment) && !segment.includes('\\')), p);
    }
  });

  test('the project, a machine and a human mask per image, the colour map', async () => {
    const records = sampleRecords();
    const { dir, notices } = await writeFolder(records, sampleImages(records));
    assert.deepEqual(listFiles(dir), [
      'meta.json',
      'obj_class_to_machine_color.json',
      'train/ann/a.jpg.json',
      'train/ann/a_1.png.json',
      'train/img/a.jpg',
      'train/img/a_1.png',
      'train/masks_human/a.png',
      'train/masks_human/a_1.png',
      'train/masks_machine/a.png',
      'train/masks_machine/a_1.png',
      'val/ann/c.jpg.json',
      'val/ann/empty.jpg.json',
      'val/img/c.jpg',
      'val/img/empty.jpg',
      'val/masks_human/c.png',
      'val/masks_human/empty.png',
      'val/masks_machine/c.png',
      'val/masks_machine/empty.png',
    ]);
    assert.deepEqual(readJson(dir, 'obj_class_to_machine_color.json'), { person: [1, 1, 1], car: [2, 2, 2], road: [3, 3, 3], sign: [4, 4, 4], lake: [5, 5, 5], stain: [6, 6, 6] });
    assert.deepEqual(notices.map((n) => [n.count, n.first]), [[1, 'train/a.png']]);

    const machine = await pixels(path.join(dir, 'train/masks_machine/a.png'), 1);
    assert.deepEqual([machine.width, machine.height], [64, 48]);
    const at = (x: number, y: number) => machine.data[y * 64 + x];
    assert.equal(countOf(machine.data, 2), 26 * 14, 'the car, 26 × 14 px');
    assert.equal(countOf(machine.data, 3), 29, 'the road, one pixel a column from x 2 to 30');
    assert.equal(countOf(machine.data, 4), 5, 'the sign');
    assert.equal(countOf(machine.data, 6), 8 * 8 - 4 + 9, 'the stain, its hole open');
    assert.deepEqual([at(16, 12), at(31, 2), at(47, 34), at(40, 26), at(STAIN_ORIGIN[0] + 3, STAIN_ORIGIN[1] + 3), at(0, 0)], [1, 4, 0, 5, 0, 0]);
    const lake = newRaster(64, 48);
    await paintObject(lake, 'polygon', records[0]!.objects[4]!, 1);
    assert.equal(countOf(machine.data, 5), countOf(lake.pixels, 1));

    const human = await pixels(path.join(dir, 'train/masks_human/a.png'), 3);
    const colors = [0, ...SAMPLE_PROJECT.classes.map((c) => parseInt(c.color.slice(1), 16))];
    for (let p = 0; p < machine.data.length; p++) {
      const c = colors[machine.data[p]!]!;
      assert.deepEqual([...human.data.subarray(p * 3, p * 3 + 3)], [c >> 16, (c >> 8) & 0xff, c & 0xff], `pixel ${p}`);
    }
    assert.equal(countOf((await pixels(path.join(dir, 'val/masks_machine/empty.png'), 1)).data, 0), 400);
  });

  test('the masks agree with those Supervisely wrote for a peer project, but for its inclusive rectangle edges', async () => {
    const source = path.join(PEER, 'superannotate/supervisely/mixed_2020');
    const meta = parseProjectMeta(JSON.parse(fs.readFileSync(path.join(source, 'meta.json'), 'utf8')));
    const name = 'lake_bachalpsee_scenery_4k-3840x2160.jpg';
    const { annotation } = parseAnnotation(JSON.parse(fs.readFileSync(path.join(source, 'ds/ann', `${name}.json`), 'utf8')), meta, { skipUnsupported: true });
    const record: ExportRecord = { dataset: 'ds', name, width: 3840, height: 2160, hash: '', description: '', tags: [], objects: annotation.objects.map((o) => ({ ...o, bitmap: null })) };
    const { dir } = await writeFolder([record], null, { title: 'mixed', classes: meta.classes, tags: meta.tags });
    const ours = (await pixels(path.join(dir, 'ds/masks_machine/lake_bachalpsee_scenery_4k-3840x2160.png'), 1)).data;
    const theirs = (await pixels(path.join(source, 'ds/masks_machine/lake_bachalpsee_scenery_4k-3840x2160.png'), 1)).data;
    // Their values come from their colour map, ours from ours: compare by class title.
    const theirMap = JSON.parse(fs.readFileSync(path.join(source, 'obj_class_to_machine_color.json'), 'utf8')) as Record<string, number[]>;
    const ourMap = readJson<Record<string, number[]>>(dir, 'obj_class_to_machine_color.json');
    const value = (map: Record<string, number[]>, title: string) => map[title]![0]!;

    // Points: the same five pixels each.
    const point = (data: Buffer, v: number) => [...data.keys()].filter((p) => data[p] === v);
    assert.deepEqual(point(ours, value(ourMap, '#1')), point(theirs, value(theirMap, '#1')));
    assert.equal(point(ours, value(ourMap, '#1')).length, 11 * 5);
    // Rectangles: theirs are ours and the column and row past our right and bottom edges.
    const rectangles = annotation.objects.filter((o) => o.classTitle === 'sfd').map((o) => o.points.exterior.flat() as [number, number, number, number]);
    let extra = 0;
    for (let p = 0; p < ours.length; p++) {
      const [x, y] = [p % 3840, Math.floor(p / 3840)];
      const inOurs = ours[p] === value(ourMap, 'sfd');
      const inTheirs = theirs[p] === value(theirMap, 'sfd');
      if (inOurs) assert.ok(inTheirs, `pixel ${x},${y}`);
      else if (inTheirs) {
        extra += 1;
        assert.ok(rectangles.some(([l, t, r, b]) => x >= l && x <= r && y >= t && y <= b && (x === r || y === b)), `pixel ${x},${y}`);
      }
    }
    assert.equal(extra, rectangles.reduce((n, [l, t, r, b]) => n + (r - l + 1) + (b - t + 1) - 1, 0));
    // Polygons: the pixels agree but along the edges, where cv2 counts what touches the outline.
    const polygon = (data: Buffer, v: number) => new Set(point(data, v));
    const [a, b] = [polygon(ours, value(ourMap, '#12')), polygon(theirs, value(theirMap, '#12'))];
    const common = [...a].filter((p) => b.has(p)).length;
    assert.ok(common / (a.size + b.size - common) > 0.99, `IoU ${common / (a.size + b.size - common)}`);
  });

  describe('through the app', () => {
    const [sqlite] = dialects;
    let t: TestApp;
    withImportRunner(sqlite!, (app) => (t = app));
    const masks = (p: string) => /\/masks_(machine|human)\//.test(p) || p === 'obj_class_to_machine_color.json';

    test('the project beside the masks imports as the sample, the renamed image under its new name', async () => {
      const records = sampleRecords();
      const { dir } = await writeFolder(records, sampleImages(records));
      const { projectId } = await importFolder(t, dir, 'supervisely', masks);
      const back = await readExport(t, projectId);
      const expected = records.map((r) => ({ ...r, name: r.name === 'a.png' ? 'a_1.png' : r.name, hash: '', objects: r.objects.map((o) => ({ ...o, tags: o.tags.map((x) => ({ name: x.name, value: null })) })) }));
      assert.deepEqual(back.records.map((r) => ({ ...r, hash: '' })), expected);
    });

    test('the peer project instance: imported, written with masks, imported again, the same', async () => {
      const { projectId } = await importFolder(t, path.join(PEER, 'superannotate/supervisely/instance'), 'supervisely');
      const first = await readExport(t, projectId);
      const { dir, notices } = await writeFolder(first.records, storedImage(t), first.project);
      assert.deepEqual(notices, []);
      assert.equal(listFiles(dir).filter((p) => p.includes('/masks_machine/')).length, first.records.length);
      const again = await importFolder(t, dir, 'supervisely', masks);
      const second = await readExport(t, again.projectId);
      assert.deepEqual(second.records, first.records);
    });
  });
});
