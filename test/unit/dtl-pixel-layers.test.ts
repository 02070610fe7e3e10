// The DTL layers that change pixels: the pixels and every shape move together, checked against
// coordinates and pixels worked out by hand; the random ones repeat for one seed and differ for
// another. Test images are made with sharp from raw buffers and decoded as the engine decodes them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { Value } from 'typebox/value';
import type { CanonicalObject, Point } from '../../src/formats/canonical.ts';
import { decodeBitmap } from '../../src/formats/supervisely/bitmap.ts';
import { encodeMask } from '../../src/dtl/transform.ts';
import type { DtlItem, LayerContext, RawImage } from '../../src/dtl/item.ts';
import { pixelLayers } from '../../src/dtl/layers/pixels/index.ts';
import { seededRandom } from '../../src/dtl/random.ts';

/** An RGB image whose pixel (x, y) is (10·x, 10·y, 7): every pixel tells where it came from. */
function gradient(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set([10 * x, 10 * y, 7], (y * width + x) * 3);
  return data;
}

/** An item whose image is a PNG of the raw pixels, decoded by sharp when a layer asks for them. */
async function itemOf(width: number, height: number, objects: CanonicalObject[], data = gradient(width, height)): Promise<DtlItem> {
  const png = await sharp(data, { raw: { width, height, channels: 3 } }).png().toBuffer();
  const raw = async (): Promise<RawImage> => {
    const out = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    return { data: out.data, width: out.info.width, height: out.info.height, channels: out.info.channels as 3 };
  };
  return {
    name: 'a.png',
    dataset: 'p__d',
    source: { project: 'p', dataset: 'd' },
    annotation: { description: '', tags: [], size: { width, height }, objects },
    image: { hash: 'stored', raw },
  };
}

const object = (classTitle: string, exterior: Point[], extra: object = {}): CanonicalObject => ({
  classTitle,
  description: '',
  tags: [],
  bitmap: null,
  points: { exterior, interior: [] },
  ...extra,
});

const rows = (pattern: string[]) => ({
  width: pattern[0]!.length,
  height: pattern.length,
  pixels: Uint8Array.from(pattern.join('').split(''), (c) => (c === '#' ? 1 : 0)),
});

const bitmapObject = (pattern: string[], origin: [number, number]): CanonicalObject => {
  const bitmap = encodeMask(rows(pattern), origin)!;
  return { classTitle: 'mask', description: '', tags: [], bitmap, points: { exterior: [], interior: [] } };
};

async function maskOf(o: CanonicalObject): Promise<{ origin: [number, number]; rows: string[] }> {
  const m = await decodeBitmap(o.bitmap!.data);
  const out = [];
  for (let y = 0; y < m.height; y++) out.push(Array.from(m.pixels.subarray(y * m.width, (y + 1) * m.width), (v) => (v ? '#' : '.')).join(''));
  return { origin: o.bitmap!.origin, rows: out };
}

const context = (seed: number | string = 1, name = 'a.png'): LayerContext => ({ random: seededRandom(seed, 0, name) });

async function run(action: string, item: DtlItem, settings: unknown, ctx = context()): Promise<DtlItem[]> {
  return pixelLayers[action]!.run(item, settings, ctx);
}

/** The RGB of pixel (x, y). */
async function pixel(item: DtlItem, x: number, y: number): Promise<number[]> {
  const raw = await item.image.raw();
  const k = (y * raw.width + x) * raw.channels;
  return [...raw.data.subarray(k, k + 3)];
}

/** Every pixel of `out` is the pixel of the input that `from` names (the gradient gives it away). */
async function assertPixelsFrom(out: DtlItem, from: (x: number, y: number) => [number, number]): Promise<void> {
  const raw = await out.image.raw();
  for (let y = 0; y < raw.height; y++) {
    for (let x = 0; x < raw.width; x++) {
      const [sx, sy] = from(x, y);
      assert.deepEqual(await pixel(out, x, y), [10 * sx, 10 * sy, 7], `pixel (${x}, ${y}) comes from (${sx}, ${sy})`);
    }
  }
}

