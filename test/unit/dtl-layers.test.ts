// Each annotation layer of DTL on a small item whose result is worked out by hand: classes out of
// the layer's plan, objects out of its function.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import type { ClassSet } from '../../src/dtl/classes.ts';
import { ClassError } from '../../src/dtl/classes.ts';
import { type DtlItem, type LayerContext, rawImage } from '../../src/dtl/item.ts';
import { approxVector, douglasPeucker } from '../../src/dtl/layers/approx-vector.ts';
import { background } from '../../src/dtl/layers/background.ts';
import { bbox } from '../../src/dtl/layers/bbox.ts';
import { bbox2poly } from '../../src/dtl/layers/bbox2poly.ts';
import { dataset } from '../../src/dtl/layers/dataset.ts';
import { dropNoise } from '../../src/dtl/layers/drop-noise.ts';
import { dropObjByClass } from '../../src/dtl/layers/drop-obj-by-class.ts';
import { dummy } from '../../src/dtl/layers/dummy.ts';
import { duplicateObjects } from '../../src/dtl/layers/duplicate-objects.ts';
import { findContours } from '../../src/dtl/layers/find-contours.ts';
import { ifLayer } from '../../src/dtl/layers/if.ts';
import { processingLayer } from '../../src/dtl/layers/index.ts';
import type { ProcessingLayer } from '../../src/dtl/layers/layer.ts';
import { multiply } from '../../src/dtl/layers/multiply.ts';
import { objectsFilter } from '../../src/dtl/layers/objects-filter.ts';
import { poly2bitmap } from '../../src/dtl/layers/poly2bitmap.ts';
import { rasterize } from '../../src/dtl/layers/rasterize.ts';
import { rename } from '../../src/dtl/layers/rename.ts';
import { splitMasks } from '../../src/dtl/layers/split-masks.ts';
import { tag } from '../../src/dtl/layers/tag.ts';
import type { CanonicalBitmap, CanonicalObject, ClassShape, Point } from '../../src/formats/canonical.ts';
import { encodePngSync } from '../../src/formats/png.ts';
import { decodeBitmap } from '../../src/formats/supervisely/bitmap.ts';

const classes = (...list: [string, ClassShape][]): ClassSet => ({ classes: list.map(([title, shape]) => ({ title, shape, color: '#112233' })), tags: [] });
const SET = classes(['car', 'polygon'], ['box', 'rectangle'], ['mask', 'bitmap'], ['road', 'line']);

const poly = (classTitle: string, exterior: Point[]): CanonicalObject => ({ classTitle, description: '', tags: [], bitmap: null, points: { exterior, interior: [] } });
const rect = (classTitle: string, l: number, t: number, r: number, b: number) => poly(classTitle, [[l, t], [r, b]]);

/** A bitmap from rows of '#' and '.', placed at origin. */
function mask(classTitle: string, origin: [number, number], rows: string[]): CanonicalObject {
  const width = rows[0]!.length;
  const height = rows.length;
  const pixels = new Uint8Array(width * height);
  rows.forEach((row, y) => [...row].forEach((c, x) => (pixels[y * width + x] = c === '#' ? 1 : 0)));
  const bitmap: CanonicalBitmap = { origin, data: deflateSync(encodePngSync({ width, height, pixels, kind: 'bits' })).toString('base64'), width, height };
  return { classTitle, description: '', tags: [], bitmap, points: { exterior: [], interior: [] } };
}

/** A bitmap's set pixels in image coordinates, as "x,y". */
async function pixelsOf(o: CanonicalObject): Promise<string[]> {
  const m = await decodeBitmap(o.bitmap!.data);
  const out: string[] = [];
  for (let y = 0; y < m.height; y++) for (let x = 0; x < m.width; x++) if (m.pixels[y * m.width + x]) out.push(`${x + o.bitmap!.origin[0]},${y + o.bitmap!.origin[1]}`);
  return out;
}

function item(objects: CanonicalObject[], extra: Partial<DtlItem> = {}): DtlItem {
  return {
    name: 'a.png',
    dataset: 'p__ds',
    source: { project: 'p', dataset: 'ds' },
    annotation: { description: '', tags: [], size: { width: 10, height: 8 }, objects },
    image: { hash: 'h', raw: () => Promise.reject(new Error('no pixels in this test')) },
    ...extra,
  };
}

