// The annotation scanner must store exactly what the general path (JSON.parse, parseAnnotation,
// serializeObjects) stores, for every file it takes; everything else it must leave to that path.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { type ClassShape, serializeObjects, toAnnotationObject } from '../../src/formats/canonical.ts';
import { ScanClasses, scanAnnotation } from '../../src/formats/supervisely/annotation-scanner.ts';
import { type ProjectMeta, parseAnnotation, parseProjectMeta } from '../../src/formats/supervisely/index.ts';
import { prepareAnnotation } from '../../src/tasks/handlers/annotation-preparation.ts';
import { PEER } from '../helpers/peer-fixtures.ts';

const SUPERVISELY = path.join(PEER, 'superannotate', 'supervisely');

const SHAPES: [string, ClassShape][] = [
  ['car', 'polygon'],
  ['box', 'rectangle'],
  ['dot', 'point'],
  ['edge', 'line'],
  ['Машина', 'polygon'],
  ['mask', 'bitmap'],
];

function metaOf(shapes: [string, ClassShape][]): ProjectMeta {
  return { classes: shapes.map(([title, shape]) => ({ title, shape, color: '#000000' })), tags: [], unsupported: [] };
}

/** What the general path stores of a file, or its problem. */
function general(bytes: Buffer, meta: ProjectMeta): { description: string; objectsJson: string } | { problem: string } {
  try {
    const { annotation } = parseAnnotation(JSON.parse(bytes.toString('utf8')), meta, { skipUnsupported: true });
    return { description: annotation.description, objectsJson: serializeObjects(annotation.objects.map(toAnnotationObject)) };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}

/** A small seeded generator, so a failure can be replayed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** JSON text written by hand: spaces, key order and number spellings vary as files from other tools do. */
function writer(random: () => number, spaced: boolean) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const space = () => (spaced ? pick(['', ' ', '\n  ', '\t', '\r\n']) : '');
  const number = (): string => {
    const whole = Math.floor(random() * 4000) - 500;
    return pick([
      () => String(whole),
      () => (random() * 4000 - 500).toFixed(2),
      () => `${whole}.${pick(['0', '50', '5', '25', '000'])}`,
      () => pick(['0', '-0', '0.0', '-0.0', '0.000001', '0.0000001', '0.0000015', '-0.5']),
      () => pick(['1e3', '1E-2', '12.5e1', '123456789012345', '1234567890123456', '1.23456789012345', '0.123456789012345', '12345678.1234567']),
      () => String(random() * 1000),
    ])();
  };
  const value = (v: unknown): string => {
    if (Array.isArray(v)) return `[${space()}${v.map((x) => value(x)).join(`,${space()}`)}${space()}]`;
    if (v && typeof v === 'object') {
      return `{${space()}${Object.entries(v)
        .map(([k, x]) => `${JSON.stringify(k)}${space()}:${space()}${value(x)}`)
        .join(`,${space()}`)}${space()}}`;
    }
    if (typeof v === 'symbol') return number();
    return JSON.stringify(v);
  };
  return { value, pick };
}

/** A point whose coordinates are spelled by the writer. */
const NUMBER = Symbol('number');

function randomFile(seed: number): Buffer {
  const random = prng(seed);
  const { value, pick } = writer(random, random() < 0.5);
  const ring = (n: number) => Array.from({ length: n }, () => [NUMBER, NUMBER]);
  const objects = Array.from({ length: Math.floor(random() * 6) }, () => {
    const [title, shape] = pick(SHAPES.filter(([, s]) => s !== 'bitmap'));
    const count = shape === 'point' ? 1 : shape === 'rectangle' ? 2 : shape === 'line' ? 2 + Math.floor(random() * 3) : 3 + Math.floor(random() * 6);
    const members: [string, unknown][] = [
      ['id', Math.floor(random() * 1e9)],
      ['classTitle', random() < 0.02 ? 'unknown class' : title],
      ['description', pick(['', 'a note', 'примечание', null])],
      ['tags', pick([[], [], null])],
      ['labelerLogin', 'someone'],
      ['meta', { nested: [1, 'two', { three: null }], flag: true }],
      ['points', { exterior: ring(random() < 0.03 ? count - 1 : count), interior: shape === 'polygon' && random() < 0.3 ? [ring(3 + Math.floor(random() * 3))] : [] }],
    ];
    if (random() < 0.7) members.push(['geometryType', random() < 0.03 ? 'line' : shape]);
    if (random() < 0.3) members.push(['bitmap', null]);
    // Key order varies between tools.
    members.sort(() => random() - 0.5);
    return Object.fromEntries(members);
  });
  const top: [string, unknown][] = [
    ['description', pick(['', 'image', 'описание'])],
    ['tags', []],
    ['size', { height: 480, width: 640 }],
    ['objects', objects],
  ];
  top.sort(() => random() - 0.5);
  return Buffer.from(value(Object.fromEntries(top)), 'utf8');
}

