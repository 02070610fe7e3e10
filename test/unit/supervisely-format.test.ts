// The Supervisely reader against the peer fixtures (newer format) and 2018-format inputs built from
// the spec, since no real 2018 project is known to exist.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { serializeObjects, toAnnotationObject } from '../../src/formats/canonical.ts';
import { CLASS_PALETTE, TOO_CLOSE, colorDistance } from '../../src/formats/class-colors.ts';
import {
  MAX_OBJECTS_PER_ANNOTATION,
  MAX_POINTS_PER_OBJECT,
  SuperviselyFormatError,
  detect,
  hasSuperviselyFiles,
  parseAnnotation,
  parseProjectMeta,
  planProject,
  readMaskSize,
  type ProjectMeta,
} from '../../src/formats/supervisely/index.ts';
import { PEER } from '../helpers/peer-fixtures.ts';

const FIXTURES = path.join(PEER, 'superannotate', 'supervisely');

const readJson = (...parts: string[]): unknown => JSON.parse(readFileSync(path.join(FIXTURES, ...parts), 'utf8'));
const metaOf = (project: string): ProjectMeta => parseProjectMeta(readJson(project, 'meta.json'));
const annotationNames = (project: string): string[] => readdirSync(path.join(FIXTURES, project, 'ds', 'ann')).sort();

function relativeFiles(root: string): string[] {
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((p) => statSync(path.join(root, p)).isFile())
    .map((p) => p.split(path.sep).join('/'))
    .sort();
}

/** Asserts that `fn` throws a SuperviselyFormatError at `where` whose message matches `message`. */
function assertFormatError(fn: () => unknown, where: string, message: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof SuperviselyFormatError, `expected a SuperviselyFormatError, got ${String(error)}`);
    assert.equal(error.path, where);
    assert.match(error.reason, message);
    return true;
  });
}

