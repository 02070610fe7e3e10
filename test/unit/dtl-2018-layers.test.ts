// The layers of the 2018 DTL that turn outlines into bands, masks into skeletons and skeletons into
// lines, and the `if` condition on the area of objects, each on a small item worked out by hand.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { ClassError, type ClassSet } from '../../src/dtl/classes.ts';
import { isAction } from '../../src/dtl/config.ts';
import type { DtlItem, LayerContext } from '../../src/dtl/item.ts';
import { bitmap2lines } from '../../src/dtl/layers/bitmap2lines.ts';
import { bitwiseMasks } from '../../src/dtl/layers/bitwise-masks.ts';
import { colorClass } from '../../src/dtl/layers/color-class.ts';
import { dropLinesByLength } from '../../src/dtl/layers/drop-lines-by-length.ts';
import { generateHints } from '../../src/dtl/layers/generate-hints.ts';
import { ifLayer } from '../../src/dtl/layers/if.ts';
import { processingLayer } from '../../src/dtl/layers/index.ts';
import type { ProcessingLayer } from '../../src/dtl/layers/layer.ts';
import { line2bitmap } from '../../src/dtl/layers/line2bitmap.ts';
import { mergeBitmapMasks } from '../../src/dtl/layers/merge-bitmap-masks.ts';
import { skeletonize } from '../../src/dtl/layers/skeletonize.ts';
import type { CanonicalBitmap, CanonicalObject, ClassShape, Point } from '../../src/formats/canonical.ts';
import { encodePngSync } from '../../src/formats/png.ts';
import { decodeBitmap } from '../../src/formats/supervisely/bitmap.ts';

const classes = (...list: [string, ClassShape][]): ClassSet => ({ classes: list.map(([title, shape]) => ({ title, shape, color: '#112233' })), tags: [] });
const SET = classes(['car', 'polygon'], ['box', 'rectangle'], ['mask', 'bitmap'], ['road', 'line'], ['pin', 'point']);

const vector = (classTitle: string, exterior: Point[], interior: Point[][] = []): CanonicalObject => ({ classTitle, description: 'd', tags: [{ name: 't', value: 1 }], bitmap: null, points: { exterior, interior } });

/** A bitmap from rows of '#' and '.', placed at origin. */
function mask(classTitle: string, origin: [number, number], rows: string[]): CanonicalObject {
  const width = rows[0]!.length;
  const height = rows.length;
  const pixels = new Uint8Array(width * height);
  rows.forEach((row, y) => [...row].forEach((c, x) => (pixels[y * width + x] = c === '#' ? 1 : 0)));
  const bitmap: CanonicalBitmap = { origin, data: deflateSync(encodePngSync({ width, height, pixels, kind: 'bits' })).toString('base64'), width, height };
  return { classTitle, description: '', tags: [], bitmap, points: { exterior: [], interior: [] } };
}

/** A bitmap drawn as rows of '#' and '.' over the whole image. */
async function picture(o: CanonicalObject, width: number, height: number): Promise<string[]> {
  const m = await decodeBitmap(o.bitmap!.data);
  const [ox, oy] = o.bitmap!.origin;
  return Array.from({ length: height }, (_, y) => Array.from({ length: width }, (_, x) => (m.pixels[(y - oy) * m.width + (x - ox)] && x >= ox && y >= oy && x - ox < m.width ? '#' : '.')).join(''));
}

function item(objects: CanonicalObject[], width = 10, height = 8): DtlItem {
  return {
    name: 'a.png',
    dataset: 'p__ds',
    source: { project: 'p', dataset: 'ds' },
    annotation: { description: '', tags: [], size: { width, height }, objects },
    image: { hash: 'h', raw: () => Promise.reject(new Error('no pixels in this test')) },
  };
}

const context: LayerContext = { random: () => 0 };

async function apply<S, P>(layer: ProcessingLayer<S, P>, settings: S, input: DtlItem, set: ClassSet = SET) {
  const { output, prepared } = layer.plan(settings, set);
  return { output, objects: (await layer.run(input, prepared, context))[0]!.annotation.objects };
}

const titles = (set: ClassSet) => set.classes.map((c) => `${c.title}:${c.shape}`);