describe('flip', () => {
  const objects = () => [object('poly', [[1, 0], [3, 0], [3, 1]]), bitmapObject(['#.', '##'], [1, 0])];

  test('horizontal flips rows: y becomes H - y, the mask pixel for pixel', async () => {
    const [out] = await run('flip', await itemOf(4, 3, objects()), { axis: 'horizontal' });
    await assertPixelsFrom(out!, (x, y) => [x, 2 - y]);
    assert.equal(out!.image.hash, null, 'the pixels changed');
    const [poly, mask] = out!.annotation.objects;
    assert.deepEqual(poly!.points.exterior, [[1, 3], [3, 3], [3, 2]]);
    assert.deepEqual(await maskOf(mask!), { origin: [1, 1], rows: ['##', '#.'] });
  });

  test('vertical flips columns: x becomes W - x, the mask pixel for pixel', async () => {
    const [out] = await run('flip', await itemOf(4, 3, objects()), { axis: 'vertical' });
    await assertPixelsFrom(out!, (x, y) => [3 - x, y]);
    const [poly, mask] = out!.annotation.objects;
    assert.deepEqual(poly!.points.exterior, [[3, 0], [1, 0], [1, 1]]);
    assert.deepEqual(await maskOf(mask!), { origin: [1, 0], rows: ['.#', '##'] });
  });
});

describe('crop', () => {
  test('sides in pixels and percent cut the pixels, a polygon and a bitmap; what is outside goes', async () => {
    const item = await itemOf(10, 10, [
      object('poly', [[0, 0], [6, 0], [6, 6], [0, 6]]),
      bitmapObject(['###', '###', '###'], [1, 1]),
      object('gone', [[0, 0], [1, 0], [1, 1], [0, 1]]),
    ]);
    const [out] = await run('crop', item, { sides: { top: '20%', left: '2px', right: '0px', bottom: '10%' } });
    assert.deepEqual(out!.annotation.size, { width: 8, height: 7 });
    await assertPixelsFrom(out!, (x, y) => [x + 2, y + 2]);
    const [poly, mask, ...rest] = out!.annotation.objects;
    assert.deepEqual(poly!.points.exterior, [[0, 0], [4, 0], [4, 4], [0, 4]]);
    assert.deepEqual(await maskOf(mask!), { origin: [0, 0], rows: ['##', '##'] });
    assert.deepEqual(rest, [], 'the polygon wholly above and left of the crop is dropped');
  });

  test('cutting nothing keeps the item as it was, with its stored hash', async () => {
    const item = await itemOf(10, 10, [object('poly', [[0, 0], [6, 0], [6, 6]])]);
    const [out] = await run('crop', item, { sides: { top: '0px', left: '0%', right: '0px', bottom: '0px' } });
    assert.equal(out, item);
    assert.equal(out!.image.hash, 'stored');
  });

  test('a random part has the drawn size inside the image, the same for one seed', async () => {
    const settings = { random_part: { height: { min_percent: 40, max_percent: 60 }, width: { min_percent: 20, max_percent: 80 }, keep_aspect_ratio: false } };
    const sizes = [];
    for (const seed of [1, 1, 2, 3, 4]) {
      const [out] = await run('crop', await itemOf(20, 10, []), settings, context(seed));
      const { width, height } = out!.annotation.size;
      assert.ok(width >= 4 && width <= 16 && height >= 4 && height <= 6, `${width}x${height}`);
      sizes.push([width, height, ...(await pixel(out!, 0, 0))]);
    }
    assert.deepEqual(sizes[0], sizes[1]);
    assert.ok(new Set(sizes.map(String)).size > 2, 'other seeds draw other parts');
  });
});

