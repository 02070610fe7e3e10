// Reads one Supervisely annotation file (2018 or newer) into the canonical model, checking every
// geometry against its class's shape.
import type {
  CanonicalAnnotation,
  CanonicalBitmap,
  CanonicalObject,
  CanonicalTag,
  ClassShape,
  Point,
} from '../canonical.ts';
import { readMaskSize } from './bitmap.ts';
import { SuperviselyFormatError, childPath, isRecord, typeName } from './errors.ts';
import type { ProjectMeta } from './meta-reader.ts';

import { MAX_OBJECTS_PER_ANNOTATION, MAX_POINTS_PER_OBJECT } from '../limits.ts';

export { MAX_OBJECTS_PER_ANNOTATION, MAX_POINTS_PER_OBJECT };

export interface ParseAnnotationOptions {
  /** Drop objects whose class is in `meta.unsupported` (and list them) instead of failing. */
  skipUnsupported?: boolean;
}

/** An object left out because its class has a shape we cannot store. */
export interface SkippedObject {
  path: string;
  classTitle: string;
  shape: string;
  message: string;
}

export interface ParsedAnnotation {
  annotation: CanonicalAnnotation;
  skipped: SkippedObject[];
}

/**
 * Parses an annotation file's JSON against the project meta. Throws SuperviselyFormatError on the
 * first problem; an object of an unsupported class is such a problem unless `skipUnsupported` is set.
 */
export function parseAnnotation(
  json: unknown,
  meta: ProjectMeta,
  options: ParseAnnotationOptions = {},
): ParsedAnnotation {
  if (!isRecord(json)) throw new SuperviselyFormatError('', `annotation must be an object, got ${typeName(json)}`);
  const shapes = new Map<string, ClassShape>(meta.classes.map((c) => [c.title, c.shape]));
  const unsupported = new Map(meta.unsupported.map((c) => [c.title, c]));

  const description = readDescription(json.description, 'description');
  const tags = readTags(json.tags, 'tags');
  const size = readSize(json.size);
  if (!Array.isArray(json.objects)) {
    throw new SuperviselyFormatError('objects', `must be an array, got ${typeName(json.objects)}`);
  }
  if (json.objects.length > MAX_OBJECTS_PER_ANNOTATION) {
    throw new SuperviselyFormatError(
      'objects',
      `has ${json.objects.length} objects; at most ${MAX_OBJECTS_PER_ANNOTATION} are allowed per annotation`,
    );
  }

  const objects: CanonicalObject[] = [];
  const skipped: SkippedObject[] = [];
  json.objects.forEach((raw: unknown, i) => {
    const at = childPath('objects', i);
    if (!isRecord(raw)) throw new SuperviselyFormatError(at, `object must be an object, got ${typeName(raw)}`);
    const classTitle = raw.classTitle;
    const titleAt = childPath(at, 'classTitle');
    if (typeof classTitle !== 'string' || classTitle === '') {
      throw new SuperviselyFormatError(titleAt, `must be a non-empty string, got ${typeName(classTitle)}`);
    }
    const shape = shapes.get(classTitle);
    if (shape === undefined) {
      const other = unsupported.get(classTitle);
      if (!other) throw new SuperviselyFormatError(titleAt, `class "${classTitle}" is not in the project meta`);
      if (!options.skipUnsupported) throw new SuperviselyFormatError(at, other.message);
      skipped.push({ path: at, classTitle, shape: other.shape, message: other.message });
      return;
    }
    objects.push(readObject(raw, at, classTitle, shape));
  });

  return { annotation: { description, tags, size, objects }, skipped };
}