const context = (values: number[] = []): LayerContext => ({ random: () => values.shift() ?? 0 });

async function apply<S, P>(layer: ProcessingLayer<S, P>, settings: S, input: DtlItem, set: ClassSet = SET) {
  const { output, prepared } = layer.plan(settings, set);
  return { output, items: await layer.run(input, prepared, context()) };
}

const titles = (set: ClassSet) => set.classes.map((c) => `${c.title}:${c.shape}`);

describe('DTL annotation layers', () => {
  test('rename: mapped classes take new titles, __ignore__ drops, others stay; unknown classes are refused', async () => {
    const { output, items } = await apply(rename, { classes_mapping: { car: 'vehicle', box: '__ignore__' } }, item([poly('car', [[0, 0], [1, 0], [1, 1]]), rect('box', 0, 0, 1, 1), rect('box', 1, 1, 2, 2)]));
    assert.deepEqual(titles(output), ['vehicle:polygon', 'mask:bitmap', 'road:line']);
    assert.deepEqual(items[0]!.annotation.objects.map((o) => o.classTitle), ['vehicle']);
    assert.throws(() => rename.plan({ classes_mapping: { bus: 'x' } }, SET), ClassError);
    // Two classes onto one title of the same shape merge; of different shapes are refused.
    assert.deepEqual(titles(rename.plan({ classes_mapping: { __other__: 'thing' } }, classes(['a', 'polygon'], ['b', 'polygon'])).output), ['thing:polygon']);
    assert.throws(() => rename.plan({ classes_mapping: { car: 'box' } }, SET), /both a polygon and a rectangle/);
  });

  test('drop_obj_by_class: the objects and their class go', async () => {
    const { output, items } = await apply(dropObjByClass, { classes: ['box'] }, item([rect('box', 0, 0, 1, 1), poly('car', [[0, 0], [2, 0], [2, 2]])]));
    assert.deepEqual(titles(output), ['car:polygon', 'mask:bitmap', 'road:line']);
    assert.deepEqual(items[0]!.annotation.objects.map((o) => o.classTitle), ['car']);
  });

  test('duplicate_objects: copies after the objects, in a clone of the class', async () => {
    const { output, items } = await apply(duplicateObjects, { classes_mapping: { car: 'car2' } }, item([poly('car', [[0, 0], [2, 0], [2, 2]]), rect('box', 0, 0, 1, 1)]));
    assert.deepEqual(titles(output), ['car:polygon', 'box:rectangle', 'mask:bitmap', 'road:line', 'car2:polygon']);
    assert.deepEqual(items[0]!.annotation.objects.map((o) => o.classTitle), ['car', 'box', 'car2']);
    assert.deepEqual(items[0]!.annotation.objects[2]!.points, items[0]!.annotation.objects[0]!.points);
  });

  test('bbox: polygons, lines and bitmaps become their boxes in rectangle classes, which include their last column and row', async () => {
    const input = item([poly('car', [[1, 2], [5, 3], [3, 7]]), mask('mask', [2, 1], ['.#', '##', '#.']), poly('road', [[0, 0], [4, 1]])]);
    const { output, items } = await apply(bbox, { classes_mapping: { car: 'car_box', mask: '__default__' } }, input);
    assert.deepEqual(titles(output), ['car_box:rectangle', 'box:rectangle', 'mask:rectangle', 'road:line']);
    assert.deepEqual(
      items[0]!.annotation.objects.map((o) => [o.classTitle, o.points.exterior]),
      [
        ['car_box', [[1, 2], [5, 7]]],
        // The mask's pixels span columns 2..3 and rows 1..3.
        ['mask', [[2, 1], [3, 3]]],
        ['road', [[0, 0], [4, 1]]],
      ],
    );
  });

  test('bbox2poly: a rectangle becomes its four corners clockwise', async () => {
    const { output, items } = await apply(bbox2poly, { classes_mapping: { box: 'box_poly' } }, item([rect('box', 1, 2, 4, 6)]));
    assert.ok(titles(output).includes('box_poly:polygon'));
    assert.deepEqual(items[0]!.annotation.objects[0]!.points.exterior, [[1, 2], [4, 2], [4, 6], [1, 6]]);
  });

  test('approx_vector: points nearer than epsilon to the outline go', async () => {
    assert.deepEqual(douglasPeucker([[0, 0], [1, 0.1], [2, 0], [3, 5], [4, 0]], 0.5), [[0, 0], [2, 0], [3, 5], [4, 0]]);
    const square = poly('car', [[0, 0], [2, 0.1], [4, 0], [4, 4], [0, 4]]);
    const { items } = await apply(approxVector, { classes: ['car'], epsilon: 0.5 }, item([square]));
    assert.deepEqual(items[0]!.annotation.objects[0]!.points.exterior, [[0, 0], [4, 0], [4, 4], [0, 4]]);
  });

  test('poly2bitmap: a polygon becomes the pixels whose centres lie inside', async () => {
    const { output, items } = await apply(poly2bitmap, { classes_mapping: { box: 'box_mask' } }, item([rect('box', 1, 2, 3, 4)]));
    assert.ok(titles(output).includes('box_mask:bitmap'));
    assert.deepEqual(await pixelsOf(items[0]!.annotation.objects[0]!), ['1,2', '2,2', '1,3', '2,3']);
  });

  test('rasterize: a later object takes the pixels it shares with an earlier one', async () => {
    const { items } = await apply(rasterize, { classes_mapping: { __other__: '__default__' } }, item([rect('box', 0, 0, 2, 1), rect('box', 1, 0, 3, 1)]), classes(['box', 'rectangle']));
    const [first, second] = items[0]!.annotation.objects;
    assert.deepEqual(await pixelsOf(first!), ['0,0']);
    assert.deepEqual(await pixelsOf(second!), ['1,0', '2,0']);
  });

  test('find_contours: one polygon a piece of the mask, along the pixel edges', async () => {
    const { output, items } = await apply(findContours, { classes_mapping: { mask: 'outline' } }, item([mask('mask', [3, 2], ['#..', '...', '.##'])]));
    assert.ok(titles(output).includes('outline:polygon'));
    const polygons = items[0]!.annotation.objects.map((o) => o.points.exterior);
    assert.equal(polygons.length, 2);
    assert.deepEqual(new Set(polygons[0]!.map((p) => p.join(','))), new Set(['3,2', '4,2', '4,3', '3,3']));
    assert.deepEqual(new Set(polygons[1]!.map((p) => p.join(','))), new Set(['4,4', '6,4', '6,5', '4,5']));
  });

  test('split_masks: one bitmap a piece', async () => {
    const { items } = await apply(splitMasks, { classes: ['mask'] }, item([mask('mask', [1, 1], ['#.#', '#.#'])]));
    const pieces = await Promise.all(items[0]!.annotation.objects.map(pixelsOf));
    assert.deepEqual(pieces, [['1,1', '1,2'], ['3,1', '3,2']]);
  });

  test('drop_noise: pieces smaller than min_area are cleared, in pixels or percent of the image', async () => {
    const noisy = mask('mask', [0, 0], ['##.#', '##..']);
    const px = await apply(dropNoise, { classes: ['mask'], min_area: '2px', src_type: 'image' }, item([noisy]));
    assert.deepEqual(await pixelsOf(px.items[0]!.annotation.objects[0]!), ['0,0', '1,0', '0,1', '1,1']);
    // 10 × 8 image: 5% is 4 pixels, so the 4-pixel piece stays and the lone pixel goes.
    const pct = await apply(dropNoise, { classes: ['mask'], min_area: '5%', src_type: 'image' }, item([noisy]));
    assert.deepEqual(await pixelsOf(pct.items[0]!.annotation.objects[0]!), ['0,0', '1,0', '0,1', '1,1']);
    const all = await apply(dropNoise, { classes: ['mask'], min_area: '50px', src_type: 'image' }, item([noisy]));
    assert.deepEqual(all.items[0]!.annotation.objects, []);
  });

  test('objects_filter: objects smaller than the area are deleted, or only they are kept', async () => {
    const small = poly('car', [[0, 0], [2, 0], [2, 2], [0, 2]]);
    const large = poly('car', [[0, 0], [5, 0], [5, 5], [0, 5]]);
    const sizes = { filtering_classes: ['car'], comparator: 'less' as const, area_size: 10 };
    const deleted = await apply(objectsFilter, { filter_by: { polygon_sizes: { ...sizes, action: 'delete' as const } } }, item([small, large, rect('box', 0, 0, 1, 1)]));
    assert.deepEqual(deleted.items[0]!.annotation.objects, [large, rect('box', 0, 0, 1, 1)]);
    const kept = await apply(objectsFilter, { filter_by: { polygon_sizes: { ...sizes, action: 'keep' as const } } }, item([small, large]));
    assert.deepEqual(kept.items[0]!.annotation.objects, [small]);
  });

  test('objects_filter: 2018 area_size, {percent} of the image area or {width, height} of the box', async () => {
    // A 10 × 8 image (80 pixels): 4 pixels are 5%, 25 are 31.25%.
    const small = poly('car', [[0, 0], [2, 0], [2, 2], [0, 2]]);
    const large = poly('car', [[0, 0], [5, 0], [5, 5], [0, 5]]);
    const wide = poly('car', [[0, 0], [6, 0], [6, 1], [0, 1]]);
    const run = async (area_size: object, comparator: 'less' | 'greater', objects: CanonicalObject[]) =>
      (await apply(objectsFilter, { filter_by: { polygon_sizes: { filtering_classes: ['car'], comparator, area_size, action: 'delete' as const } } } as never, item(objects))).items[0]!.annotation.objects;
    assert.deepEqual(await run({ percent: 10 }, 'less', [small, large]), [large]);
    assert.deepEqual(await run({ percent: 10 }, 'greater', [small, large]), [small]);
    assert.deepEqual(await run({ percent: 5 }, 'less', [small]), [small]);
    // Either side below its bound is enough: the 6 × 1 box is one row short of 2.
    assert.deepEqual(await run({ width: 2, height: 2 }, 'less', [small, large, wide]), [small, large]);
    assert.deepEqual(await run({ width: 5, height: 5 }, 'greater', [small, large, wide]), [small, large]);
  });

  test('objects_filter: a filtering class not at its input filters nothing, as in 2018', async () => {
    const small = poly('car', [[0, 0], [2, 0], [2, 2], [0, 2]]);
    const { items } = await apply(objectsFilter, { filter_by: { polygon_sizes: { filtering_classes: ['obj_Car'], comparator: 'less', area_size: 10, action: 'delete' as const } } }, item([small]));
    assert.deepEqual(items[0]!.annotation.objects, [small]);
  });

  test('background: a rectangle of the whole image, first, ending at its last column and row', async () => {
    const { output, items } = await apply(background, { class: 'bg' }, item([rect('box', 0, 0, 1, 1)]));
    assert.ok(titles(output).includes('bg:rectangle'));
    // A 10 × 8 image.
    assert.deepEqual(items[0]!.annotation.objects[0]!.points.exterior, [[0, 0], [9, 7]]);
    assert.equal(items[0]!.annotation.objects.length, 2);
  });

  test('tag: added with its value (replacing one there), or deleted; the tag list follows', async () => {
    const tagged = item([], { annotation: { description: '', tags: [{ name: 'split', value: 'old' }], size: { width: 1, height: 1 }, objects: [] } });
    const added = await apply(tag, { tag: { name: 'split', value: 'train' }, action: 'add' }, tagged);
    assert.deepEqual(added.items[0]!.annotation.tags, [{ name: 'split', value: 'train' }]);
    assert.deepEqual(added.output.tags, [{ title: 'split', scope: 'images', valueType: 'any_string' }]);
    const deleted = await apply(tag, { tag: 'split', action: 'delete' }, tagged);
    assert.deepEqual(deleted.items[0]!.annotation.tags, []);
  });

  test('dataset: a name, or the dataset the image came from', async () => {
    assert.equal((await apply(dataset, { name: 'train' }, item([]))).items[0]!.dataset, 'train');
    assert.equal((await apply(dataset, { rule: 'save_original' as const }, item([]))).items[0]!.dataset, 'ds');
  });

  test('multiply: the item and copies with names of their own', async () => {
    const { items } = await apply(multiply, { multiply: 3 }, item([rect('box', 0, 0, 1, 1)]));
    assert.deepEqual(items.map((i) => i.name), ['a.png', 'a__1.png', 'a__2.png']);
    assert.deepEqual(items[2]!.annotation, items[0]!.annotation);
  });

  test('dummy: the item as it is', async () => {
    const input = item([]);
    assert.deepEqual((await apply(dummy, {}, input)).items, [input]);
  });

  test('if: every kind of condition sends the item to the first or second destination', () => {
    const input = item([rect('box', 0, 0, 1, 1), poly('car', [[0, 0], [1, 0], [1, 1]])], {
      name: 'frame_007.png',
      annotation: { description: '', tags: [{ name: 'night', value: null }], size: { width: 10, height: 8 }, objects: [rect('box', 0, 0, 1, 1)] },
    });
    const route = (condition: object, random: number[] = []) => ifLayer.route(input, ifLayer.plan({ condition } as never, SET).prepared, context(random));
    assert.equal(route({ probability: 0.3 }, [0.2]), 0);
    assert.equal(route({ probability: 0.3 }, [0.3]), 1);
    // The name without its extension, as 2018 names were.
    assert.equal(route({ regex_names: ['^frame_\\d+$'] }), 0);
    assert.equal(route({ regex_names: ['^frame_\\d+\\.png$'] }), 1);
    assert.equal(route({ regex_names: ['^img'] }), 1);
    assert.equal(route({ project_datasets: ['p/ds'] }), 0);
    assert.equal(route({ project_datasets: ['p/*'] }), 0);
    assert.equal(route({ project_datasets: ['q/ds'] }), 1);
    assert.equal(route({ min_objects_count: 1 }), 0);
    assert.equal(route({ min_objects_count: 2 }), 1);
    assert.equal(route({ include_classes: ['box'] }), 0);
    assert.equal(route({ include_classes: ['car'] }), 1);
    assert.equal(route({ tags: ['night'] }), 0);
    assert.equal(route({ tags: ['day'] }), 1);
    assert.equal(route({ min_height: 8 }), 0);
    assert.equal(route({ min_height: 9 }), 1);
    assert.equal(route({ min_width: 10 }), 0);
    assert.equal(route({ min_width: 11 }), 1);
    assert.equal(route({ min_area: 80 }), 0);
    assert.equal(route({ min_area: 81 }), 1);
    assert.throws(() => ifLayer.plan({ condition: { regex_names: ['('] } }, SET), ClassError);
    assert.throws(() => ifLayer.plan({ condition: { include_classes: ['bus'] } }, SET), ClassError);
  });
});

