// Every peer and outside fixture, and a generated project with every shape, holes, a bitmap and tags,
// through the real export route and back: imported with its format's
// preset, exported in the same format (POST /v2/exports, the archive downloaded and unpacked), and
// imported again with that preset. Supervisely comes back exactly; COCO keeps polygons exactly and
// masks pixel for pixel; YOLO keeps coordinates within 1e-6 of the image size; Pascal VOC keeps boxes
// exactly (its numbers are written and read as they are). Each project exported as Supervisely
// comes back exactly, and what a format cannot hold is named in the task's notices.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import type { ClassShape, Point } from '../../src/formats/canonical.ts';
import { SKIPPED_LINE_OR_POINT as COCO_SKIPPED } from '../../src/formats/coco/geometry.ts';
import { BOXES_ONLY as VOC_BOXES_ONLY, SKIPPED_LINE_OR_POINT as VOC_SKIPPED } from '../../src/formats/pascal-voc/writer.ts';
import { newRaster, paintObject } from '../../src/formats/raster.ts';
import { SuperviselyWriter } from '../../src/formats/supervisely/writer.ts';
import type { ExportObject, ExportProject, ExportRecord, WriterNotice } from '../../src/formats/writer.ts';
import { BITMAP_HOLES_FILLED, BOXES_ONLY as YOLO_BOXES_ONLY, HOLES_DROPPED, SKIPPED_LINE_OR_POINT as YOLO_SKIPPED } from '../../src/formats/yolo/rows.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { scratchDir, writeAll, writeEntries } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { type ImportFormat, exportedFolder, importFolder, readExport } from '../helpers/export-round-trip.ts';
import { SAMPLE_PROJECT, sampleImages, sampleRecords } from '../helpers/export-samples.ts';
import { fixtureCopy, outsideFixtureCopy, peerFixtureCopy } from '../helpers/fixture-copy.ts';
import { PEER } from '../helpers/peer-fixtures.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

interface Fixture {
  /** Folder under test/fixtures/peer/ or test/fixtures/outside/. */
  folder: string;
  format: ImportFormat;
  copy: () => Promise<string>;
  /** Files of the folder its import leaves out. */
  skip?: (rel: string) => boolean;
}

const peer = (folder: string, format: ImportFormat): Fixture => ({ folder: `peer/${folder}`, format, copy: () => peerFixtureCopy(folder) });
const outside = (folder: string, format: ImportFormat): Fixture => ({ folder: `outside/${folder}`, format, copy: () => outsideFixtureCopy(folder) });

/** mixed_2020 ships neither its images nor masks an import reads: images of the sizes its annotations give. */
function mixed2020(): Fixture {
  const folder = 'superannotate/supervisely/mixed_2020';
  const source = path.join(PEER, ...folder.split('/'));
  const missing = fs.readdirSync(path.join(source, 'ds', 'ann')).map((file) => {
    const { size } = JSON.parse(fs.readFileSync(path.join(source, 'ds', 'ann', file), 'utf8')) as { size: { width: number; height: number } };
    return { path: `ds/img/${file.replace(/\.json$/, '')}`, ...size };
  });
  return { folder: `peer/${folder}`, format: 'supervisely', copy: () => fixtureCopy(source, missing), skip: (p) => p.includes('masks_machine/') || p === 'obj_class_to_machine_color.json' };
}