function readObject(
  raw: Record<string, unknown>,
  at: string,
  classTitle: string,
  shape: ClassShape,
): CanonicalObject {
  if (raw.geometryType !== undefined && raw.geometryType !== shape) {
    throw new SuperviselyFormatError(
      childPath(at, 'geometryType'),
      `is ${JSON.stringify(raw.geometryType)} but class "${classTitle}" has shape "${shape}"`,
    );
  }
  const description = readDescription(raw.description, childPath(at, 'description'));
  const tags = readTags(raw.tags, childPath(at, 'tags'));
  if (shape === 'bitmap') {
    const points = readPoints(raw.points, childPath(at, 'points'), true);
    if (points.exterior.length > 0 || points.interior.length > 0) {
      throw new SuperviselyFormatError(childPath(at, 'points'), 'a bitmap object must have empty exterior and interior');
    }
    return { classTitle, description, tags, bitmap: readBitmap(raw.bitmap, childPath(at, 'bitmap')), points };
  }
  if (raw.bitmap !== undefined && raw.bitmap !== null) {
    throw new SuperviselyFormatError(childPath(at, 'bitmap'), `must be null for a ${shape} object`);
  }
  const points = checkGeometry(readPoints(raw.points, childPath(at, 'points'), false), shape, childPath(at, 'points'));
  return { classTitle, description, tags, bitmap: null, points };
}

/** The points if they fit the shape, with a rectangle's corners put in [[left, top], [right, bottom]] order. */
function checkGeometry(
  points: CanonicalObject['points'],
  shape: Exclude<ClassShape, 'bitmap'>,
  at: string,
): CanonicalObject['points'] {
  const { exterior, interior } = points;
  const exteriorAt = childPath(at, 'exterior');
  const count = (n: number) => `${n} point${n === 1 ? '' : 's'}`;
  if (shape !== 'polygon' && interior.length > 0) {
    throw new SuperviselyFormatError(childPath(at, 'interior'), `must be empty for a ${shape}`);
  }
  const got = count(exterior.length);
  switch (shape) {
    case 'point':
      if (exterior.length !== 1) throw new SuperviselyFormatError(exteriorAt, `a point needs exactly 1 point, got ${got}`);
      return points;
    case 'rectangle': {
      if (exterior.length !== 2) {
        throw new SuperviselyFormatError(
          exteriorAt,
          `a rectangle needs exactly 2 points ([[left, top], [right, bottom]]), got ${got}`,
        );
      }
      const [[x1, y1], [x2, y2]] = exterior as [Point, Point];
      const corners: Point[] = [
        [Math.min(x1, x2), Math.min(y1, y2)],
        [Math.max(x1, x2), Math.max(y1, y2)],
      ];
      return { exterior: corners, interior };
    }
    case 'line':
      if (exterior.length < 2) throw new SuperviselyFormatError(exteriorAt, `a line needs at least 2 points, got ${got}`);
      return points;
    case 'polygon':
      if (exterior.length < 3) throw new SuperviselyFormatError(exteriorAt, `a polygon needs at least 3 points, got ${got}`);
      interior.forEach((ring, i) => {
        if (ring.length < 3) {
          const ringAt = childPath(childPath(at, 'interior'), i);
          throw new SuperviselyFormatError(ringAt, `a hole needs at least 3 points, got ${count(ring.length)}`);
        }
      });
      return points;
  }
}

function readPoints(raw: unknown, at: string, optional: boolean): CanonicalObject['points'] {
  if ((raw === undefined || raw === null) && optional) return { exterior: [], interior: [] };
  if (!isRecord(raw)) throw new SuperviselyFormatError(at, `must be an object {exterior, interior}, got ${typeName(raw)}`);
  const exteriorAt = childPath(at, 'exterior');
  const interiorAt = childPath(at, 'interior');
  if (!Array.isArray(raw.exterior)) {
    throw new SuperviselyFormatError(exteriorAt, `must be an array of points, got ${typeName(raw.exterior)}`);
  }
  const rawInterior = raw.interior ?? [];
  if (!Array.isArray(rawInterior)) {
    throw new SuperviselyFormatError(interiorAt, `must be an array of rings, got ${typeName(rawInterior)}`);
  }
  // Count before reading so an oversized object is refused without walking it.
  let total = raw.exterior.length;
  for (const ring of rawInterior) if (Array.isArray(ring)) total += ring.length;
  if (total > MAX_POINTS_PER_OBJECT) {
    throw new SuperviselyFormatError(
      at,
      `has ${total} points; at most ${MAX_POINTS_PER_OBJECT} are allowed per object`,
    );
  }
  return {
    exterior: readRing(raw.exterior, exteriorAt),
    interior: rawInterior.map((ring: unknown, i) => {
      const ringAt = childPath(interiorAt, i);
      if (!Array.isArray(ring)) {
        throw new SuperviselyFormatError(ringAt, `must be an array of points, got ${typeName(ring)}`);
      }
      return readRing(ring, ringAt);
    }),
  };
}