describe('resize', () => {
  test('a side of -1 with keep follows the other in proportion', async () => {
    const [out] = await run('resize', await itemOf(20, 10, [object('poly', [[2, 2], [10, 2], [10, 8]])]), {
      width: 10,
      height: -1,
      aspect_ratio: { keep: true },
    });
    assert.deepEqual(out!.annotation.size, { width: 10, height: 5 });
    assert.deepEqual((await out!.image.raw()).width, 10);
    assert.deepEqual(out!.annotation.objects[0]!.points.exterior, [[1, 1], [5, 1], [5, 4]]);
  });

  test('both sides with keep scale to fit and centre the image on black', async () => {
    const item = await itemOf(20, 10, [object('box', [[0, 0], [20, 10]]), bitmapObject(['##', '##'], [0, 0])]);
    const [out] = await run('resize', item, { width: 10, height: 10, aspect_ratio: { keep: true } });
    assert.deepEqual(out!.annotation.size, { width: 10, height: 10 });
    // The 20×10 image becomes 10×5, placed 2 rows down: rows 0–1 and 7–9 are black.
    assert.deepEqual(await pixel(out!, 5, 0), [0, 0, 0]);
    assert.deepEqual(await pixel(out!, 5, 9), [0, 0, 0]);
    assert.notDeepEqual(await pixel(out!, 5, 4), [0, 0, 0]);
    const [box, mask] = out!.annotation.objects;
    assert.deepEqual(box!.points.exterior, [[0, 2], [10, 7]]);
    assert.deepEqual(await maskOf(mask!), { origin: [0, 2], rows: ['#'] });
  });

  test('without keep the size is the one asked for, and -1 is refused', async () => {
    const [out] = await run('resize', await itemOf(20, 10, []), { width: 7, height: 3, aspect_ratio: { keep: false } });
    assert.deepEqual(out!.annotation.size, { width: 7, height: 3 });
    await assert.rejects(run('resize', await itemOf(20, 10, []), { width: 7, height: -1, aspect_ratio: { keep: false } }), /keep/);
    // A side that follows a thin image in proportion may not grow past the limit.
    await assert.rejects(run('resize', await itemOf(20, 1, []), { width: -1, height: 1000, aspect_ratio: { keep: true } }), /larger than/);
  });
});

describe('rotate', () => {
  const quarter = (mode: string) => ({ rotate_angles: { min_degrees: 90, max_degrees: 90 }, black_regions: { mode } });

  test('a quarter turn counter-clockwise moves pixels, a rectangle and a bitmap together', async () => {
    const item = await itemOf(4, 2, [object('box', [[0, 0], [2, 1]]), bitmapObject(['##', '.#'], [2, 0])]);
    const [out] = await run('rotate', item, quarter('keep'));
    assert.deepEqual(out!.annotation.size, { width: 2, height: 4 });
    // (x, y) goes to (y, W - x): the top-right pixel comes to the top-left.
    await assertPixelsFrom(out!, (x, y) => [3 - y, x]);
    const [box, mask] = out!.annotation.objects;
    assert.deepEqual(box!.points.exterior, [[0, 2], [1, 4]]);
    // Mask pixels (2,0) (3,0) (3,1) land on (0,1) (0,0) (1,0).
    assert.deepEqual(await maskOf(mask!), { origin: [0, 0], rows: ['##', '#.'] });
  });

  test('at any angle the shapes stay on the pixels they covered', async () => {
    // A white 8×8 square on black at (20, 6); its polygon and mask must still cover white pixels.
    const data = Buffer.alloc(40 * 30 * 3);
    for (let y = 6; y < 14; y++) for (let x = 20; x < 28; x++) data.fill(255, (y * 40 + x) * 3, (y * 40 + x) * 3 + 3);
    const square: Point[] = [[20, 6], [28, 6], [28, 14], [20, 14]];
    const item = await itemOf(40, 30, [object('poly', square), bitmapObject(Array<string>(8).fill('########'), [20, 6])], data);
    const [out] = await run('rotate', item, { rotate_angles: { min_degrees: 30, max_degrees: 30 }, black_regions: { mode: 'keep' } });
    const [poly, mask] = out!.annotation.objects;
    const corners = poly!.points.exterior;
    const cx = corners.reduce((s, p) => s + p[0], 0) / 4;
    const cy = corners.reduce((s, p) => s + p[1], 0) / 4;
    assert.deepEqual(await pixel(out!, Math.floor(cx), Math.floor(cy)), [255, 255, 255], `the polygon's centre (${cx}, ${cy}) is white`);
    const side = Math.hypot(corners[1]![0] - corners[0]![0], corners[1]![1] - corners[0]![1]);
    assert.ok(Math.abs(side - 8) < 1e-6, 'the square keeps its size');
    const m = await decodeBitmap(mask!.bitmap!.data);
    const [ox, oy] = mask!.bitmap!.origin;
    let white = 0;
    let set = 0;
    for (let y = 0; y < m.height; y++) {
      for (let x = 0; x < m.width; x++) {
        if (!m.pixels[y * m.width + x]) continue;
        set++;
        if ((await pixel(out!, ox + x, oy + y))[0]! > 127) white++;
      }
    }
    assert.ok(set > 50 && set < 78, `about 64 pixels stay set: ${set}`);
    assert.ok(white / set > 0.9, `the mask lies on the white square: ${white} of ${set}`);
  });

  test('preserve_size keeps the original size about the centre; crop keeps no black', async () => {
    const [kept] = await run('rotate', await itemOf(4, 2, []), quarter('preserve_size'));
    assert.deepEqual(kept!.annotation.size, { width: 4, height: 2 });
    assert.deepEqual(await pixel(kept!, 0, 0), [0, 0, 0], 'the turned image is narrower: black at its sides');
    const [cut] = await run('rotate', await itemOf(40, 20, [object('box', [[0, 0], [40, 20]])]), {
      rotate_angles: { min_degrees: 30, max_degrees: 30 },
      black_regions: { mode: 'crop' },
    });
    const { width, height } = cut!.annotation.size;
    assert.ok(width > 0 && width < 40 && height > 0 && height < 30, `${width}x${height}`);
    for (const [x, y] of [[0, 0], [width - 1, 0], [0, height - 1], [width - 1, height - 1]] as const) {
      assert.notDeepEqual(await pixel(cut!, x, y), [0, 0, 0], `corner (${x}, ${y}) is inside the turned image`);
    }
    assert.deepEqual(cut!.annotation.objects[0]!.points.exterior, [[0, 0], [width, height]], 'the whole-image box covers the crop');
  });
});

