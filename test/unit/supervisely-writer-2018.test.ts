// The Supervisely writer in the 2018 layout: every file keeps the 2018 SDK's rules (checked by
// check2018Project, written from that SDK's source), tags are names and a value left out is counted,
// masks the 2018 reader could not decode are written again with the same pixels, and our own
// readers take the archive back.
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { MasksWriter } from '../../src/formats/masks/writer.ts';
import { encodePngSync } from '../../src/formats/png.ts';
import { decodeBitmap, isLegacyReadableMask, parseAnnotation, parseProjectMeta, planProject } from '../../src/formats/supervisely/index.ts';
import { SuperviselyWriter, TAG_VALUES_LEFT_OUT } from '../../src/formats/supervisely/writer.ts';
import type { ExportRecord } from '../../src/formats/writer.ts';
import { listFiles, readJson, scratchDir, writeAll, writeEntries } from '../helpers/archive-folder.ts';
import { SAMPLE_PROJECT, sampleImages, sampleRecords } from '../helpers/export-samples.ts';
import { check2018Project } from '../helpers/supervisely-2018-rules.ts';

async function write2018(records: ExportRecord[], includeImages = true): Promise<{ dir: string; writer: SuperviselyWriter }> {
  const dir = scratchDir('sly-2018');
  const writer = new SuperviselyWriter(SAMPLE_PROJECT, { includeImages, layout: '2018' });
  await writeEntries(await writeAll(writer, records), dir, sampleImages(records));
  await writer.close();
  return { dir, writer };
}

/** A 6×4 mask with a 2×2 square set at (1, 1), encoded as `data` the way some tools write it. */
const SQUARE = (() => {
  const pixels = new Uint8Array(24);
  for (const [x, y] of [[1, 1], [2, 1], [1, 2], [2, 2]] as const) pixels[y * 6 + x] = 1;
  return pixels;
})();
const asData = (png: Buffer) => deflateSync(png).toString('base64');
async function rgbMask(): Promise<string> {
  const raw = Buffer.alloc(24 * 3);
  SQUARE.forEach((v, i) => raw.fill(v ? 255 : 0, i * 3, i * 3 + 3));
  return asData(await sharp(raw, { raw: { width: 6, height: 4, channels: 3 } }).png().toBuffer());
}
/** A palette PNG without a transparency chunk: index 1 white. */
const paletteMask = () => asData(encodePngSync({ width: 6, height: 4, pixels: SQUARE, kind: 'palette', palette: [0x000000, 0xffffff] }));
/** A palette PNG with index 0 transparent, as the 2018 SDK wrote its masks. */
function transparentPaletteMask(): string {
  const png = encodePngSync({ width: 6, height: 4, pixels: SQUARE, kind: 'palette', palette: [0x000000, 0xffffff] });
  // tRNS goes after PLTE and before IDAT: signature 8, IHDR 25, PLTE 12 + 6 bytes.
  const idat = 8 + 25 + 18;
  assert.equal(png.toString('latin1', idat + 4, idat + 8), 'IDAT');
  const trns = Buffer.alloc(13);
  trns.writeUInt32BE(1, 0);
  trns.write('tRNS', 4, 'latin1');
  trns[8] = 0; // index 0 fully transparent
  trns.writeUInt32BE(crc32(trns.subarray(4, 9)), 9);
  return asData(Buffer.concat([png.subarray(0, idat), trns, png.subarray(idat)]));
}
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