test('the scanner stores exactly what the general path stores, for every generated file it takes', () => {
  const meta = metaOf(SHAPES);
  const classes = new ScanClasses(new Map(SHAPES));
  let taken = 0;
  for (let seed = 1; seed <= 3000; seed += 1) {
    const bytes = randomFile(seed);
    const scanned = scanAnnotation(bytes, classes);
    if (!scanned) continue;
    taken += 1;
    assert.deepEqual(scanned, general(bytes, meta), `seed ${seed}: ${bytes.toString()}`);
  }
  // Spaces, trailing zeros, -0, non-ASCII text and reordered keys are taken; exponents and long numbers are not.
  assert.ok(taken > 300, `the scanner took only ${taken} of 3000 files`);
});

test('a file the scanner takes is prepared from the scan, with the same result', () => {
  const meta = metaOf(SHAPES);
  const text =
    '{ "size": {"width": 640, "height": 480}, "description": "x", "objects": [\n' +
    '  {"points": {"exterior": [[30.50, 40], [10, -0]], "interior": null}, "classTitle": "box", "id": 7},\n' +
    '  {"classTitle": "car", "geometryType": "polygon", "points": {"exterior": [[1,2],[3,4],[5,6.25]], "interior": [[[1,1],[2,2],[3,3.0]]]}}\n' +
    ']}';
  const bytes = Buffer.from(text);
  const scanned = scanAnnotation(bytes, new ScanClasses(new Map(SHAPES)));
  assert.deepEqual(scanned, {
    description: 'x',
    objectsJson:
      '[{"classTitle":"box","description":"","tags":[],"bitmap":null,"points":{"exterior":[[10,0],[30.5,40]],"interior":[]}},' +
      '{"classTitle":"car","description":"","tags":[],"bitmap":null,"points":{"exterior":[[1,2],[3,4],[5,6.25]],"interior":[[[1,1],[2,2],[3,3]]]}}]',
  });
  assert.deepEqual(prepareAnnotation(bytes, meta), { annotation: { ...scanned, imageTags: [], objectTags: [], objectTagValues: null } });
});

test('objects with many holes, each after one with more, are scanned as the general path reads them', () => {
  const meta = metaOf(SHAPES);
  const ring = (k: number) => [[k, 0], [k + 1, 0.5], [k, 1.25]];
  const polygon = (holes: number) => ({ classTitle: 'car', points: { exterior: [[0, 0], [200, 0], [0, 200]], interior: Array.from({ length: holes }, (_, k) => ring(k)) } });
  const bytes = Buffer.from(JSON.stringify({ size: { width: 640, height: 480 }, objects: [polygon(100), polygon(3), polygon(70), polygon(0)] }));
  const scanned = scanAnnotation(bytes, new ScanClasses(new Map(SHAPES)));
  assert.ok(scanned);
  assert.deepEqual(scanned, general(bytes, meta));
});