describe('instances_crop', () => {
  test('one item per object of the classes, cut to its padded box; other objects dropped', async () => {
    const item = await itemOf(20, 20, [
      object('car', [[2, 2], [6, 5]]),
      object('tree', [[0, 0], [20, 20]]),
      object('car', [[15, 15], [20, 20]]),
    ]);
    const out = await run('instances_crop', item, { classes: ['car'], pad: { sides: { top: '1px', left: '1px', right: '1px', bottom: '1px' } } });
    assert.deepEqual(out.map((i) => i.name), ['a_1.png', 'a_2.png']);
    assert.deepEqual(out.map((i) => i.annotation.size), [{ width: 6, height: 5 }, { width: 6, height: 6 }]);
    assert.deepEqual(out.map((i) => i.annotation.objects.map((o) => [o.classTitle, o.points.exterior])), [
      [['car', [[1, 1], [5, 4]]]],
      [['car', [[1, 1], [6, 6]]]],
    ]);
    await assertPixelsFrom(out[0]!, (x, y) => [x + 1, y + 1]);
    const saved = await run('instances_crop', item, { classes: ['car'], save_classes: ['tree'], pad: { sides: { top: '0%', left: '0%', right: '50%', bottom: '0%' } } });
    assert.deepEqual(saved[0]!.annotation.size, { width: 6, height: 3 }, 'right pad is half the box width');
    assert.deepEqual(saved[0]!.annotation.objects.map((o) => o.classTitle), ['car', 'tree']);
  });
});