// Left out: cocoapi/coco/results holds detection results (a list without images or categories), not
// a dataset; superannotate/supervisely/keypoints has only graph objects, which our import skips, and
// no images.
const FIXTURES: Fixture[] = [
  peer('superannotate/supervisely/instance', 'supervisely'),
  mixed2020(),
  peer('superannotate/supervisely/vector', 'supervisely'),
  outside('tcotte-SuperviselyDatasets/supervisely/project_demo', 'supervisely'),
  peer('datumaro/coco/coco_instances', 'coco'),
  peer('labelformat/coco/object_detection', 'coco'),
  peer('labelformat/coco/instance_segmentation', 'coco'),
  peer('faster_coco_eval/coco/dataset', 'coco'),
  outside('super-gradients/coco/tinycoco', 'coco'),
  outside('sahi/coco/coco_evaluate', 'coco'),
  outside('roboflow-python/coco/sharks-tiny-coco', 'coco'),
  peer('datumaro/voc/voc_dataset1', 'pascal_voc'),
  peer('datumaro/voc/voc_dataset2', 'pascal_voc'),
  peer('labelformat/voc/object_detection', 'pascal_voc'),
  outside('roboflow-python/voc/chess', 'pascal_voc'),
  outside('mmdetection/voc/VOCdevkit', 'pascal_voc'),
  peer('datumaro/yolo/strict', 'yolo'),
  peer('datumaro/yolo/labels', 'yolo'),
  peer('datumaro/yolo/roboflow_yolo', 'yolo'),
  peer('labelformat/yolo/object_detection', 'yolo'),
  peer('labelformat/yolo/instance_segmentation', 'yolo'),
  outside('label-studio-converter/yolo/test_import_yolo_data', 'yolo'),
  outside('label-studio-converter/yolo-seg/test_import_yolo_seg_data_unif_dims', 'yolo'),
  outside('roboflow-python/yolo/sharks-tiny-yolov9', 'yolo'),
  outside('sahi/yolo/coco2yolo', 'yolo'),
];

/** On PostgreSQL, one fixture of each format. */
const POSTGRES_FIXTURES = new Set(['peer/superannotate/supervisely/vector', 'peer/datumaro/coco/coco_instances', 'peer/datumaro/voc/voc_dataset2', 'peer/labelformat/yolo/instance_segmentation']);

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

type Project = { project: ExportProject; records: ExportRecord[] };

const keyOf = (r: ExportRecord) => `${r.dataset}/${r.name}`;
const byKey = (records: ExportRecord[]) => [...records].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
const shapesOf = (p: Project) => new Map(p.project.classes.map((c) => [c.title, c.shape]));
const tagNames = (o: ExportObject) => o.tags.map((t) => t.name);

/** The pixels an object covers on its image. */
async function pixelsOf(shape: ClassShape, o: ExportObject, width: number, height: number): Promise<Uint8Array> {
  const r = newRaster(width, height);
  await paintObject(r, shape, o, 1);
  return r.pixels;
}

/** The box of an object's points or of its bitmap's pixels, as [[left, top], [right, bottom]]. */
async function boxOf(shape: ClassShape, o: ExportObject, width: number, height: number): Promise<[Point, Point]> {
  if (shape !== 'bitmap') {
    const xs = o.points.exterior.map((p) => p[0]);
    const ys = o.points.exterior.map((p) => p[1]);
    return [[Math.min(...xs), Math.min(...ys)], [Math.max(...xs), Math.max(...ys)]];
  }
  const pixels = await pixelsOf(shape, o, width, height);
  let [left, top, right, bottom] = [width, height, 0, 0];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!pixels[y * width + x]) continue;
      [left, top, right, bottom] = [Math.min(left, x), Math.min(top, y), Math.max(right, x + 1), Math.max(bottom, y + 1)];
    }
  }
  return [[left, top], [right, bottom]];
}

const corners = (box: Point[]): Point[] => {
  const [[l, t], [r, b]] = box as [Point, Point];
  return [[l, t], [r, t], [r, b], [l, b]];
};

/** The notices as message → count, renames apart (`renamed` answers their count). */
const noticeCounts = (notices: WriterNotice[]) => Object.fromEntries(notices.filter((n) => !/renamed/.test(n.message)).map((n) => [n.message, n.count]));
const renamedCount = (notices: WriterNotice[]) => notices.filter((n) => /renamed/.test(n.message)).reduce((sum, n) => sum + n.count, 0);

/**
 * The notices an export of `first` in the format must give, as message → count: every object the
 * format leaves out or keeps only in part is counted.
 */
function expectedNotices(first: Project, format: 'coco' | 'yolo' | 'pascal_voc', task: 'detect' | 'segment' | null = null): Record<string, number> {
  const shapes = shapesOf(first);
  const objects = first.records.flatMap((r) => r.objects);
  const count = (keep: (o: ExportObject, shape: ClassShape) => boolean) => objects.filter((o) => keep(o, shapes.get(o.classTitle)!)).length;
  const lineOrPoint = count((_, shape) => shape === 'line' || shape === 'point');
  const asBox = count((_, shape) => shape === 'polygon' || shape === 'bitmap');
  const counts: Record<string, number> =
    format === 'coco'
      ? { [COCO_SKIPPED]: lineOrPoint }
      : format === 'pascal_voc'
        ? { [VOC_BOXES_ONLY]: asBox, [VOC_SKIPPED]: lineOrPoint }
        : task === 'detect'
          ? { [YOLO_BOXES_ONLY]: asBox, [YOLO_SKIPPED]: lineOrPoint }
          : { [HOLES_DROPPED]: count((o, shape) => shape === 'polygon' && o.points.interior.length > 0), [YOLO_SKIPPED]: lineOrPoint };
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
}