test('the scanner leaves tags, bitmaps, escapes, unusual numbers and every bad file to the general path', () => {
  const classes = new ScanClasses(new Map(SHAPES));
  const polygon = (points: string, extra = '') => `{"size":{"width":9,"height":9},"objects":[{"classTitle":"car","points":{"exterior":${points}}${extra}}]}`;
  const declined = [
    polygon('[[1,2],[3,4],[5,6]]', ',"tags":["t"]'),
    polygon('[[1,2],[3,4],[5,6]]', ',"description":"a\\nb"'),
    polygon('[[1,2],[3,4],[5,6]]', ',"classTitle":"car"'),
    polygon('[[1e2,2],[3,4],[5,6]]'),
    polygon('[[1,2],[3,4],[5,0.0000001]]'),
    polygon('[[1,2],[3,4],[5,1234567890123456]]'),
    polygon('[[1,2],[3,4]]'),
    polygon('[[1,2],[3,4],[5]]'),
    polygon('[[1,2],[3,4],[5,6,7]]'),
    polygon('[[1,2],[3,4],[5,"6"]]'),
    polygon('[[1,2],[3,4],[5,06]]'),
    polygon('[[1,2],[3,4],[5,6]]', ',"geometryType":"line"'),
    polygon('[[1,2],[3,4],[5,6]]', ',"bitmap":{}'),
    polygon('[[1,2],[3,4],[5,6]]') + ' x',
    '{"size":{"width":9,"height":9},"tags":[{"name":"t"}],"objects":[]}',
    '{"size":{"width":0,"height":9},"objects":[]}',
    '{"size":{"width":9.5,"height":9},"objects":[]}',
    '{"objects":[]}',
    '{"size":{"width":9,"height":9},"objects":[{"classTitle":"mask","bitmap":{"origin":[0,0],"data":""}}]}',
    '{"size":{"width":9,"height":9},"objects":[{"classTitle":"nothing","points":{"exterior":[]}}]}',
    '\ufeff{"size":{"width":9,"height":9},"objects":[]}',
  ];
  for (const text of declined) assert.equal(scanAnnotation(Buffer.from(text), classes), null, text);
});

test('a class titled with a lone surrogate is left to the general path, which does not confuse it with U+FFFD', () => {
  const text = '{"size":{"width":9,"height":9},"objects":[{"classTitle":"\ufffd","points":{"exterior":[[1,2]]}}]}';
  const shapes: [string, ClassShape][] = [
    ['\ud800', 'point'],
    ['\ufffd', 'line'],
  ];
  assert.equal(scanAnnotation(Buffer.from(text), new ScanClasses(new Map(shapes.slice(0, 1)))), null);
  assert.deepEqual(prepareAnnotation(Buffer.from(text), metaOf(shapes)), {
    problem: 'annotation: objects[0].points.exterior: a line needs at least 2 points, got 1 point',
  });
});

test('a bad file still gets the general path\'s exact problem', () => {
  const meta = metaOf(SHAPES);
  const bytes = Buffer.from('{"size":{"width":9,"height":9},"objects":[{"classTitle":"car","points":{"exterior":[[1,2],[3,4]]}}]}');
  assert.deepEqual(prepareAnnotation(bytes, meta), {
    problem: 'annotation: objects[0].points.exterior: a polygon needs at least 3 points, got 2 points',
  });
});

test('the peer Supervisely projects: the scanner agrees with the general path on every file it takes', () => {
  let taken = 0;
  let files = 0;
  for (const project of fs.readdirSync(SUPERVISELY)) {
    const metaPath = path.join(SUPERVISELY, project, 'meta.json');
    if (!fs.existsSync(metaPath)) continue;
    const meta = parseProjectMeta(JSON.parse(fs.readFileSync(metaPath, 'utf8')));
    const classes = new ScanClasses(new Map(meta.classes.map((c) => [c.title, c.shape])));
    const annDir = path.join(SUPERVISELY, project, 'ds', 'ann');
    for (const name of fs.readdirSync(annDir)) {
      const bytes = fs.readFileSync(path.join(annDir, name));
      files += 1;
      const scanned = scanAnnotation(bytes, classes);
      if (!scanned) continue;
      taken += 1;
      assert.deepEqual(scanned, general(bytes, meta), `${project}/${name}`);
    }
  }
  assert.ok(files >= 20 && taken >= 3, `${taken} of ${files} peer files taken`);
});