describe('line2bitmap', () => {
  test('a line of width 3 is three pixels across, one pixel past each end; the class becomes a bitmap class', async () => {
    const { output, objects } = await apply(line2bitmap, { classes_mapping: { road: 'road_band' }, width: 3 }, item([vector('road', [[1, 2], [6, 2]]), vector('car', [[0, 0], [1, 0], [1, 1]])]));
    assert.deepEqual(titles(output), ['car:polygon', 'box:rectangle', 'mask:bitmap', 'road_band:bitmap', 'pin:point']);
    assert.deepEqual(
      objects.map((o) => o.classTitle),
      ['road_band', 'car'],
    );
    assert.deepEqual(await picture(objects[0]!, 10, 5), ['..........', '########..', '########..', '########..', '..........']);
    // The object keeps its description and tags.
    assert.equal(objects[0]!.description, 'd');
    assert.deepEqual(objects[0]!.tags, [{ name: 't', value: 1 }]);
  });

  test('width 1 sets the pixels a line passes through; a point is a disc of radius ⌊(width+1)/2⌋', async () => {
    const { objects } = await apply(line2bitmap, { classes_mapping: { road: '__default__', pin: '__default__' }, width: 1 }, item([vector('road', [[0, 0], [3, 3]]), vector('pin', [[7.5, 2.2]])]));
    assert.deepEqual(await picture(objects[0]!, 10, 5), ['#.........', '.#........', '..#.......', '...#......', '..........']);
    assert.deepEqual(await picture(objects[1]!, 10, 5), ['..........', '.......#..', '......###.', '.......#..', '..........']);
  });

  test('a polygon and a rectangle become their outlines, holes included; a bitmap its boundary', async () => {
    const ring: Point[] = [[0, 0], [6, 0], [6, 6], [0, 6]];
    const hole: Point[] = [[2, 2], [4, 2], [4, 4], [2, 4]];
    const { objects } = await apply(
      line2bitmap,
      { classes_mapping: { __other__: '__default__' }, width: 1 },
      item([vector('car', ring, [hole]), vector('box', [[1, 1], [5, 4]]), mask('mask', [1, 1], ['####', '####', '####'])]),
    );
    assert.deepEqual(await picture(objects[0]!, 8, 8), ['#######.', '#.....#.', '#.###.#.', '#.#.#.#.', '#.###.#.', '#.....#.', '#######.', '........']);
    // The rectangle [1, 5) × [1, 4) covers pixels 1–4 by 1–3: those are its edge pixels.
    assert.deepEqual(await picture(objects[1]!, 6, 5), ['......', '.####.', '.#..#.', '.####.', '......']);
    assert.deepEqual(await picture(objects[2]!, 6, 5), ['......', '.####.', '.#..#.', '.####.', '......']);
  });

  test('an outline wholly outside the image is dropped', async () => {
    const { objects } = await apply(line2bitmap, { classes_mapping: { road: 'band' }, width: 2 }, item([vector('road', [[20, 20], [30, 20]])]));
    assert.deepEqual(objects, []);
  });
});

describe('skeletonize', () => {
  const bar = mask('mask', [2, 1], ['###########', '###########', '###########', '###########', '###########']);
  const expected = {
    skeletonization: ['...............', '...............', '...............', '....######.....', '...............', '...............'],
    thinning: ['...............', '...............', '...............', '....#######....', '...............', '...............'],
    // The medial axis runs into the corners as well.
    medial_axis: ['...............', '..#.........#..', '...#.......#...', '....#######....', '...#.......#...', '..#.........#..'],
  } as const;
  for (const method of ['skeletonization', 'thinning', 'medial_axis'] as const) {
    test(`${method}: a bar 5 pixels wide becomes its centre line; the class stays a bitmap class`, async () => {
      const { output, objects } = await apply(skeletonize, { classes: ['mask'], method }, item([bar, vector('car', [[0, 0], [1, 0], [1, 1]])], 15, 6));
      assert.deepEqual(output, SET);
      assert.deepEqual(objects.map((o) => o.classTitle), ['mask', 'car']);
      assert.deepEqual(await picture(objects[0]!, 15, 6), expected[method]);
    });
  }

  test('a line already one pixel wide stays as it is; classes not named are left alone', async () => {
    const line = mask('mask', [0, 0], ['#....', '.#...', '..###']);
    const other = mask('other', [0, 0], ['###', '###', '###']);
    const { objects } = await apply(skeletonize, { classes: ['mask'], method: 'thinning' }, item([line, other]), classes(['mask', 'bitmap'], ['other', 'bitmap']));
    assert.deepEqual(await picture(objects[0]!, 5, 3), ['#....', '.#...', '..###']);
    assert.equal(objects[1], other);
    // A named class of another shape passes unchanged.
    const car = vector('car', [[0, 0], [4, 0], [4, 4]]);
    assert.deepEqual((await apply(skeletonize, { classes: ['car'], method: 'skeletonization' }, item([car]))).objects, [car]);
  });
});