/** Supervisely: the same project, object for object, tag for tag. */
function assertSame(second: Project, first: Project): void {
  assert.deepEqual(byKey(second.records), byKey(first.records));
  assert.deepEqual(second.project.classes, first.project.classes);
  assert.deepEqual(second.project.tags, first.project.tags);
}

/** The images, by dataset and name, with their sizes and bytes. */
function assertSameImages(second: ExportRecord[], first: ExportRecord[]): void {
  const facts = (r: ExportRecord) => [keyOf(r), r.width, r.height, r.hash];
  assert.deepEqual(second.map(facts).sort(), first.map(facts).sort());
}

/** COCO: polygons exact, rectangles as their corners, holes and bitmaps pixel for pixel; lines and points left out. */
async function assertCocoRoundTrip(second: Project, first: Project, notices: WriterNotice[]): Promise<void> {
  assertSameImages(second.records, first.records);
  const shapes = shapesOf(first);
  const secondShapes = shapesOf(second);
  let skipped = 0;
  const others = new Map(second.records.map((r) => [keyOf(r), r]));
  for (const r of first.records) {
    const other = others.get(keyOf(r))!;
    const kept = r.objects.filter((o) => !['line', 'point'].includes(shapes.get(o.classTitle)!));
    skipped += r.objects.length - kept.length;
    // A mask is written as RLE, which COCO marks `iscrowd: 1`: it comes back tagged iscrowd.
    const asMask = (o: ExportObject) => shapes.get(o.classTitle) === 'bitmap' || o.points.interior.length > 0;
    const expectedTags = (o: ExportObject) => (asMask(o) && !tagNames(o).includes('iscrowd') ? [...tagNames(o), 'iscrowd'] : tagNames(o));
    assert.deepEqual(other.objects.map((o) => [o.classTitle, tagNames(o)]), kept.map((o) => [o.classTitle, expectedTags(o)]), keyOf(r));
    for (const [i, o] of kept.entries()) {
      const shape = shapes.get(o.classTitle)!;
      const back = other.objects[i]!;
      const where = `${keyOf(r)} object ${i}`;
      if (asMask(o)) {
        assert.ok(back.bitmap, `${where} comes back as a mask`);
        assert.deepEqual(await pixelsOf('bitmap', back, r.width, r.height), await pixelsOf(shape, o, r.width, r.height), where);
      } else {
        assert.ok(['polygon', 'rectangle'].includes(secondShapes.get(back.classTitle)!), where);
        assert.deepEqual(back.points, { exterior: shape === 'rectangle' ? corners(o.points.exterior) : o.points.exterior, interior: [] }, where);
      }
    }
  }
  assert.deepEqual(noticeCounts(notices)[COCO_SKIPPED] ?? 0, skipped, 'lines and points left out are counted');
}

/** YOLO: every point within 1e-6 of the image's size; detection keeps boxes, segmentation exteriors. */
async function assertYoloRoundTrip(second: Project, first: Project, task: 'detect' | 'segment'): Promise<void> {
  // Exported with splitsFromDatasets: each dataset is a split, and data.yaml names it by its role
  // (`valid` is Ultralytics' `val`; a dataset of no split name is listed under `train`), which the
  // import takes for the dataset's title.
  const role = (dataset: string) => (['val', 'valid', 'validation'].includes(dataset) ? 'val' : dataset === 'test' ? 'test' : 'train');
  const firstRecords = first.records.map((r) => ({ ...r, dataset: role(r.dataset) }));
  assertSameImages(second.records, firstRecords);
  const shapes = shapesOf(first);
  const others = new Map(second.records.map((r) => [keyOf(r), r]));
  for (const r of firstRecords) {
    const other = others.get(keyOf(r))!;
    const kept = r.objects.filter((o) => !['line', 'point'].includes(shapes.get(o.classTitle)!));
    assert.deepEqual(other.objects.map((o) => o.classTitle), kept.map((o) => o.classTitle), r.name);
    for (const [i, o] of kept.entries()) {
      const shape = shapes.get(o.classTitle)!;
      const expected = task === 'detect' ? await boxOf(shape, o, r.width, r.height) : shape === 'rectangle' ? corners(o.points.exterior) : o.points.exterior;
      const got = other.objects[i]!.points.exterior;
      const where = `${r.name} object ${i}`;
      assert.equal(got.length, expected.length, where);
      got.forEach(([x, y], k) => {
        assert.ok(Math.abs(x! / r.width - expected[k]![0]! / r.width) <= 1e-6, `${where}: x ${x} for ${expected[k]![0]}`);
        assert.ok(Math.abs(y! / r.height - expected[k]![1]! / r.height) <= 1e-6, `${where}: y ${y} for ${expected[k]![1]}`);
      });
    }
  }
}

