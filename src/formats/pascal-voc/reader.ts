// Reads one Pascal VOC annotation XML into canonical rectangles with their tags. The file is one
// image's: the first object past MAX_OBJECTS_PER_ANNOTATION ends it as it is parsed.
import type { CanonicalTag, FormatWarning, ShapedObject } from '../canonical.ts';
import { MAX_OBJECTS_PER_ANNOTATION } from '../limits.ts';
import { type XmlElement, XmlError, child, childText, parseXml } from './xml.ts';

/** An XML file that cannot be read at all; `line` is 1-based where known. */
export class VocFormatError extends Error {
  readonly path: string;
  readonly line: number | undefined;
  constructor(path: string, reason: string, line?: number) {
    super(`${path}${line ? `:${line}` : ''}: ${reason}`);
    this.name = 'VocFormatError';
    this.path = path;
    this.line = line;
  }
}

export interface VocAnnotation {
  /** `<filename>`, if the file has one. */
  filename: string | null;
  /** `<size>`, if the file has a usable one; otherwise the image gives the size. */
  size: { width: number; height: number } | null;
  /** Rectangles in file order: each `<object>`, then its `<part>`s, as their own objects. */
  objects: ShapedObject[];
  /** For each `<object>` in file order, its index in `objects` (segmentation masks are numbered that way). */
  objectIndex: number[];
  warnings: FormatWarning[];
}

/** Object members kept as tags, with their values. */
const TAG_MEMBERS = ['pose', 'truncated', 'difficult', 'occluded'];

const tagValue = (text: string): number | string => (text !== '' && Number.isFinite(Number(text)) ? Number(text) : text);

/** Each `<object>` and each of its `<part>`s is an object of the image. */
const isObjectElement = (element: XmlElement, depth: number) => (depth === 1 && element.name === 'object') || (depth === 2 && element.name === 'part');

/**
 * Reads the annotation of one image. Throws VocFormatError when the file is not a VOC annotation, and
 * at the first object past MAX_OBJECTS_PER_ANNOTATION (before the rest of the file is parsed).
 */
export function readVocXml(text: string, path: string): VocAnnotation {
  let root: XmlElement;
  let objectCount = 0;
  const countObjects = (element: XmlElement, depth: number) => {
    if (!isObjectElement(element, depth) || ++objectCount <= MAX_OBJECTS_PER_ANNOTATION) return;
    throw new VocFormatError(path, `more than ${MAX_OBJECTS_PER_ANNOTATION} objects (<object> and <part> elements); the limit is ${MAX_OBJECTS_PER_ANNOTATION} objects per image`);
  };
  try {
    root = parseXml(text, countObjects);
  } catch (error) {
    if (error instanceof XmlError) throw new VocFormatError(path, `not well-formed XML: ${error.message}`, error.line);
    throw error;
  }
  if (root.name !== 'annotation') throw new VocFormatError(path, `the root element is <${root.name}>, not <annotation>`);
  const warnings: FormatWarning[] = [];
  const sizeElement = child(root, 'size');
  const width = Number(sizeElement && childText(sizeElement, 'width'));
  const height = Number(sizeElement && childText(sizeElement, 'height'));
  const size = width > 0 && height > 0 ? { width, height } : null;
  const objects: ShapedObject[] = [];
  const objectIndex: number[] = [];
  for (const element of root.children) {
    if (element.name !== 'object') continue;
    const at = `object ${objectIndex.length + 1}`;
    objectIndex.push(objects.length);
    const name = childText(element, 'name');
    if (!name) {
      warnings.push({ path, message: `${at} has no <name>; it is ignored` });
      continue;
    }
    const tags: CanonicalTag[] = [];
    for (const member of TAG_MEMBERS) {
      const value = childText(element, member);
      if (value !== undefined && value !== '') tags.push({ name: member, value: tagValue(value) });
    }
    for (const action of child(element, 'actions')?.children ?? []) tags.push({ name: action.name, value: tagValue(action.text.trim()) });
    for (const attribute of child(element, 'attributes')?.children ?? []) {
      const attributeName = childText(attribute, 'name');
      // An attribute without a <value> is a tag without one.
      const value = childText(attribute, 'value');
      if (attributeName) tags.push({ name: attributeName, value: value === undefined ? null : tagValue(value) });
    }
    const box = readBox(element, path, `${at} (${name})`, warnings);
    if (box) objects.push({ classTitle: name, description: '', tags, bitmap: null, points: { exterior: box, interior: [] }, shape: 'rectangle' });
    for (const part of element.children.filter((c) => c.name === 'part')) {
      const partName = childText(part, 'name');
      const partBox = partName ? readBox(part, path, `${at} (${name}) part ${partName}`, warnings) : null;
      if (partName && partBox) {
        objects.push({ classTitle: partName, description: '', tags: [{ name: 'part of', value: name }], bitmap: null, points: { exterior: partBox, interior: [] }, shape: 'rectangle' });
      }
    }
  }
  return { filename: childText(root, 'filename') || null, size, objects, objectIndex, warnings };
}

function readBox(element: XmlElement, path: string, at: string, warnings: FormatWarning[]): [[number, number], [number, number]] | null {
  const box = child(element, 'bndbox');
  const values = ['xmin', 'ymin', 'xmax', 'ymax'].map((k) => Number(box && childText(box, k)));
  if (!box || values.some((v) => !Number.isFinite(v))) {
    warnings.push({ path, message: `${at}: <bndbox> needs numeric xmin, ymin, xmax and ymax; it is ignored` });
    return null;
  }
  const [x1, y1, x2, y2] = values as [number, number, number, number];
  return [[Math.min(x1, x2), Math.min(y1, y2)], [Math.max(x1, x2), Math.max(y1, y2)]];
}
