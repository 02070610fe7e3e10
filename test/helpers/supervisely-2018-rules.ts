// The rules the 2018 Supervisely SDK (supervisely_lib as first published, July 2018) applies when it
// opens a project folder, written out as a checker of an unpacked archive. They come from that SDK's
// source and from /work/shared/spec/supervisely-format.md, not from our writer:
//
// - ProjectMeta: a dict meta.json needs `classes`, `tags_images` and `tags_objects` (KeyError
//   otherwise); the tag lists hold names. FigClasses: each class a `title` string, unique, and a
//   `shape` of point, rectangle, line, polygon or bitmap; `color` `#RRGGBB` when given.
// - ProjectFS.from_disk: a dataset is a folder with `ann/` and `img/`; files are split by
//   os.path.splitext, annotations are the `ann/` files whose extension is `.json`, and an image pairs
//   with the annotation of the same name without extension. Only pairs are read: an image or an
//   annotation without the other is not in the project, and two images of one stem are one.
// - Annotation: `size.width` and `size.height` positive integers; `tags` (image tags) a list of
//   names, `description`, `objects`.
// - FigureFactory: an object's `classTitle` must be a class of the meta (RuntimeError). Point needs
//   one exterior point, rectangle and line two, polygon three (fewer: the object is dropped
//   silently, as are hole rings of fewer than three points); bitmap needs `bitmap.data`, base64 of
//   zlib of a PNG that OpenCV's imdecode (unchanged) makes one channel or four (RuntimeError
//   "Wrong internal mask format" for three: RGB, or a palette without transparency).
// - Objects as the SDK packs them: `classTitle`, `description`, `tags` (names), `bitmap`, `points`
//   with `exterior` and `interior`.
import fs from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';

const SHAPES = ['point', 'rectangle', 'line', 'polygon', 'bitmap'];
const MIN_EXTERIOR: Record<string, number> = { point: 1, rectangle: 2, line: 2, polygon: 3 };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNameList = (v: unknown): v is string[] => Array.isArray(v) && v.every((n) => typeof n === 'string' && n !== '');
const isPoint = (v: unknown): boolean => Array.isArray(v) && v.length === 2 && v.every((c) => typeof c === 'number' && Number.isFinite(c));

/** Python's os.path.splitext: the last dot starts the extension, but leading dots do not. */
export function splitext(name: string): [string, string] {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || /^\.+$/.test(name.slice(0, dot))) return [name, ''];
  return [name.slice(0, dot), name.slice(dot)];
}