function readRing(ring: unknown[], at: string): Point[] {
  return ring.map((p, i) => {
    if (!Array.isArray(p) || p.length !== 2 || !isCoordinate(p[0]) || !isCoordinate(p[1])) {
      throw new SuperviselyFormatError(childPath(at, i), `must be an [x, y] pair of finite numbers, got ${shown(p)}`);
    }
    return [p[0], p[1]];
  });
}

const isCoordinate = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

// JSON text shows the offending value best; undefined and Infinity have none, so name their kind.
const shown = (value: unknown): string => {
  const text = typeof value === 'number' && !Number.isFinite(value) ? undefined : JSON.stringify(value);
  return text === undefined ? typeName(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

function readBitmap(raw: unknown, at: string): CanonicalBitmap {
  if (!isRecord(raw)) {
    throw new SuperviselyFormatError(at, `a bitmap object needs {origin, data}, got ${typeName(raw)}`);
  }
  const origin = raw.origin;
  if (!Array.isArray(origin) || origin.length !== 2 || !origin.every((v) => Number.isSafeInteger(v))) {
    throw new SuperviselyFormatError(childPath(at, 'origin'), `must be an [x, y] pair of integers, got ${shown(origin)}`);
  }
  if (typeof raw.data !== 'string') {
    throw new SuperviselyFormatError(childPath(at, 'data'), `must be a base64 string, got ${typeName(raw.data)}`);
  }
  let size: { width: number; height: number };
  try {
    size = readMaskSize(raw.data);
  } catch (error) {
    throw new SuperviselyFormatError(childPath(at, 'data'), (error as Error).message);
  }
  return { origin: [origin[0] as number, origin[1] as number], data: raw.data, ...size };
}

function readSize(raw: unknown): CanonicalAnnotation['size'] {
  if (!isRecord(raw)) {
    throw new SuperviselyFormatError('size', `must be an object {width, height}, got ${typeName(raw)}`);
  }
  const dimension = (key: 'width' | 'height'): number => {
    const value = raw[key];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new SuperviselyFormatError(childPath('size', key), `must be a positive integer, got ${shown(value)}`);
    }
    return value;
  };
  return { width: dimension('width'), height: dimension('height') };
}

function readDescription(raw: unknown, at: string): string {
  if (raw === undefined || raw === null) return '';
  if (typeof raw !== 'string') throw new SuperviselyFormatError(at, `must be a string, got ${typeName(raw)}`);
  return raw;
}

function readTags(raw: unknown, at: string): CanonicalTag[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new SuperviselyFormatError(at, `must be an array, got ${typeName(raw)}`);
  return raw.map((tag: unknown, i): CanonicalTag => {
    const tagAt = childPath(at, i);
    // 2018 files name tags as plain strings; newer ones use {name, value}.
    if (typeof tag === 'string') {
      if (tag === '') throw new SuperviselyFormatError(tagAt, 'tag name must not be empty');
      return { name: tag, value: null };
    }
    if (!isRecord(tag)) {
      throw new SuperviselyFormatError(tagAt, `tag must be a name or {name, value}, got ${typeName(tag)}`);
    }
    if (typeof tag.name !== 'string' || tag.name === '') {
      throw new SuperviselyFormatError(childPath(tagAt, 'name'), `must be a non-empty string, got ${typeName(tag.name)}`);
    }
    const value = tag.value ?? null;
    if (value !== null && typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) {
      const valueAt = childPath(tagAt, 'value');
      throw new SuperviselyFormatError(valueAt, `must be null, a number or a string, got ${typeName(value)}`);
    }
    return { name: tag.name, value };
  });
}