/** Pascal VOC: each object as its box, the same numbers (written and read as they are). */
async function assertVocRoundTrip(second: Project, first: Project): Promise<void> {
  assertSameImages(second.records, first.records);
  const shapes = shapesOf(first);
  const others = new Map(second.records.map((r) => [keyOf(r), r]));
  for (const r of first.records) {
    const other = others.get(keyOf(r))!;
    const kept = r.objects.filter((o) => !['line', 'point'].includes(shapes.get(o.classTitle)!));
    assert.deepEqual(other.objects.map((o) => o.classTitle), kept.map((o) => o.classTitle), keyOf(r));
    for (const [i, o] of kept.entries()) {
      const [[left, top], [right, bottom]] = await boxOf(shapes.get(o.classTitle)!, o, r.width, r.height);
      assert.deepEqual(other.objects[i]!.points.exterior, [[left, top], [right, bottom]], `${keyOf(r)} object ${i}`);
    }
  }
}

for (const dialect of dialects) {
  describe(`export round trips on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner;

    before(async () => {
      t = await startTestApp(dialect);
      runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    /** Exports through the route, downloads the archive and unpacks it (Info-ZIP checks every CRC). */
    const exported = (projectId: number, format: string, options: Record<string, unknown> = {}) =>
      exportedFolder(t, { projectId, format, options }, `round-trip-${format}`);

    /** Exports the project in `format` and imports the archive with the format's preset. */
    async function roundTrip(projectId: number, format: ImportFormat, options: Record<string, unknown> = {}): Promise<{ second: Project; notices: WriterNotice[] }> {
      const { dir, task } = await exported(projectId, format, options);
      const again = await importFolder(t, dir, format);
      fs.rmSync(dir, { recursive: true, force: true });
      return { second: await readExport(t, again.projectId), notices: task.meta.notices as WriterNotice[] };
    }

    describe('a generated project: every shape, holes, a bitmap of two pieces, tags with and without values', () => {
      let projectId: number;
      let first: Project;
      /** The sample as YOLO and VOC name its images: a.png shares a stem with a.jpg and is renamed. */
      let renamed: Project;
      before(async () => {
        const records = sampleRecords();
        const dir = scratchDir('round-trip-sample');
        const writer = new SuperviselyWriter(SAMPLE_PROJECT, { includeImages: true });
        await writeEntries(await writeAll(writer, records), dir, sampleImages(records));
        await writer.close();
        ({ projectId } = await importFolder(t, dir, 'supervisely'));
        first = await readExport(t, projectId);
        renamed = { ...first, records: first.records.map((r) => (r.name === 'a.png' ? { ...r, name: 'a_1.png' } : r)) };
      });

      test('supervisely: exactly the same', async () => {
        const { second, notices } = await roundTrip(projectId, 'supervisely');
        assert.deepEqual(notices, []);
        assertSame(second, first);
      });

      test('coco: polygons exact, holes and the bitmap pixel for pixel, the line and the point counted as left out', async () => {
        const { second, notices } = await roundTrip(projectId, 'coco');
        await assertCocoRoundTrip(second, first, notices);
        assert.deepEqual(noticeCounts(notices), { [COCO_SKIPPED]: 2 });
        assert.deepEqual(expectedNotices(first, 'coco'), { [COCO_SKIPPED]: 2 });
        assert.equal(renamedCount(notices), 0);
      });

      test('yolo detect: every box within 1e-6; shapes kept as boxes and the line and point counted', async () => {
        const { second, notices } = await roundTrip(projectId, 'yolo', { task: 'detect', splitsFromDatasets: true });
        await assertYoloRoundTrip(second, renamed, 'detect');
        assert.deepEqual(noticeCounts(notices), { [YOLO_BOXES_ONLY]: 4, [YOLO_SKIPPED]: 2 });
        assert.deepEqual(noticeCounts(notices), expectedNotices(first, 'yolo', 'detect'));
        assert.equal(renamedCount(notices), 1);
      });

      test('yolo segment: outlines within 1e-6, the dropped hole and the filled bitmap hole counted', async () => {
        const { second, notices } = await roundTrip(projectId, 'yolo', { task: 'segment', splitsFromDatasets: true });
        // The bitmap comes back as one polygon per piece: its outlines are the masks writer's and
        // contour tests' concern; here everything else, point for point.
        const withoutStain = (p: Project): Project => ({ ...p, records: p.records.map((r) => ({ ...r, objects: r.objects.filter((o) => o.classTitle !== 'stain') })) });
        await assertYoloRoundTrip(withoutStain(second), withoutStain(renamed), 'segment');
        const stains = second.records.flatMap((r) => r.objects.filter((o) => o.classTitle === 'stain'));
        assert.equal(stains.length, 2, 'one polygon for each piece of the bitmap');
        assert.deepEqual(noticeCounts(notices), { ...expectedNotices(first, 'yolo', 'segment'), [BITMAP_HOLES_FILLED]: 1 });
        assert.deepEqual(expectedNotices(first, 'yolo', 'segment'), { [HOLES_DROPPED]: 1, [YOLO_SKIPPED]: 2 });
        assert.equal(renamedCount(notices), 1);
      });

      test('pascal_voc: every box the same; shapes kept as boxes and the line and point counted', async () => {
        const { second, notices } = await roundTrip(projectId, 'pascal_voc');
        await assertVocRoundTrip(second, renamed);
        assert.deepEqual(noticeCounts(notices), { [VOC_BOXES_ONLY]: 4, [VOC_SKIPPED]: 2 });
        assert.deepEqual(noticeCounts(notices), expectedNotices(first, 'pascal_voc'));
        assert.equal(renamedCount(notices), 1);
      });
    });

    const fixtures = dialect.name === 'sqlite' ? FIXTURES : FIXTURES.filter((f) => POSTGRES_FIXTURES.has(f.folder));
    for (const fixture of fixtures) {
      test(`${fixture.folder}: ${fixture.format} → ${fixture.format}, and → supervisely`, { timeout: 120_000 }, async () => {
        const source = await fixture.copy();
        let projectId: number;
        try {
          ({ projectId } = await importFolder(t, source, fixture.format, fixture.skip));
        } finally {
          fs.rmSync(path.dirname(source), { recursive: true, force: true });
        }
        const first = await readExport(t, projectId);
        assert.ok(first.records.some((r) => r.objects.length > 0), 'the fixture has objects');
        const shapes = new Set(first.project.classes.map((c) => c.shape));

        if (fixture.format === 'supervisely') {
          const { second, notices } = await roundTrip(projectId, 'supervisely');
          assert.deepEqual(notices, []);
          assertSame(second, first);
          return;
        }
        if (fixture.format === 'coco') {
          const { second, notices } = await roundTrip(projectId, 'coco');
          await assertCocoRoundTrip(second, first, notices);
          assert.deepEqual(noticeCounts(notices), expectedNotices(first, 'coco'));
        } else if (fixture.format === 'yolo') {
          const task = shapes.has('polygon') || shapes.has('bitmap') ? 'segment' : 'detect';
          const { second, notices } = await roundTrip(projectId, 'yolo', { task, splitsFromDatasets: true });
          await assertYoloRoundTrip(second, first, task);
          assert.deepEqual(noticeCounts(notices), expectedNotices(first, 'yolo', task));
        } else {
          const { second, notices } = await roundTrip(projectId, 'pascal_voc');
          await assertVocRoundTrip(second, first);
          assert.deepEqual(noticeCounts(notices), expectedNotices(first, 'pascal_voc'));
        }
        const { second, notices } = await roundTrip(projectId, 'supervisely');
        assert.deepEqual(notices, []);
        assertSame(second, first);
      });
    }
  });
}