describe('sliding_window', () => {
  test('windows step by window - overlap, the last moved back to the edge', async () => {
    const item = await itemOf(10, 8, [object('dot', [[5, 5]])]);
    const out = await run('sliding_window', item, { window: { width: 4, height: 4 }, min_overlap: { x: 1, y: 1 } });
    // x starts 0, 3, 6; y starts 0, 3, 4.
    assert.equal(out.length, 9);
    assert.deepEqual(out.map((i) => i.name).slice(0, 2), ['a_1.png', 'a_2.png']);
    const offsets = [];
    for (const window of out) {
      assert.deepEqual(window.annotation.size, { width: 4, height: 4 });
      const [r, g] = await pixel(window, 0, 0);
      offsets.push([r! / 10, g! / 10]);
    }
    assert.deepEqual(offsets, [[0, 0], [3, 0], [6, 0], [0, 3], [3, 3], [6, 3], [0, 4], [3, 4], [6, 4]]);
    assert.deepEqual(out[4]!.annotation.objects[0]!.points.exterior, [[2, 2]], 'the point in the window at (3, 3)');
    assert.deepEqual(out[0]!.annotation.objects, [], 'the window at (0, 0) does not reach the point');
    await assert.rejects(run('sliding_window', item, { window: { width: 12, height: 4 }, min_overlap: { x: 1, y: 1 } }), /larger/);
  });
});

describe('colour layers', () => {
  const cases: [string, unknown][] = [
    ['blur', { name: 'gaussian', sigma: { min: 0.5, max: 3 } }],
    ['contrast_brightness', { contrast: { min: 0.5, max: 1.5, center_grey: true }, brightness: { min: -40, max: 40 } }],
    ['noise', { mean: 0, std: 20 }],
    ['random_color', { strength: 0.5 }],
  ];
  for (const [action, settings] of cases) {
    test(`${action} changes pixels and not geometry, the same for one seed and not for another`, async () => {
      const objects = [object('poly', [[1, 1], [5, 1], [5, 5]]), bitmapObject(['#'], [2, 2])];
      // A textured image: a smooth gradient would come out of a gaussian blur almost unchanged.
      const texture = Buffer.from(Array.from({ length: 8 * 8 * 3 }, (_, k) => (k * 97 + (k % 5) * 31) % 256));
      const original = await (await itemOf(8, 8, objects, texture)).image.raw();
      const runWith = async (seed: number) => {
        const [out] = await run(action, await itemOf(8, 8, objects, texture), settings, context(seed));
        assert.deepEqual(out!.annotation.objects, objects);
        assert.equal(out!.image.hash, null);
        return (await out!.image.raw()).data;
      };
      const first = await runWith(1);
      assert.ok(!first.equals(original.data), 'the pixels changed');
      assert.ok(first.equals(await runWith(1)), 'the same seed gives the same pixels');
      assert.ok(!first.equals(await runWith(2)), 'another seed gives others');
    });
  }

  test('fixed ranges give the values worked out by hand', async () => {
    const data = Buffer.from([100, 200, 20, 0, 128, 255]);
    const values = async (action: string, settings: unknown) => [...(await (await run(action, await itemOf(2, 1, [], data), settings))[0]!.image.raw()).data];
    // (v - 128)·2 + 128 + 10, clamped.
    assert.deepEqual(await values('contrast_brightness', { contrast: { min: 2, max: 2, center_grey: true }, brightness: { min: 10, max: 10 } }), [
      82, 255, 0, 0, 138, 255,
    ]);
    // 255·0.5 = 127.5 is cut to 127, as numpy's astype(uint8) cut it.
    assert.deepEqual(await values('contrast_brightness', { contrast: { min: 0.5, max: 0.5 }, brightness: { min: 0, max: 0 } }), [50, 100, 10, 0, 64, 127]);
    await assert.rejects(values('contrast_brightness', { contrast: { min: 2, max: 1 }, brightness: { min: 0, max: 0 } }), /min \(2\) exceeds max \(1\)/);
    assert.deepEqual(await values('noise', { mean: 10, std: 0 }), [110, 210, 30, 10, 138, 255]);
    assert.deepEqual(await values('random_color', { strength: 0 }), [...data]);
  });

  test('noise has the mean and spread asked for', async () => {
    const grey = Buffer.alloc(64 * 64 * 3, 100);
    const [out] = await run('noise', await itemOf(64, 64, [], grey), { mean: 5, std: 20 });
    const values = [...(await out!.image.raw()).data];
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    const std = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length);
    // 100 + 5 on average, less the half a value lost to cutting to whole numbers.
    assert.ok(Math.abs(mean - 104.5) < 0.6, `mean ${mean}`);
    assert.ok(Math.abs(std - 20) < 1, `std ${std}`);
  });

  test('a median blur smooths a lone bright pixel away', async () => {
    const data = Buffer.alloc(5 * 5 * 3);
    data.set([255, 255, 255], (2 * 5 + 2) * 3);
    const [out] = await run('blur', await itemOf(5, 5, [], data), { name: 'median', kernel: 3 });
    assert.deepEqual(await pixel(out!, 2, 2), [0, 0, 0]);
  });
});