describe('pixel layers in the graph', () => {
  test('a pixel layer moves each object by its class’s shape: a two-point line stays a line, and no shape is left on it', async () => {
    const layer = processingLayer('flip')!;
    const input: ClassSet = {
      classes: [
        { title: 'wire', shape: 'line', color: '#FF0000' },
        { title: 'box', shape: 'rectangle', color: '#00FF00' },
      ],
      tags: [],
    };
    const { prepared } = layer.plan({ axis: 'vertical' }, input);
    const object = (classTitle: string): CanonicalObject => ({
      classTitle,
      description: '',
      tags: [],
      bitmap: null,
      points: { exterior: [[1, 2], [8, 6]], interior: [] },
    });
    const item: DtlItem = {
      name: 'a.png',
      dataset: 'd',
      source: { project: 'p', dataset: 'd' },
      annotation: { description: '', tags: [], size: { width: 10, height: 8 }, objects: [object('wire'), object('box')] },
      image: rawImage({ data: Buffer.alloc(10 * 8 * 3), width: 10, height: 8, channels: 3 }),
    };
    const [flipped] = await layer.run(item, prepared, { random: Math.random });
    const [wire, box] = flipped!.annotation.objects;
    assert.deepEqual(wire!.points.exterior, [[9, 2], [2, 6]], 'the line’s points in their order, x mirrored');
    assert.deepEqual(box!.points.exterior, [[2, 2], [9, 6]], 'the rectangle’s corners, left-top first');
    assert.equal('shape' in wire!, false);
    assert.deepEqual(Object.keys(wire!).sort(), ['bitmap', 'classTitle', 'description', 'points', 'tags']);
  });
});