/** What the 2018 SDK would refuse or lose in the project at `dir`; empty when it reads all of it. */
export function check2018Project(dir: string): string[] {
  const problems: string[] = [];
  const say = (where: string, what: string): void => {
    problems.push(`${where}: ${what}`);
  };
  const metaPath = path.join(dir, 'meta.json');
  if (!fs.existsSync(metaPath)) return ['meta.json: missing'];
  const meta = JSON.parse(fs.readFileSync(metaPath, 'utf8')) as unknown;
  if (!isObject(meta)) return ['meta.json: not an object'];
  for (const key of ['classes', 'tags_images', 'tags_objects']) if (!(key in meta)) say('meta.json', `no "${key}" (KeyError in ProjectMeta)`);
  if (!isNameList(meta.tags_images)) say('meta.json', 'tags_images is not a list of names');
  if (!isNameList(meta.tags_objects)) say('meta.json', 'tags_objects is not a list of names');
  const shapes = new Map<string, string>();
  if (!Array.isArray(meta.classes)) say('meta.json', 'classes is not a list');
  else {
    meta.classes.forEach((c: unknown, i) => {
      if (!isObject(c) || typeof c.title !== 'string') return say(`meta.json classes[${i}]`, 'no string title');
      if (shapes.has(c.title)) say(`meta.json classes[${i}]`, `title "${c.title}" twice`);
      if (typeof c.shape !== 'string' || !SHAPES.includes(c.shape)) say(`meta.json classes[${i}]`, `shape ${JSON.stringify(c.shape)} not allowed`);
      if (c.color !== undefined && !(typeof c.color === 'string' && /^#[0-9A-Fa-f]{6}$/.test(c.color))) say(`meta.json classes[${i}]`, `color ${JSON.stringify(c.color)}`);
      shapes.set(c.title, String(c.shape));
    });
  }
  const imageTags = new Set(isNameList(meta.tags_images) ? meta.tags_images : []);
  const objectTags = new Set(isNameList(meta.tags_objects) ? meta.tags_objects : []);

  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dataset = entry.name;
    const annDir = path.join(dir, dataset, 'ann');
    const imgDir = path.join(dir, dataset, 'img');
    if (!fs.existsSync(annDir)) continue;
    const annotations = new Map<string, string>();
    for (const file of fs.readdirSync(annDir)) {
      const [stem, ext] = splitext(file);
      if (ext !== '.json') say(`${dataset}/ann/${file}`, 'not read: its extension is not .json');
      else annotations.set(stem, file);
    }
    const images = new Map<string, string>();
    const imageFiles = fs.existsSync(imgDir) ? fs.readdirSync(imgDir) : [];
    for (const file of imageFiles) {
      const [stem] = splitext(file);
      if (images.has(stem)) say(`${dataset}/img/${file}`, `shares its stem with ${images.get(stem)}: one of them is lost`);
      images.set(stem, file);
    }
    for (const [stem, file] of annotations) {
      if (imageFiles.length > 0 && !images.has(stem)) say(`${dataset}/ann/${file}`, 'no image of its stem in img/: not read');
      checkAnnotation(`${dataset}/ann/${file}`, JSON.parse(fs.readFileSync(path.join(annDir, file), 'utf8')) as unknown);
    }
    for (const [stem, file] of images) if (!annotations.has(stem)) say(`${dataset}/img/${file}`, `no ann/${stem}.json: not read`);
  }
  return problems;

  function checkAnnotation(where: string, ann: unknown): void {
    if (!isObject(ann)) return say(where, 'not an object');
    for (const key of ['description', 'tags', 'size', 'objects']) if (!(key in ann)) say(where, `no "${key}"`);
    const size = ann.size;
    if (!isObject(size) || !['width', 'height'].every((k) => Number.isInteger(size[k]) && (size[k] as number) > 0)) say(where, 'size is not positive integers');
    if (typeof ann.description !== 'string') say(where, 'description is not a string');
    if (!isNameList(ann.tags)) say(where, `tags are not names: ${JSON.stringify(ann.tags)}`);
    else for (const tag of ann.tags) if (!imageTags.has(tag)) say(where, `tag "${tag}" is not in tags_images`);
    if (!Array.isArray(ann.objects)) return say(where, 'objects is not a list');
    ann.objects.forEach((o: unknown, i) => checkObject(`${where} objects[${i}]`, o));
  }

  function checkObject(where: string, o: unknown): void {
    if (!isObject(o)) return say(where, 'not an object');
    for (const key of ['classTitle', 'description', 'tags', 'bitmap', 'points']) if (!(key in o)) say(where, `no "${key}"`);
    const shape = typeof o.classTitle === 'string' ? shapes.get(o.classTitle) : undefined;
    if (shape === undefined) return say(where, `class ${JSON.stringify(o.classTitle)} is not in the meta (RuntimeError)`);
    if (typeof o.description !== 'string') say(where, 'description is not a string');
    if (!isNameList(o.tags)) say(where, `tags are not names: ${JSON.stringify(o.tags)}`);
    else for (const tag of o.tags) if (!objectTags.has(tag)) say(where, `tag "${tag}" is not in tags_objects`);
    const points = o.points;
    if (!isObject(points) || !Array.isArray(points.exterior) || !Array.isArray(points.interior)) return say(where, 'points need exterior and interior lists');
    if (!points.exterior.every(isPoint)) say(where, 'an exterior point is not [x, y]');
    if (shape === 'bitmap') return checkBitmap(where, o.bitmap);
    if (o.bitmap !== null) say(where, 'a vector object with a bitmap');
    if (points.exterior.length < MIN_EXTERIOR[shape]!) say(where, `${shape} with ${points.exterior.length} exterior points: dropped`);
    for (const ring of points.interior) {
      if (shape !== 'polygon') say(where, `${shape} with interior rings`);
      else if (!Array.isArray(ring) || ring.length < 3 || !ring.every(isPoint)) say(where, 'a hole of fewer than 3 points: dropped');
    }
  }

  function checkBitmap(where: string, bitmap: unknown): void {
    if (!isObject(bitmap) || typeof bitmap.data !== 'string') return say(where, 'bitmap without data');
    if (bitmap.origin !== undefined && !(Array.isArray(bitmap.origin) && bitmap.origin.length === 2 && bitmap.origin.every(Number.isInteger))) say(where, 'origin is not two integers');
    let png: Buffer;
    try {
      png = inflateSync(Buffer.from(bitmap.data, 'base64'));
    } catch {
      return say(where, 'bitmap data is not base64 of zlib');
    }
    if (!png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return say(where, 'bitmap data is no PNG');
    const colourType = png[25];
    const chunks: string[] = [];
    for (let at = 8; at + 8 <= png.length; at += 12 + png.readUInt32BE(at)) chunks.push(png.toString('latin1', at + 4, at + 8));
    const channels = colourType === 0 ? 1 : colourType === 2 ? 3 : colourType === 3 ? (chunks.includes('tRNS') ? 4 : 3) : 4;
    if (channels === 3) say(where, `bitmap PNG of colour type ${colourType} decodes to 3 channels ("Wrong internal mask format")`);
  }
}