// A minimal real PNG (gray, 8-bit, all zero) so bitmap tests do not depend on fixtures.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}
function pngBytes(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(8, 8);
  ihdr.writeUInt8(0, 9);
  const rows = Buffer.alloc((width + 1) * height);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
const bitmapData = (width: number, height: number): string => deflateSync(pngBytes(width, height)).toString('base64');

// A 2018-format meta, as the spec describes it.
const META_2018 = {
  classes: [
    { title: 'person', shape: 'polygon', color: '#FF0000' },
    { title: 'car', shape: 'rectangle', color: '#00FF00' },
    { title: 'road', shape: 'line', color: '#0000FF' },
    { title: 'head', shape: 'point', color: '#FFFF00' },
    { title: 'sky', shape: 'bitmap' },
  ],
  tags_images: ['daytime', 'rain'],
  tags_objects: ['occluded'],
};
const meta2018 = (): ProjectMeta => parseProjectMeta(META_2018);

const object = (classTitle: string, exterior: unknown, interior: unknown = [], extra: Record<string, unknown> = {}) => ({
  classTitle,
  description: '',
  tags: [],
  bitmap: null,
  points: { exterior, interior },
  ...extra,
});
const annotation = (...objects: unknown[]) => ({ description: '', tags: [], size: { width: 100, height: 80 }, objects });

describe('parseProjectMeta', () => {
  test('reads the vector project and reports the cuboid class as unsupported', () => {
    const meta = metaOf('vector');
    assert.deepEqual(meta.classes, [
      { title: 'cat', shape: 'rectangle', color: '#319BD8' },
      { title: 'cat2', shape: 'line', color: '#9A69DD' },
      { title: 'dog2', shape: 'polygon', color: '#5954ED' },
      { title: 'test_point', shape: 'point', color: '#72E9C7' },
    ]);
    assert.equal(meta.unsupported.length, 1);
    assert.equal(meta.unsupported[0]?.title, 'dog');
    assert.equal(meta.unsupported[0]?.shape, 'cuboid');
    assert.equal(meta.unsupported[0]?.path, 'classes[1].shape');
    assert.match(meta.unsupported[0]?.message ?? '', /"dog".*"cuboid"/);
    // applicable_type "all" gives one tag per scope.
    assert.deepEqual(meta.tags, [
      { title: 'dog', scope: 'images', valueType: 'none' },
      { title: 'dog', scope: 'figures', valueType: 'none' },
      { title: 'cat', scope: 'images', valueType: 'none' },
      { title: 'cat', scope: 'figures', valueType: 'none' },
    ]);
  });

  test('reads the instance, keypoints and mixed_2020 projects', () => {
    const instance = metaOf('instance');
    assert.deepEqual(instance.classes.map((c) => [c.title, c.shape]), [['cat', 'bitmap'], ['dog', 'bitmap']]);
    assert.deepEqual(instance.tags, []);

    const keypoints = metaOf('keypoints');
    assert.deepEqual(keypoints.classes, []);
    assert.deepEqual(keypoints.unsupported.map((c) => [c.title, c.shape]), [['face', 'graph']]);

    const mixed = metaOf('mixed_2020');
    assert.deepEqual(mixed.classes.map((c) => [c.title, c.shape]), [
      ['sf', 'line'],
      ['sfd', 'rectangle'],
      ['#1', 'point'],
      ['#12', 'polygon'],
      ['brush', 'bitmap'],
    ]);
    assert.deepEqual(mixed.unsupported.map((c) => [c.title, c.shape]), [['hgf', 'cuboid'], ['yyyy', 'graph']]);
    // No applicable_type: both scopes.
    assert.deepEqual(mixed.tags, [
      { title: 'sfsfsa', scope: 'images', valueType: 'any_string' },
      { title: 'sfsfsa', scope: 'figures', valueType: 'any_string' },
      { title: 'safsafas', scope: 'images', valueType: 'any_number' },
      { title: 'safsafas', scope: 'figures', valueType: 'any_number' },
    ]);
  });

  test('reads the 2018 meta and gives a class without colour a stable one of the palette, apart from those given', () => {
    const meta = meta2018();
    assert.equal(meta.classes.length, 5);
    const sky = meta.classes.find((c) => c.title === 'sky');
    assert.ok(CLASS_PALETTE.includes(sky?.color ?? ''), sky?.color);
    for (const given of ['#FF0000', '#00FF00', '#0000FF', '#FFFF00']) assert.ok(colorDistance(sky!.color, given) >= TOO_CLOSE, given);
    assert.equal(meta2018().classes[4]?.color, sky?.color);
    assert.deepEqual(meta.tags, [
      { title: 'daytime', scope: 'images', valueType: 'none' },
      { title: 'rain', scope: 'images', valueType: 'none' },
      { title: 'occluded', scope: 'figures', valueType: 'none' },
    ]);
    assert.deepEqual(meta.unsupported, []);
  });

  test('reads a bare class list (classes.json)', () => {
    const meta = parseProjectMeta([
      { title: 'a', shape: 'polygon', color: '#123456' },
      { title: 'b', shape: 'any' },
    ]);
    assert.deepEqual(meta.classes, [{ title: 'a', shape: 'polygon', color: '#123456' }]);
    assert.deepEqual(meta.tags, []);
    assert.equal(meta.unsupported[0]?.shape, 'any');
    assert.equal(meta.unsupported[0]?.path, 'classes[1].shape');
  });

  test('maps applicable_type and keeps oneof_string values', () => {
    const meta = parseProjectMeta({
      classes: [],
      tags: [
        { name: 'weather', value_type: 'oneof_string', color: '#000000', applicable_type: 'imagesOnly', values: ['sun', 'rain'] },
        { name: 'truncated', value_type: 'none', color: '#000000', applicable_type: 'objectsOnly' },
      ],
      projectType: 'images',
    });
    assert.deepEqual(meta.tags, [
      { title: 'weather', scope: 'images', valueType: 'oneof_string', values: ['sun', 'rain'] },
      { title: 'truncated', scope: 'figures', valueType: 'none' },
    ]);
  });

  test('rejects malformed metas, saying where', () => {
    const cases: [unknown, string, RegExp][] = [
      ['meta', '', /object or a class list/],
      [{ tags: [] }, 'classes', /must be an array/],
      [{ classes: [42] }, 'classes[0]', /class must be an object/],
      [{ classes: [{ title: 'a', shape: 'point' }, { shape: 'point' }] }, 'classes[1].title', /non-empty string/],
      [{ classes: [{ title: 'a', shape: 7 }] }, 'classes[0].shape', /needs a shape name/],
      [{ classes: [{ title: 'a', shape: 'point', color: 'red' }] }, 'classes[0].color', /#RRGGBB/],
      [
        { classes: [{ title: 'a', shape: 'point' }, { title: 'a', shape: 'line' }] },
        'classes[1].title',
        /already declared at classes\[0\]/,
      ],
      [{ classes: [], tags: {} }, 'tags', /must be an array/],
      [{ classes: [], tags: [{ name: 't', value_type: 'any_bool' }] }, 'tags[0].value_type', /any_bool/],
      [{ classes: [], tags: [{ name: 't', applicable_type: 'figuresOnly' }] }, 'tags[0].applicable_type', /figuresOnly/],
      [{ classes: [], tags: [{ name: 't', values: [1] }] }, 'tags[0].values', /list of strings/],
      [{ classes: [], tags: [{ value_type: 'none' }] }, 'tags[0].name', /non-empty string/],
      [{ classes: [], tags_images: ['a', 3] }, 'tags_images[1]', /non-empty string/],
      [{ classes: [], tags_objects: 'a' }, 'tags_objects', /array of tag names/],
      [{ classes: [], tags_images: ['a', 'a'] }, 'tags', /"a" is declared twice for images/],
    ];
    for (const [input, where, message] of cases) assertFormatError(() => parseProjectMeta(input), where, message);
  });
});

describe('parseAnnotation on the peer fixtures', () => {
  test('vector: every annotation but the cuboid one parses', () => {
    const meta = metaOf('vector');
    const parsed = new Map<string, ReturnType<typeof parseAnnotation>['annotation']>();
    for (const name of annotationNames('vector')) {
      if (name === 'dog2.jpg.json') continue;
      const { annotation, skipped } = parseAnnotation(readJson('vector', 'ds', 'ann', name), meta);
      assert.deepEqual(skipped, []);
      parsed.set(name, annotation);
    }
    const cat1 = parsed.get('cat1.jpg.json');
    assert.deepEqual(cat1?.size, { width: 2000, height: 2000 });
    assert.deepEqual(cat1?.objects, [
      {
        classTitle: 'cat',
        description: '',
        tags: [{ name: 'cat', value: null }],
        bitmap: null,
        points: { exterior: [[501, 18], [1536, 1868]], interior: [] },
      },
    ]);
    assert.equal(parsed.get('cat2.jpg.json')?.objects[0]?.points.exterior.length, 13);
    assert.deepEqual(parsed.get('cat3.jpg.json')?.objects.map((o) => o.classTitle), ['cat', 'test_point', 'test_point']);
    assert.deepEqual(parsed.get('dog1.jpg.json')?.objects[1]?.tags, [{ name: 'dog', value: null }]);
    assert.deepEqual(parsed.get('dog3.jpg.json')?.tags, [{ name: 'dog', value: null }]);
  });

  test('vector: the cuboid object is an error, or skipped and listed when asked', () => {
    const meta = metaOf('vector');
    const json = readJson('vector', 'ds', 'ann', 'dog2.jpg.json');
    assertFormatError(() => parseAnnotation(json, meta), 'objects[0]', /class "dog" has shape "cuboid", which is not supported/);
    const { annotation, skipped } = parseAnnotation(json, meta, { skipUnsupported: true });
    assert.deepEqual(annotation.objects, []);
    assert.deepEqual(annotation.size, { width: 640, height: 480 });
    assert.deepEqual(skipped.map((s) => [s.path, s.classTitle, s.shape]), [['objects[0]', 'dog', 'cuboid']]);
  });

  test('instance: every bitmap decodes to its mask size', () => {
    const meta = metaOf('instance');
    const expected: Record<string, [number, number, number, number][]> = {
      'cat1.jpg.json': [[479, 0, 1158, 1923]],
      'cat2.jpg.json': [[244, 109, 810, 623], [100, 74, 73, 210]],
      'cat3.jpg.json': [[0, 25, 551, 869]],
      'dog1.jpg.json': [[176, 80, 470, 387]],
      'dog2.jpg.json': [[110, 34, 297, 433]],
      'dog3.jpg.json': [[172, 90, 378, 591], [532, 159, 50, 133]],
    };
    assert.deepEqual(annotationNames('instance'), Object.keys(expected).sort());
    for (const [name, masks] of Object.entries(expected)) {
      const json = readJson('instance', 'ds', 'ann', name) as { objects: { bitmap: { data: string } }[] };
      const { annotation } = parseAnnotation(json, meta);
      assert.deepEqual(
        annotation.objects.map((o) => (o.bitmap ? [...o.bitmap.origin, o.bitmap.width, o.bitmap.height] : null)),
        masks,
        name,
      );
      annotation.objects.forEach((o, i) => {
        assert.deepEqual(o.points, { exterior: [], interior: [] });
        // The data is kept byte for byte so the native format round-trips.
        assert.equal(o.bitmap?.data, json.objects[i]?.bitmap.data);
      });
    }
  });

  test('mixed_2020: tag values, "#" class titles and empty annotations', () => {
    const meta = metaOf('mixed_2020');
    const lake = readJson('mixed_2020', 'ds', 'ann', 'lake_bachalpsee_scenery_4k-3840x2160.jpg.json');
    assertFormatError(() => parseAnnotation(lake, meta), 'objects[9]', /"yyyy" has shape "graph"/);
    const { annotation, skipped } = parseAnnotation(lake, meta, { skipUnsupported: true });
    assert.equal(annotation.description, 'xvzxv');
    assert.deepEqual(annotation.size, { width: 3840, height: 2160 });
    assert.deepEqual(skipped.map((s) => [s.path, s.shape]), [['objects[9]', 'graph']]);
    const titles = annotation.objects.map((o) => o.classTitle);
    assert.equal(titles.filter((t) => t === '#1').length, 11);
    assert.equal(titles.filter((t) => t === '#12').length, 2);
    assert.equal(titles.filter((t) => t === 'sfd').length, 4);
    const tagged = annotation.objects.find((o) => o.tags.length > 0);
    assert.equal(tagged?.classTitle, 'sfd');
    assert.deepEqual(tagged?.tags, [
      { name: 'sfsfsa', value: 'safsafsafsafas' },
      { name: 'safsafas', value: 1 },
    ]);
    for (const name of annotationNames('mixed_2020')) {
      if (name.startsWith('lake')) continue;
      const { annotation: empty } = parseAnnotation(readJson('mixed_2020', 'ds', 'ann', name), meta);
      assert.deepEqual(empty.objects, []);
      assert.deepEqual(empty.tags, []);
    }
  });

  test('keypoints: graph objects are errors, or all skipped', () => {
    const meta = metaOf('keypoints');
    for (const name of annotationNames('keypoints')) {
      const json = readJson('keypoints', 'ds', 'ann', name);
      assertFormatError(() => parseAnnotation(json, meta), 'objects[0]', /"face" has shape "graph"/);
      const { annotation, skipped } = parseAnnotation(json, meta, { skipUnsupported: true });
      assert.deepEqual(annotation.objects, []);
      assert.ok(skipped.length > 0);
    }
  });
});

describe('parseAnnotation on 2018-format input', () => {
  test('reads every shape, string tags and a bitmap', () => {
    const data = bitmapData(7, 5);
    const { annotation, skipped } = parseAnnotation(
      {
        description: 'street',
        tags: ['daytime'],
        size: { width: 640, height: 480 },
        objects: [
          object('person', [[1, 1], [10.5, 1], [10, 20]], [[[2, 2], [3, 2], [3, 3]]], { tags: ['occluded'], description: 'left' }),
          object('car', [[50, 60], [5, 6]]),
          object('road', [[0, 0], [639, 479]]),
          object('head', [[3.25, 4.75]]),
          { classTitle: 'sky', description: '', tags: [], bitmap: { origin: [4, 9], data }, points: { exterior: [], interior: [] } },
        ],
      },
      meta2018(),
    );
    assert.deepEqual(skipped, []);
    assert.equal(annotation.description, 'street');
    assert.deepEqual(annotation.tags, [{ name: 'daytime', value: null }]);
    assert.deepEqual(annotation.objects, [
      {
        classTitle: 'person',
        description: 'left',
        tags: [{ name: 'occluded', value: null }],
        bitmap: null,
        points: { exterior: [[1, 1], [10.5, 1], [10, 20]], interior: [[[2, 2], [3, 2], [3, 3]]] },
      },
      // A rectangle given right-to-left comes back as [[left, top], [right, bottom]].
      { classTitle: 'car', description: '', tags: [], bitmap: null, points: { exterior: [[5, 6], [50, 60]], interior: [] } },
      { classTitle: 'road', description: '', tags: [], bitmap: null, points: { exterior: [[0, 0], [639, 479]], interior: [] } },
      { classTitle: 'head', description: '', tags: [], bitmap: null, points: { exterior: [[3.25, 4.75]], interior: [] } },
      {
        classTitle: 'sky',
        description: '',
        tags: [],
        bitmap: { origin: [4, 9], data, width: 7, height: 5 },
        points: { exterior: [], interior: [] },
      },
    ]);
  });

  test('the v1 record view writes tags as plain titles', () => {
    const { annotation } = parseAnnotation(
      annotation2018WithTaggedObject(),
      parseProjectMeta({ classes: [{ title: 'car', shape: 'point', color: '#010203' }], tags: [] }),
    );
    const text = serializeObjects(annotation.objects.map(toAnnotationObject));
    assert.equal(
      text,
      '[{"classTitle":"car","description":"","tags":["occluded","score"],"bitmap":null,"points":{"exterior":[[1,2]],"interior":[]}}]',
    );
  });

  test('optional members default, as in files without them', () => {
    const { annotation } = parseAnnotation(
      { size: { width: 10, height: 10 }, objects: [{ classTitle: 'head', points: { exterior: [[1, 1]] } }] },
      meta2018(),
    );
    assert.deepEqual(annotation, {
      description: '',
      tags: [],
      size: { width: 10, height: 10 },
      objects: [{ classTitle: 'head', description: '', tags: [], bitmap: null, points: { exterior: [[1, 1]], interior: [] } }],
    });
  });
});

function annotation2018WithTaggedObject() {
  return annotation(
    object('car', [[1, 2]], [], {
      tags: [{ name: 'occluded', value: null }, { name: 'score', value: 0.5, id: 1, tagId: 2, labelerLogin: 'x' }],
    }),
  );
}

describe('parseAnnotation errors', () => {
  const meta = meta2018();
  const sky = (bitmap: unknown, points: unknown = { exterior: [], interior: [] }) => ({
    classTitle: 'sky',
    description: '',
    tags: [],
    bitmap,
    points,
  });

  test('geometry that does not fit its class shape', () => {
    const cases: [unknown, string, RegExp][] = [
      [object('head', []), 'objects[0].points.exterior', /a point needs exactly 1 point, got 0 points/],
      [object('head', [[1, 1], [2, 2]]), 'objects[0].points.exterior', /exactly 1 point, got 2 points/],
      [object('car', [[1, 1]]), 'objects[0].points.exterior', /a rectangle needs exactly 2 points.*got 1 point$/],
      [object('car', [[1, 1], [2, 2], [3, 3]]), 'objects[0].points.exterior', /a rectangle needs exactly 2 points/],
      [object('road', [[1, 1]]), 'objects[0].points.exterior', /a line needs at least 2 points, got 1 point/],
      [object('person', [[1, 1], [2, 2]]), 'objects[0].points.exterior', /a polygon needs at least 3 points, got 2/],
      [
        object('person', [[1, 1], [2, 2], [3, 1]], [[[0, 0], [1, 1], [1, 0]], [[0, 0], [1, 1]]]),
        'objects[0].points.interior[1]',
        /a hole needs at least 3 points, got 2 points/,
      ],
      [object('person', [[1, 1], [2, 2], [3, 1]], [[0, 0]]), 'objects[0].points.interior[0][0]', /\[x, y\] pair/],
      [object('person', [[1, 1], [2, 2], [3, 1]], 'none'), 'objects[0].points.interior', /array of rings/],
      [object('road', [[1, 1], [2, 2]], [[[0, 0], [1, 1], [1, 0]]]), 'objects[0].points.interior', /must be empty for a line/],
      [object('head', [[1, 1, 1]]), 'objects[0].points.exterior[0]', /\[x, y\] pair of finite numbers/],
      [object('head', [['1', 1]]), 'objects[0].points.exterior[0]', /finite numbers/],
      [object('head', [[1, Infinity]]), 'objects[0].points.exterior[0]', /finite numbers/],
      [object('head', [{ x: 1, y: 1 }]), 'objects[0].points.exterior[0]', /\[x, y\] pair/],
      [object('head', 'here'), 'objects[0].points.exterior', /array of points/],
      [{ ...object('head', []), points: undefined }, 'objects[0].points', /\{exterior, interior\}/],
      [object('head', [[1, 1]], [], { bitmap: { origin: [0, 0], data: 'eJ' } }), 'objects[0].bitmap', /must be null for a point/],
      [
        object('head', [[1, 1]], [], { geometryType: 'polygon' }),
        'objects[0].geometryType',
        /"polygon" but class "head" has shape "point"/,
      ],
    ];
    for (const [input, where, message] of cases) {
      assertFormatError(() => parseAnnotation(annotation(input), meta), where, message);
    }
  });

  test('bitmaps that are malformed or do not decode', () => {
    const good = bitmapData(2, 2);
    const notZlib = Buffer.from('plain bytes, not zlib').toString('base64');
    const gif = deflateSync(Buffer.from('GIF89a and enough bytes to pass 33 of them')).toString('base64');
    const truncatedPng = deflateSync(pngBytes(2, 2).subarray(0, 20)).toString('base64');
    const headerless = pngBytes(2, 2);
    headerless.write('IDAT', 12, 'latin1');
    const pngWithoutHeader = deflateSync(headerless).toString('base64');
    const cases: [unknown, string, RegExp][] = [
      [sky(null), 'objects[0].bitmap', /needs \{origin, data\}/],
      [sky(undefined), 'objects[0].bitmap', /needs \{origin, data\}/],
      [{ ...sky({ origin: [0, 0], data: good }), points: 'none' }, 'objects[0].points', /\{exterior, interior\}/],
      [sky({ origin: [0.5, 0], data: good }), 'objects[0].bitmap.origin', /pair of integers/],
      [sky({ origin: [0], data: good }), 'objects[0].bitmap.origin', /pair of integers/],
      [sky({ origin: [0, 0], data: 12 }), 'objects[0].bitmap.data', /base64 string/],
      [sky({ origin: [0, 0], data: good }, { exterior: [[1, 1]], interior: [] }), 'objects[0].points', /empty exterior and interior/],
      [sky({ origin: [0, 0], data: '' }), 'objects[0].bitmap.data', /not base64/],
      [sky({ origin: [0, 0], data: 'not base64!' }), 'objects[0].bitmap.data', /not base64/],
      [sky({ origin: [0, 0], data: notZlib }), 'objects[0].bitmap.data', /not valid zlib/],
      [sky({ origin: [0, 0], data: gif }), 'objects[0].bitmap.data', /does not inflate to a PNG/],
      [sky({ origin: [0, 0], data: truncatedPng }), 'objects[0].bitmap.data', /does not inflate to a PNG/],
      [sky({ origin: [0, 0], data: pngWithoutHeader }), 'objects[0].bitmap.data', /without an IHDR header/],
    ];
    for (const [input, where, message] of cases) {
      assertFormatError(() => parseAnnotation(annotation(input), meta), where, message);
    }
  });

  test('a bitmap that inflates past the cap is refused', () => {
    const bomb = deflateSync(Buffer.alloc(65 * 1024 * 1024)).toString('base64');
    assert.throws(() => readMaskSize(bomb), /inflates to more than 67108864 bytes/);
    assertFormatError(
      () => parseAnnotation(annotation(sky({ origin: [0, 0], data: bomb })), meta),
      'objects[0].bitmap.data',
      /inflates to more than/,
    );
  });

  test('a PNG with a zero size is refused', () => {
    const png = pngBytes(1, 1);
    png.writeUInt32BE(0, 16);
    assert.throws(() => readMaskSize(deflateSync(png).toString('base64')), /invalid size 0x1/);
  });

  test('the annotation itself: root, size, classes, tags', () => {
    const cases: [unknown, string, RegExp][] = [
      [[], '', /annotation must be an object, got an array/],
      [{ ...annotation(), size: undefined }, 'size', /\{width, height\}/],
      [{ ...annotation(), size: { width: 0, height: 10 } }, 'size.width', /positive integer, got 0/],
      [{ ...annotation(), size: { width: 10, height: 1.5 } }, 'size.height', /positive integer, got 1.5/],
      [{ ...annotation(), size: { width: '10', height: 10 } }, 'size.width', /positive integer/],
      [{ ...annotation(), objects: {} }, 'objects', /must be an array/],
      [{ ...annotation(), description: 3 }, 'description', /must be a string/],
      [{ ...annotation(), tags: 'daytime' }, 'tags', /must be an array/],
      [{ ...annotation(), tags: [''] }, 'tags[0]', /must not be empty/],
      [{ ...annotation(), tags: [{ name: 'a', value: true }] }, 'tags[0].value', /null, a number or a string/],
      [{ ...annotation(), tags: [{ value: 1 }] }, 'tags[0].name', /non-empty string/],
      [{ ...annotation(), tags: [7] }, 'tags[0]', /a name or \{name, value\}/],
      [annotation('car'), 'objects[0]', /object must be an object/],
      [annotation(object('truck', [[1, 1], [2, 2]])), 'objects[0].classTitle', /class "truck" is not in the project meta/],
      [annotation({ ...object('car', [[1, 1], [2, 2]]), classTitle: 5 }), 'objects[0].classTitle', /non-empty string/],
      [
        annotation(object('car', [[1, 1], [2, 2]], [], { tags: [{ name: 'x', value: {} }] })),
        'objects[0].tags[0].value',
        /null, a number or a string/,
      ],
      [annotation(object('car', [[1, 1], [2, 2]], [], { description: [] })), 'objects[0].description', /must be a string/],
    ];
    for (const [input, where, message] of cases) {
      assertFormatError(() => parseAnnotation(input, meta), where, message);
    }
  });

  test('object and point limits are errors, not crashes', () => {
    const many = Array.from({ length: MAX_OBJECTS_PER_ANNOTATION + 1 }, () => object('head', [[1, 1]]));
    assertFormatError(() => parseAnnotation(annotation(...many), meta), 'objects', /10001 objects; at most 10000/);
    assert.equal(parseAnnotation(annotation(...many.slice(1)), meta).annotation.objects.length, MAX_OBJECTS_PER_ANNOTATION);

    const ring = Array.from({ length: MAX_POINTS_PER_OBJECT - 2 }, (_, i) => [i, i % 7]);
    const hole = [[0, 0], [1, 1], [1, 0]];
    assertFormatError(
      () => parseAnnotation(annotation(object('person', ring, [hole])), meta),
      'objects[0].points',
      /100001 points; at most 100000/,
    );
    assert.equal(
      parseAnnotation(annotation(object('person', ring.slice(1), [hole])), meta).annotation.objects[0]?.points.exterior.length,
      MAX_POINTS_PER_OBJECT - 3,
    );
  });
});

describe('detect and planProject', () => {
  test('the peer projects are detected; other layouts are not', () => {
    for (const project of ['vector', 'instance', 'keypoints', 'mixed_2020']) {
      assert.equal(detect(relativeFiles(path.join(FIXTURES, project))), true, project);
    }
    assert.equal(detect(['ds/ann/a.jpg.json', 'ds/img/a.jpg']), false);
    assert.equal(detect(['meta.json', 'images/a.jpg', 'annotations/instances.json']), false);
    assert.equal(detect(['sub/meta.json', 'sub/ds/ann/a.jpg.json']), false);
    assert.equal(detect(['classes.json', 'ds/ann/a.jpg.json']), true);
  });

  test('vector: six images, each with its annotation', () => {
    const plan = planProject(relativeFiles(path.join(FIXTURES, 'vector')));
    assert.equal(plan.metaPath, 'meta.json');
    assert.deepEqual(plan.ignored, []);
    assert.equal(plan.datasets.length, 1);
    const ds = plan.datasets[0];
    assert.equal(ds?.name, 'ds');
    assert.deepEqual(ds?.annotationsWithoutImage, []);
    assert.deepEqual(
      ds?.images.map((i) => [i.name, i.imagePath, i.annotationPath]),
      ['cat1', 'cat2', 'cat3', 'dog1', 'dog2', 'dog3'].map((n) => [`${n}.jpg`, `ds/img/${n}.jpg`, `ds/ann/${n}.jpg.json`]),
    );
  });

  test('mixed_2020: annotations without images and files that are not part of the project', () => {
    const plan = planProject(relativeFiles(path.join(FIXTURES, 'mixed_2020')));
    assert.equal(plan.datasets[0]?.images.length, 0);
    assert.equal(plan.datasets[0]?.annotationsWithoutImage.length, 3);
    assert.ok(plan.ignored.includes('obj_class_to_machine_color.json'));
    assert.ok(plan.ignored.includes('ds/masks_machine/nvidia-wallpaper-3440x1440_6904990.png'));
  });

  test('flat images, image extensions in any case, classes.json and several datasets', () => {
    const plan = planProject([
      'classes.json',
      'b/photo.JPEG',
      'b/ann/photo.JPEG.json',
      'b/notes.txt',
      'a/img/x.png',
      'a/img/y.TiFf',
      'a/img/z.svg',
      'a/ann/y.TiFf.json',
      'a/ann/w.png.json',
      'a/img/deeper/q.jpg',
      'README.md',
    ]);
    assert.equal(plan.metaPath, 'classes.json');
    assert.deepEqual(plan.datasets, [
      {
        name: 'a',
        images: [
          { name: 'x.png', imagePath: 'a/img/x.png', annotationPath: null },
          { name: 'y.TiFf', imagePath: 'a/img/y.TiFf', annotationPath: 'a/ann/y.TiFf.json' },
        ],
        annotationsWithoutImage: ['a/ann/w.png.json'],
      },
      {
        name: 'b',
        images: [{ name: 'photo.JPEG', imagePath: 'b/photo.JPEG', annotationPath: 'b/ann/photo.JPEG.json' }],
        annotationsWithoutImage: [],
      },
    ]);
    assert.deepEqual(plan.ignored, ['b/notes.txt', 'a/img/z.svg', 'a/img/deeper/q.jpg', 'README.md']);
  });

  test('datasets whose names share a beginning, their files interleaved and out of order', () => {
    const plan = planProject(['meta.json', 'ab/img/2.png', 'a/img/2.png', 'ab/ann/1.png.json', 'a/ann/2.png.json', 'ab/img/1.png', 'a/img/1.png', 'img/x.png']);
    assert.deepEqual(
      plan.datasets.map((d) => ({ name: d.name, images: d.images.map((i) => [i.imagePath, i.annotationPath]) })),
      [
        { name: 'a', images: [['a/img/1.png', null], ['a/img/2.png', 'a/ann/2.png.json']] },
        { name: 'ab', images: [['ab/img/1.png', 'ab/ann/1.png.json'], ['ab/img/2.png', null]] },
        { name: 'img', images: [['img/x.png', null]] },
      ],
    );
    assert.deepEqual(plan.ignored, []);
  });

  test('meta.json wins over classes.json, which is then ignored', () => {
    const plan = planProject(['classes.json', 'meta.json', 'ds/img/a.gif']);
    assert.equal(plan.metaPath, 'meta.json');
    assert.deepEqual(plan.ignored, ['classes.json']);
  });

  test('Supervisely files: a meta at the root or a dataset annotation, each alone enough', () => {
    assert.equal(hasSuperviselyFiles(['ds/ann/a.jpg.json', 'ds/img/a.jpg']), true);
    assert.equal(hasSuperviselyFiles(['classes.json', 'ds/a.jpg']), true);
    assert.equal(hasSuperviselyFiles(['ds/img/a.jpg', 'ds/b.png', 'a.png']), false);
    assert.equal(hasSuperviselyFiles(['sub/meta.json', 'ds/annotations/a.jpg.json', 'ann/a.jpg.json', 'a/b/ann/c.json']), false);
  });

  test('a meta that is not required may be missing: the datasets are planned all the same', () => {
    const plan = planProject(['ds/img/a.jpg', 'ds/ann/a.jpg.json', 'ds/b.jpg'], { requireMeta: false });
    assert.equal(plan.metaPath, null);
    assert.deepEqual(plan.datasets.map((d) => d.images.map((i) => [i.imagePath, i.annotationPath])), [[['ds/img/a.jpg', 'ds/ann/a.jpg.json'], ['ds/b.jpg', null]]]);
    assert.equal(planProject(['meta.json', 'ds/img/a.jpg'], { requireMeta: false }).metaPath, 'meta.json');
  });

  test('no meta, or one image name twice in a dataset, is an error', () => {
    assertFormatError(() => planProject(['ds/img/a.jpg', 'ds/ann/a.jpg.json']), '', /no meta.json or classes.json/);
    assertFormatError(
      () => planProject(['meta.json', 'ds/img/a.jpg', 'ds/a.jpg']),
      'ds/a.jpg',
      /dataset "ds" already has an image named "a.jpg" at ds\/img\/a.jpg/,
    );
  });
});