describe('bitmap2lines', () => {
  // A skeleton: a diagonal arm of 4 steps and a straight arm of 6 from a junction, and a branch of 3 going down.
  const skeleton = mask('mask', [1, 1], ['#..........', '.#.........', '..#........', '...#.......', '....#######', '....#......', '....#......', '....#......']);

  test('a skeleton becomes its longest path, then the longest path of what is left; the class becomes a line class', async () => {
    const { output, objects } = await apply(bitmap2lines, { classes_mapping: { mask: 'edge' }, min_points_cnt: 2 }, item([skeleton], 12, 9));
    assert.ok(titles(output).includes('edge:line'));
    assert.ok(!titles(output).includes('mask:bitmap'));
    assert.deepEqual(
      objects.map((o) => [o.classTitle, o.points.exterior]),
      [
        ['edge', [[1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [6, 5], [7, 5], [8, 5], [9, 5], [10, 5], [11, 5]]],
        ['edge', [[5, 5], [5, 6], [5, 7], [5, 8]]],
      ],
    );
  });

  test('lines of fewer than min_points_cnt points are dropped; approx_epsilon simplifies the rest', async () => {
    const { objects } = await apply(bitmap2lines, { classes_mapping: { mask: '__default__' }, min_points_cnt: 5, approx_epsilon: 0.5 }, item([skeleton], 12, 9));
    assert.deepEqual(objects.map((o) => o.points.exterior), [[[1, 1], [5, 5], [11, 5]]]);
  });

  test('at a bend the tree steps across sides, not the corner: the line passes the corner pixel', async () => {
    const { objects } = await apply(bitmap2lines, { classes_mapping: { mask: 'edge' }, min_points_cnt: 2 }, item([mask('mask', [0, 0], ['##', '.#', '.#', '.#'])]));
    assert.deepEqual(objects.map((o) => o.points.exterior), [[[0, 0], [1, 0], [1, 1], [1, 2], [1, 3]]]);
  });

  test('a piece of fewer than three steps gives no line, as in 2018', async () => {
    const { objects } = await apply(bitmap2lines, { classes_mapping: { mask: 'edge' }, min_points_cnt: 2 }, item([mask('mask', [0, 0], ['###'])]));
    assert.deepEqual(objects, []);
  });

  test('the layers are in the registry', () => {
    for (const action of ['line2bitmap', 'skeletonize', 'bitmap2lines', 'color_class', 'drop_lines_by_length', 'merge_bitmap_masks', 'bitwise_masks', 'generate_hints']) assert.ok(processingLayer(action), action);
  });
});

describe('if: sum_object_area', () => {
  const objects = [
    vector('car', [[0, 0], [4, 0], [4, 4], [0, 4]], [[[1, 1], [2, 1], [2, 2], [1, 2]]]), // 16 less a hole of 1
    vector('box', [[0, 0], [2, 3]]), // 6
    mask('mask', [0, 0], ['##.', '.##']), // 4 pixels
    vector('road', [[0, 0], [9, 9]]), // a line: no area
  ];
  const route = (condition: object) => {
    const { prepared } = ifLayer.plan({ condition } as never, SET);
    return ifLayer.route(item(objects), prepared, context);
  };

  test('the summed area of the objects of the classes against the threshold: at or above it goes first', async () => {
    assert.equal(await route({ sum_object_area: 25, classes: ['car', 'box', 'mask', 'road'] }), 0);
    assert.equal(await route({ sum_object_area: 25.5, classes: ['car', 'box', 'mask', 'road'] }), 1);
    assert.equal(await route({ sum_object_area: 4, classes: ['mask'] }), 0);
    assert.equal(await route({ sum_object_area: 5, classes: ['mask'] }), 1);
    assert.equal(await route({ sum_object_area: 0.5, classes: ['road'] }), 1);
    assert.equal(await route({ sum_object_area: 0, classes: ['pin'] }), 0);
  });

  test('a class that is not at the input is refused', () => {
    assert.throws(() => ifLayer.plan({ condition: { sum_object_area: 1, classes: ['bus'] } }, SET), (e: unknown) => e instanceof ClassError && e.at === '/condition/classes/0');
  });
});

describe('the layers the DTL documentation added later', () => {
  test('color_class: the named classes take the colours given; objects pass unchanged; a class not there is refused', async () => {
    const input = item([vector('car', [[0, 0], [1, 0], [1, 1]])]);
    const { output, objects } = await apply(colorClass, { classes_color_mapping: { car: '#9090cc' } }, input);
    assert.deepEqual(output.classes.map((c) => c.color), ['#9090CC', '#112233', '#112233', '#112233', '#112233']);
    assert.deepEqual(objects, input.annotation.objects);
    assert.throws(() => colorClass.plan({ classes_color_mapping: { bus: '#000000' } }, SET), ClassError);
  });

  test('drop_lines_by_length: lines of the class outside the bounds go; invert keeps those instead; compensation scales by width/1000', async () => {
    // Lengths 3, 10 (3 + 4 + 3) and 20; a polygon of the same length stays whatever the bounds.
    const lines = [vector('road', [[0, 0], [3, 0]]), vector('road', [[0, 0], [3, 0], [3, 4], [6, 4]]), vector('road', [[0, 0], [0, 20]]), vector('car', [[0, 0], [3, 0], [3, 3]])];
    const kept = async (settings: Parameters<typeof dropLinesByLength.plan>[0], width = 10) => (await apply(dropLinesByLength, settings, item(lines, width))).objects.map((o) => lines.indexOf(o));
    assert.deepEqual(await kept({ lines_class: 'road', min_length: 3, max_length: 10 }), [0, 1, 3]);
    assert.deepEqual(await kept({ lines_class: 'road', min_length: 4 }), [1, 2, 3]);
    assert.deepEqual(await kept({ lines_class: 'road', min_length: 4, invert: true }), [0, 3]);
    // 2000 pixels wide: the bound of 4 is 8.
    assert.deepEqual(await kept({ lines_class: 'road', min_length: 4, resolution_compensation: true }, 2000), [1, 2, 3]);
    assert.deepEqual(await kept({ lines_class: 'road', min_length: 6, resolution_compensation: true }, 2000), [2, 3]);
    assert.throws(() => dropLinesByLength.plan({ lines_class: 'road' }, SET), /min_length, max_length or both/);
  });

  test('merge_bitmap_masks: the bitmaps of the class become their union, after the other objects', async () => {
    const { objects } = await apply(mergeBitmapMasks, { class: 'mask' }, item([mask('mask', [0, 0], ['##', '#.']), vector('car', [[0, 0], [1, 0], [1, 1]]), mask('mask', [3, 1], ['#', '#'])]));
    assert.deepEqual(objects.map((o) => o.classTitle), ['car', 'mask']);
    assert.deepEqual(await picture(objects[1]!, 5, 3), ['##...', '#..#.', '...#.']);
  });

  test('bitwise_masks: each bitmap to correct becomes its and, or, or nor (exclusive or) with the first class_mask bitmap', async () => {
    const road = mask('mask', [0, 0], ['####', '####']);
    const crack = mask('crack', [2, 1], ['##', '##']);
    const set = classes(['mask', 'bitmap'], ['crack', 'bitmap']);
    const run = async (type: 'and' | 'or' | 'nor') => (await apply(bitwiseMasks, { type, class_mask: 'mask', classes_to_correct: ['crack'] }, item([road, crack]), set)).objects;
    const and = await run('and');
    assert.equal(and[0], road);
    assert.deepEqual(await picture(and[1]!, 5, 3), ['.....', '..##.', '.....']);
    assert.deepEqual(await picture((await run('or'))[1]!, 5, 3), ['####.', '####.', '..##.']);
    assert.deepEqual(await picture((await run('nor'))[1]!, 5, 3), ['####.', '##...', '..##.']);
    // Without a class_mask bitmap the image is left as it is.
    const alone = item([crack]);
    assert.deepEqual((await apply(bitwiseMasks, { type: 'and', class_mask: 'mask', classes_to_correct: ['crack'] }, alone, set)).objects, [crack]);
  });
});

describe('generate_hints', () => {
  // A car on the pixels 0–1 × 0–1 of a 10 × 8 image: 4 pixels on it, 76 off it.
  const car = vector('car', [[0, 0], [2, 0], [2, 2], [0, 2]]);
  const settings = { class: 'car', positive_class: 'pos', negative_class: 'neg', min_points_number: 3 };

  test('positive points on the class’s pixels and negative ones off them, in two new point classes, after the objects', async () => {
    // Every draw 0: the exponential part is 0, so 3 of each, and the first pixels of each kind.
    const { output, objects } = await apply(generateHints, settings, item([car]));
    assert.deepEqual(titles(output).slice(-2), ['pos:point', 'neg:point']);
    assert.deepEqual(
      objects.map((o) => [o.classTitle, ...o.points.exterior]),
      [['car', [0, 0], [2, 0], [2, 2], [0, 2]], ['pos', [0, 0]], ['pos', [1, 0]], ['pos', [0, 1]], ['neg', [2, 0]], ['neg', [3, 0]], ['neg', [4, 0]]],
    );
  });

  test('the number is min_points_number plus an exponential draw of mean 2, no more than the pixels of the kind; the points are distinct', async () => {
    // u = 1 − e^−2 draws −2·ln(1 − u) = 4 more: 10 + 4 positives wanted, only 4 pixels; 14 negatives.
    const u = 1 - Math.exp(-2);
    let k = 0;
    const random = () => (k++ < 2 ? u : ((k * 7919) % 1000) / 1000);
    const { prepared } = generateHints.plan({ ...settings, min_points_number: 10 }, SET);
    const [out] = await generateHints.run(item([car]), prepared, { random });
    const points = out!.annotation.objects.slice(1);
    const pos = points.filter((o) => o.classTitle === 'pos').map((o) => o.points.exterior[0]!.join(','));
    const neg = points.filter((o) => o.classTitle === 'neg').map((o) => o.points.exterior[0]!.join(','));
    assert.deepEqual(pos.sort(), ['0,0', '0,1', '1,0', '1,1']);
    assert.equal(neg.length, 14);
    assert.equal(new Set(neg).size, 14);
    assert.ok(neg.every((p) => !pos.includes(p)));
  });

  test('a class that is not there is refused; a point class cannot take a title of another shape', () => {
    assert.throws(() => generateHints.plan({ ...settings, class: 'bus' }, SET), ClassError);
    assert.throws(() => generateHints.plan({ ...settings, negative_class: 'car' }, SET), /both a polygon and a point/);
  });
});

describe('docs/dtl.md: the 2018 layers', () => {
  test('every layer the table says is here is an action of ours', () => {
    const doc = fs.readFileSync(new URL('../../docs/dtl.md', import.meta.url), 'utf8');
    const table = doc.slice(doc.indexOf('### The 2018 layers'));
    const rows = [...table.matchAll(/^\| (`[^|]+) \| ([^|]+) \|$/gm)].map(([, names, here]) => ({ names: [...names!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!), here: here!.trim() }));
    const here = rows.filter((r) => r.here.startsWith('yes')).flatMap((r) => r.names);
    // The 39 layers of the 2018 documentation (data-manipulation/dtl), and generate_hints.
    assert.equal(here.length, 40);
    for (const action of here) assert.ok(isAction(action) && (action === 'data' || action === 'if' || ['save', 'save_masks', 'supervisely'].includes(action) || processingLayer(action)), action);
    assert.deepEqual(rows.filter((r) => !r.here.startsWith('yes')), []);
  });
});