describe('Supervisely writer, 2018 layout', () => {
  test('files named by stem, a meta of tag names, tags as names: the 2018 rules hold for every file', async () => {
    const records = sampleRecords();
    const { dir, writer } = await write2018(records);
    assert.deepEqual(listFiles(dir), [
      'meta.json',
      'train/ann/a.json',
      'train/ann/a_1.json',
      'train/img/a.jpg',
      'train/img/a_1.png',
      'val/ann/c.json',
      'val/ann/empty.json',
      'val/img/c.jpg',
      'val/img/empty.jpg',
    ]);
    assert.deepEqual(check2018Project(dir), []);
    assert.deepEqual(readJson(dir, 'meta.json'), {
      classes: SAMPLE_PROJECT.classes,
      tags_images: ['daytime', 'weather'],
      tags_objects: ['occluded', 'score'],
    });
    const first = readJson<{ tags: unknown; objects: { tags: unknown; bitmap: unknown }[] }>(dir, 'train/ann/a.json');
    assert.deepEqual(first.tags, ['daytime', 'weather']);
    assert.deepEqual(first.objects[0]!.tags, ['occluded', 'score']);
    assert.deepEqual(first.objects[5]!.bitmap, records[0]!.objects[5]!.bitmap, 'a 1-bit greyscale mask is written as it is');
    assert.deepEqual(readJson(dir, 'val/ann/c.json'), {
      description: '',
      tags: ['weather'],
      size: { width: 50, height: 40 },
      objects: [{ classTitle: 'car', description: '', tags: ['score'], bitmap: null, points: { exterior: [[0, 0], [50, 40]], interior: [] } }],
    });
    const notices = writer.notices();
    assert.deepEqual(notices.find((n) => n.message === TAG_VALUES_LEFT_OUT), { message: TAG_VALUES_LEFT_OUT, count: 2, first: 'train/a.jpg' });
    assert.deepEqual(notices.filter((n) => /renamed/.test(n.message)).map((n) => [n.count, n.first]), [[1, 'train/a.png']]);
  });

  test('the readers take it back: each image with its annotation, the objects as they were, tags without values', async () => {
    const records = sampleRecords();
    const { dir } = await write2018(records);
    const plan = planProject(listFiles(dir));
    assert.deepEqual(plan.datasets.map((d) => [d.name, d.images.map((i) => [i.name, i.annotationPath]), d.annotationsWithoutImage]), [
      ['train', [['a.jpg', 'train/ann/a.json'], ['a_1.png', 'train/ann/a_1.json']], []],
      ['val', [['c.jpg', 'val/ann/c.json'], ['empty.jpg', 'val/ann/empty.json']], []],
    ]);
    const meta = parseProjectMeta(readJson(dir, 'meta.json'));
    assert.deepEqual(meta.classes, SAMPLE_PROJECT.classes);
    assert.deepEqual(meta.tags, SAMPLE_PROJECT.tags.map((t) => ({ ...t, valueType: 'none' })));
    const withoutValues = (tags: { name: string }[]) => tags.map((t) => ({ name: t.name, value: null }));
    for (const [r, file] of records.map((r, i) => [r, ['train/ann/a.json', 'train/ann/a_1.json', 'val/ann/c.json', 'val/ann/empty.json'][i]!] as const)) {
      const { annotation, skipped } = parseAnnotation(readJson(dir, file), meta);
      assert.deepEqual(skipped, []);
      assert.deepEqual(annotation.tags, withoutValues(r.tags));
      assert.deepEqual(
        annotation.objects.map((o) => ({ ...o, bitmap: o.bitmap && { origin: o.bitmap.origin, data: o.bitmap.data } })),
        r.objects.map((o) => ({ ...o, tags: withoutValues(o.tags) })),
      );
    }
  });

  test('without images the annotations and the meta still keep the rules', async () => {
    const { dir } = await write2018(sampleRecords(), false);
    assert.deepEqual(listFiles(dir), ['meta.json', 'train/ann/a.json', 'train/ann/a_1.json', 'val/ann/c.json', 'val/ann/empty.json']);
    assert.deepEqual(check2018Project(dir), []);
  });

  test('a mask of three channels (RGB, a palette without transparency) is written again as 1-bit greyscale, same pixels and origin', async () => {
    const masks = { rgb: await rgbMask(), palette: paletteMask(), transparent: transparentPaletteMask() };
    assert.equal(isLegacyReadableMask(masks.rgb), false);
    assert.equal(isLegacyReadableMask(masks.palette), false);
    assert.equal(isLegacyReadableMask(masks.transparent), true);
    const [base] = sampleRecords();
    const stain = (data: string) => ({ classTitle: 'stain', description: '', tags: [], bitmap: { origin: [7, 9] as [number, number], data }, points: { exterior: [], interior: [] } });
    const record: ExportRecord = { ...base!, tags: [], objects: [stain(masks.rgb), stain(masks.palette), stain(masks.transparent)] };
    const { dir } = await write2018([record]);
    assert.deepEqual(check2018Project(dir), []);
    const written = readJson<{ objects: { bitmap: { origin: number[]; data: string } }[] }>(dir, 'train/ann/a.json').objects.map((o) => o.bitmap);
    assert.equal(written[2]!.data, masks.transparent, 'a mask the 2018 reader takes is kept byte for byte');
    for (const bitmap of written) {
      assert.deepEqual(bitmap.origin, [7, 9]);
      assert.deepEqual(await decodeBitmap(bitmap.data), { width: 6, height: 4, pixels: SQUARE });
    }
  });

  test('masks in the 2018 layout: the project beside them keeps the rules, masks named by the same stems', async () => {
    const records = sampleRecords();
    const dir = scratchDir('masks-2018');
    const writer = new MasksWriter(SAMPLE_PROJECT, { includeImages: true, machine: true, human: true, layout: '2018' });
    await writeEntries(await writeAll(writer, records), dir, sampleImages(records));
    await writer.close();
    const files = listFiles(dir);
    assert.deepEqual(files.filter((f) => f.startsWith('train/')), [
      'train/ann/a.json',
      'train/ann/a_1.json',
      'train/img/a.jpg',
      'train/img/a_1.png',
      'train/masks_human/a.png',
      'train/masks_human/a_1.png',
      'train/masks_machine/a.png',
      'train/masks_machine/a_1.png',
    ]);
    assert.deepEqual(check2018Project(dir), []);
    assert.equal(writer.notices().find((n) => n.message === TAG_VALUES_LEFT_OUT)?.count, 2);
  });

  test('a name the 2018 reader would split otherwise (dots, then the extension) is renamed so that it still finds the annotation', async () => {
    const [a] = sampleRecords();
    const { dir, writer } = await write2018([{ ...a!, name: '..jpg' }]);
    assert.deepEqual(listFiles(dir), ['meta.json', 'train/ann/_.json', 'train/img/_.jpg']);
    assert.deepEqual(check2018Project(dir), []);
    assert.deepEqual(writer.notices().filter((n) => /renamed/.test(n.message)).map((n) => [n.count, n.first]), [[1, 'train/..jpg']]);
  });

  test('the default layout is unchanged: annotations named after the whole image name, tags with values', async () => {
    const records = sampleRecords();
    const dir = scratchDir('sly-current');
    const writer = new SuperviselyWriter(SAMPLE_PROJECT, { includeImages: false });
    await writeEntries(await writeAll(writer, records), dir, sampleImages(records));
    assert.ok(listFiles(dir).includes('train/ann/a.jpg.json'));
    assert.deepEqual(readJson<{ tags: unknown }>(dir, 'val/ann/c.jpg.json').tags, [{ name: 'weather', value: 'rain' }]);
    assert.ok(check2018Project(dir).some((p) => p.startsWith('meta.json: no "tags_images"')), 'the newer meta breaks the 2018 rules');
  });
});

describe('planProject and the 2018 layout', () => {
  test('an annotation named by the stem pairs with the one image of that stem; an exact name wins; two images of a stem pair with none', () => {
    const plan = planProject(['meta.json', 'ds/img/a.jpg', 'ds/ann/a.json', 'ds/img/b.png', 'ds/ann/b.png.json', 'ds/ann/b.json', 'ds/img/c.jpg', 'ds/img/c.png', 'ds/ann/c.json']);
    assert.deepEqual(plan.datasets[0]!.images.map((i) => [i.name, i.annotationPath]), [
      ['a.jpg', 'ds/ann/a.json'],
      ['b.png', 'ds/ann/b.png.json'],
      ['c.jpg', null],
      ['c.png', null],
    ]);
    assert.deepEqual(plan.datasets[0]!.annotationsWithoutImage, ['ds/ann/b.json', 'ds/ann/c.json']);
  });
});
