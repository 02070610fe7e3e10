// The Pascal VOC reader against the peer fixtures: XML quirks, split lists, instance and class masks, label maps.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import {
  VOC_LABELS,
  VocFormatError,
  hexColor,
  isBackgroundLabel,
  isMaskPath,
  parseXml,
  planVoc,
  readClassMask,
  readInstanceMask,
  readLabelMap,
  readSplitList,
  readVocXml,
  splitFiles,
  vocColor,
} from '../../src/formats/pascal-voc/index.ts';
import { readMaskSize } from '../../src/formats/supervisely/index.ts';
import { PEER } from '../helpers/peer-fixtures.ts';

const text = (rel: string) => readFileSync(path.join(PEER, rel), 'utf8');
const files = (fixture: string) =>
  (readdirSync(path.join(PEER, fixture), { recursive: true }) as string[]).filter((p) => statSync(path.join(PEER, fixture, p)).isFile()).sort();

describe('Pascal VOC reader', () => {
  test('voc_dataset1: tags with values, a part with float coordinates, actions', () => {
    const ann = readVocXml(text('datumaro/voc/voc_dataset1/Annotations/2007_000001.xml'), 'Annotations/2007_000001.xml');
    assert.equal(ann.filename, '2007_000001.jpg');
    assert.deepEqual(ann.size, { width: 20, height: 10 });
    assert.deepEqual(ann.objects.map((o) => [o.classTitle, o.points.exterior]), [
      ['cat', [[1, 2], [3, 4]]],
      ['person', [[4, 5], [6, 7]]],
      ['head', [[5.5, 6], [7.5, 8]]],
    ]);
    assert.deepEqual(ann.objects[0]!.tags, [{ name: 'pose', value: 'Unspecified' }, { name: 'truncated', value: 1 }, { name: 'difficult', value: 0 }]);
    assert.deepEqual(ann.objects[1]!.tags.slice(0, 2), [{ name: 'other', value: 1 }, { name: 'jumping', value: 0 }]);
    assert.deepEqual(ann.objects[2]!.tags, [{ name: 'part of', value: 'person' }]);
    assert.deepEqual(ann.objectIndex, [0, 1]);
  });

  test('voc_dataset2: no <size>, no <object>, a comment, occluded, float coordinates', () => {
    const empty = readVocXml(text('datumaro/voc/voc_dataset2/Annotations/@.xml'), '@.xml');
    assert.deepEqual([empty.filename, empty.size, empty.objects], ['@.jpg', null, []]);
    const a = readVocXml(text('datumaro/voc/voc_dataset2/Annotations/a.xml'), 'a.xml');
    assert.deepEqual(a.objects.map((o) => [o.classTitle, o.points.exterior, o.tags]), [
      ['background', [[1, 2], [4, 6]], [{ name: 'truncated', value: 0 }, { name: 'difficult', value: 0 }, { name: 'occluded', value: 1 }]],
    ]);
  });

  test('labelformat: one-line XML, names with spaces and dots', () => {
    const ann = readVocXml(text('labelformat/voc/object_detection/a-weird Filename.asdf.xml'), 'x.xml');
    assert.equal(ann.filename, 'a-weird Filename.asdf.jpg');
    assert.ok(ann.objects.length > 0);
    assert.deepEqual(ann.objects[0]!.points.exterior, [[540, 295], [563, 313]]);
  });

  test('CVAT attributes become tags with their values; one without a <value> is a tag without one', () => {
    const xml = '<annotation><object><name>car</name><bndbox><xmin>1</xmin><ymin>2</ymin><xmax>3</xmax><ymax>4</ymax></bndbox>' +
      '<attributes><attribute><name>color</name><value>red</value></attribute><attribute><name>parked</name></attribute>' +
      '<attribute><name>seats</name><value>4</value></attribute></attributes></object></annotation>';
    assert.deepEqual(readVocXml(xml, 'a.xml').objects[0]!.tags, [{ name: 'color', value: 'red' }, { name: 'parked', value: null }, { name: 'seats', value: 4 }]);
  });

  test('malformed XML names its line', () => {
    assert.throws(() => readVocXml('<annotation>\n<object>\n</annotation>', 'bad.xml'), (e: unknown) => e instanceof VocFormatError && e.line === 3);
    assert.throws(() => readVocXml('<other/>', 'o.xml'), /not <annotation>/);
    assert.equal(parseXml('<?xml version="1.0"?><a x="1">&lt;b&gt;<![CDATA[<c>]]></a>').text, '<b><c>');
  });

  test('split lists: per-class files and trainval are not datasets; unlisted images go to ds0', () => {
    const paths = files('datumaro/voc/voc_dataset1');
    const lists = splitFiles(paths);
    assert.deepEqual(lists, ['ImageSets/Main/test.txt', 'ImageSets/Main/train.txt']);
    assert.deepEqual(splitFiles(files('datumaro/voc/voc_dataset2')), ['ImageSets/Main/trainval.txt']);
    const splits = lists.map((p) => ({ name: path.basename(p, '.txt'), ids: readSplitList(text(`datumaro/voc/voc_dataset1/${p}`)) }));
    const { datasets } = planVoc(paths.filter((p) => p.endsWith('.jpg') || p.endsWith('.png')), [{ path: 'Annotations/2007_000001.xml', filename: '2007_000001.jpg' }], paths.filter(isMaskPath), splits);
    assert.deepEqual(datasets, [
      { name: 'test', images: [{ name: '2007_000002.jpg', imagePath: 'JPEGImages/2007_000002.jpg', xmlPath: null, maskPath: null, classMaskPath: null }] },
      { name: 'train', images: [{ name: '2007_000001.jpg', imagePath: 'JPEGImages/2007_000001.jpg', xmlPath: 'Annotations/2007_000001.xml', maskPath: 'SegmentationObject/2007_000001.png', classMaskPath: 'SegmentationClass/2007_000001.png' }] },
    ]);
    assert.deepEqual(planVoc(['x/b.jpg'], [{ path: 'y/b.xml', filename: null }], [], []).datasets[0], { name: 'ds0', images: [{ name: 'b.jpg', imagePath: 'x/b.jpg', xmlPath: 'y/b.xml', maskPath: null, classMaskPath: null }] });
  });

  test('pairing: the XML\'s name first, then <filename>, then either without case; never one image twice', () => {
    const pairs = (images: string[], xmls: { path: string; filename: string | null }[]) => {
      const { datasets, warnings } = planVoc(images, xmls, [], []);
      const paired = datasets.flatMap((d) => d.images).filter((i) => i.xmlPath).map((i) => [i.xmlPath, i.imagePath]);
      return { paired, warned: warnings.map((w) => w.path) };
    };
    // Roboflow's chess export: 0af.xml names 0af.jpg, the image is 0AF.jpg; 1be.xml names "1be".
    assert.deepEqual(pairs(['0AF.jpg', '1be.jpg', '5c1.jpg'], [{ path: '0af.xml', filename: '0af.jpg' }, { path: '1be.xml', filename: '1be' }]), {
      paired: [['0af.xml', '0AF.jpg'], ['1be.xml', '1be.jpg']],
      warned: [],
    });
    // mmdetection's 000001.xml says <filename>000002.jpg</filename>: VOC pairs by the XML's name.
    assert.deepEqual(pairs(['JPEGImages/000001.jpg', 'JPEGImages/000002.jpg'], [{ path: 'Annotations/000001.xml', filename: '000002.jpg' }]).paired, [['Annotations/000001.xml', 'JPEGImages/000001.jpg']]);
    // <filename> when the XML's name matches nothing.
    assert.deepEqual(pairs(['photo.png'], [{ path: 'renamed.xml', filename: 'photo.png' }]).paired, [['renamed.xml', 'photo.png']]);
    // An exact match is never taken by another XML's case-insensitive one.
    assert.deepEqual(pairs(['a.jpg', 'A.jpg'], [{ path: 'A.xml', filename: null }, { path: 'a.xml', filename: null }]).paired, [['A.xml', 'A.jpg'], ['a.xml', 'a.jpg']]);
    // Two images of the name beside the XML, <filename> naming neither: ambiguous, paired with none.
    assert.deepEqual(pairs(['B.jpg', 'B.png'], [{ path: 'b.xml', filename: null }]), { paired: [], warned: ['b.xml'] });
    // ... unless <filename> tells them apart.
    assert.deepEqual(pairs(['c.jpg', 'c.png'], [{ path: 'c.xml', filename: 'c.png' }]).paired, [['c.xml', 'c.png']]);
    // Two XMLs for one image: the second is named, not dropped in silence; an XML with no image too.
    const { datasets, warnings } = planVoc(['JPEGImages/d.jpg'], [{ path: 'Annotations/d.xml', filename: 'd.jpg' }, { path: 'copy/e.xml', filename: 'd.jpg' }, { path: 'f.xml', filename: 'f.jpg' }], [], []);
    assert.equal(datasets[0]!.images[0]!.xmlPath, 'Annotations/d.xml');
    assert.deepEqual(warnings, [
      { path: 'copy/e.xml', message: 'its image JPEGImages/d.jpg is already paired with Annotations/d.xml; its objects are not imported' },
      { path: 'f.xml', message: 'no uploaded image matches its name or its <filename> "f.jpg"; its objects are not imported' },
    ]);
  });

  test('instance masks (RGB PNG) become bitmaps of their XML objects', async () => {
    assert.equal(vocColor(1), 0x800000);
    const ann = readVocXml(text('datumaro/voc/voc_dataset1/Annotations/2007_000001.xml'), 'a.xml');
    const png = readFileSync(path.join(PEER, 'datumaro/voc/voc_dataset1/SegmentationObject/2007_000001.png'));
    const { objects, warnings } = await readInstanceMask(png, 'SegmentationObject/2007_000001.png', ann.objects, ann.objectIndex);
    assert.deepEqual(warnings, []);
    assert.ok(objects.length >= 1);
    for (const o of objects) {
      assert.equal(o.shape, 'bitmap');
      assert.ok(['cat', 'person'].includes(o.classTitle));
    }
  });

  test('labelmap.txt: names and colours in order, bad lines named, the VOC classes without one', () => {
    const { labels, warnings } = readLabelMap(text('datumaro/voc/voc_dataset2/labelmap.txt'), 'labelmap.txt');
    assert.equal(labels.length, 22);
    assert.deepEqual(labels.slice(0, 3), [{ name: 'background', color: 0 }, { name: 'aeroplane', color: 0x800000 }, { name: 'bicycle', color: 0x008000 }]);
    assert.deepEqual(labels.at(-1), { name: 'ignored', color: 0xe0e0c0 });
    assert.deepEqual(warnings, []);
    assert.deepEqual(labels.slice(0, 21), VOC_LABELS, 'the file holds the VOC palette');
    const bad = readLabelMap('# label:color_rgb:parts:actions\nroad:128,64,128::\n:1,2,3::\nsky:300,0,0::\ntree\nlane:128,64,128::\n', 'lm.txt');
    assert.deepEqual(bad.labels, [{ name: 'road', color: 0x804080 }, { name: 'tree', color: vocColor(1) }]);
    assert.deepEqual(bad.warnings.map((w) => w.line), [3, 4, 6]);
    assert.equal(hexColor(0x804080), '#804080');
  });

  test('class masks: one bitmap per class present, background and border left out', async () => {
    const fixture = readFileSync(path.join(PEER, 'datumaro/voc/voc_dataset1/SegmentationClass/2007_000001.png'));
    const whole = await readClassMask(fixture, 'SegmentationClass/2007_000001.png', VOC_LABELS, isBackgroundLabel);
    assert.deepEqual(whole.objects.map((o) => [o.classTitle, o.shape, o.bitmap!.origin, o.bitmap!.width, o.bitmap!.height]), [['bicycle', 'bitmap', [0, 0], 20, 10]]);

    // 8×4: left half cat (64,0,0) with a border pixel, a dog (64,0,128) block, background, one stray colour.
    const rgb = Buffer.alloc(8 * 4 * 3);
    const paint = (x: number, y: number, c: number[]) => rgb.set(c, (y * 8 + x) * 3);
    for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) paint(x, y, [64, 0, 0]);
    paint(1, 1, [224, 224, 192]);
    for (let y = 2; y < 4; y++) for (let x = 5; x < 7; x++) paint(x, y, [64, 0, 128]);
    paint(7, 0, [1, 2, 3]);
    const png = await sharp(rgb, { raw: { width: 8, height: 4, channels: 3 } }).png().toBuffer();
    const labels = readLabelMap(text('datumaro/voc/voc_dataset2/labelmap.txt'), 'labelmap.txt').labels;
    const { objects, warnings } = await readClassMask(png, 'm.png', labels, isBackgroundLabel);
    assert.deepEqual(objects.map((o) => [o.classTitle, o.bitmap!.origin, o.bitmap!.width, o.bitmap!.height]), [['cat', [0, 0], 4, 4], ['dog', [5, 2], 2, 2]]);
    assert.deepEqual(readMaskSize(objects[0]!.bitmap!.data), { width: 4, height: 4 });
    assert.deepEqual(warnings.map((w) => w.message), ["1 colour(s) are no label's colour; those pixels are ignored"]);
  });
});