describe('settings', () => {
  test('the registry names the ten layers, and their schemas take the 2018 examples and a seed', () => {
    assert.deepEqual(Object.keys(pixelLayers).sort(), [
      'blur', 'contrast_brightness', 'crop', 'flip', 'instances_crop', 'noise', 'random_color', 'resize', 'rotate', 'sliding_window',
    ]);
    const examples: [string, unknown][] = [
      ['resize', { width: 800, height: -1, aspect_ratio: { keep: true } }],
      ['crop', { sides: { top: '30%', left: '100px', right: '100px', bottom: '0px' } }],
      ['crop', { random_part: { height: { min_percent: 10, max_percent: 40 }, width: { min_percent: 30, max_percent: 80 }, keep_aspect_ratio: false } }],
      ['flip', { axis: 'vertical' }],
      ['rotate', { rotate_angles: { min_degrees: -45, max_degrees: 45 }, black_regions: { mode: 'keep' } }],
      ['instances_crop', { classes: ['car', 'person'], save_classes: ['traffic_sign'], pad: { sides: { top: '10%', left: '10%', right: '10%', bottom: '10%' } } }],
      ['sliding_window', { window: { width: 128, height: 128 }, min_overlap: { x: 32, y: 32 } }],
      ['blur', { name: 'median', kernel: 5 }],
      ['blur', { name: 'gaussian', sigma: { min: 3, max: 50 } }],
      ['contrast_brightness', { contrast: { min: 0.5, max: 2, center_grey: false }, brightness: { min: -50, max: 50 } }],
      ['noise', { mean: 10, std: 50 }],
      ['noise', { mean: 10, std: 50, seed: 7 }],
      ['crop', { random_part: { height: { min_percent: 10, max_percent: 40 }, width: { min_percent: 30, max_percent: 80 } }, seed: 'split-a' }],
      ['random_color', { strength: 0.25 }],
    ];
    for (const [action, settings] of examples) assert.ok(Value.Check(pixelLayers[action]!.settings, settings), `${action} ${JSON.stringify(settings)}`);
  });

  test('settings out of their ranges or misspelt are refused', () => {
    const refused: [string, unknown][] = [
      ['crop', { sides: { top: '30', left: '1px', right: '1px', bottom: '1px' } }],
      ['crop', { sides: { top: '1px', left: '1px', right: '1px', bottom: '1px' }, random_part: {} }],
      ['flip', { axis: 'diagonal' }],
      ['rotate', { rotate_angles: { min_degrees: 0, max_degrees: 10 }, black_regions: { mode: 'fill' } }],
      ['resize', { width: 100000, height: 10, aspect_ratio: { keep: false } }],
      ['sliding_window', { window: { width: 0, height: 10 }, min_overlap: { x: 0, y: 0 } }],
      ['random_color', { strength: 2 }],
      ['noise', { mean: 0, std: 1, extra: true }],
      ['noise', { mean: 0, std: 1, seed: { value: 1 } }],
    ];
    for (const [action, settings] of refused) assert.ok(!Value.Check(pixelLayers[action]!.settings, settings), `${action} ${JSON.stringify(settings)}`);
  });

  test('defaults fill what the 2018 DTL let out', () => {
    const settings = Value.Default(pixelLayers.contrast_brightness!.settings, { contrast: { min: 1, max: 2 }, brightness: { min: 0, max: 0 } });
    assert.deepEqual(settings, { contrast: { min: 1, max: 2, center_grey: false }, brightness: { min: 0, max: 0 } });
  });
});
