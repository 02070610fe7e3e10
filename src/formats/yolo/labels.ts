// Reads a YOLO label file: `class cx cy w h` boxes and `class x1 y1 x2 y2 …` polygons, normalised
// to the image, turned into pixels with the image's real size. The file is one image's: the first
// object past MAX_OBJECTS_PER_ANNOTATION ends it, and its warnings are kept as the first
// KEPT_WARNINGS and a count of the rest.
import type { FormatWarning, Point, ShapedObject } from '../canonical.ts';
import { KeptWarnings } from '../kept-warnings.ts';
import { MAX_OBJECTS_PER_ANNOTATION } from '../limits.ts';
import { YoloFormatError } from './config.ts';

export interface LabelFile {
  objects: ShapedObject[];
  /** The first KEPT_WARNINGS warnings; `moreWarnings` counts the rest. */
  warnings: FormatWarning[];
  moreWarnings: number;
}

/**
 * Reads the label file of an image of `width` × `height`. Throws YoloFormatError at the first object
 * past MAX_OBJECTS_PER_ANNOTATION.
 */
export function readLabelFile(text: string, path: string, names: readonly string[], width: number, height: number): LabelFile {
  const objects: ShapedObject[] = [];
  const warnings = new KeptWarnings<FormatWarning>();
  // Line by line, without an array of every line.
  for (let start = 0, i = 0; start <= text.length; i += 1) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    readLine(text.slice(start, end).trim(), i);
    start = end + 1;
    if (objects.length > MAX_OBJECTS_PER_ANNOTATION) {
      throw new YoloFormatError(path, `more than ${MAX_OBJECTS_PER_ANNOTATION} objects; the limit is ${MAX_OBJECTS_PER_ANNOTATION} objects per image`, i + 1);
    }
  }
  return { objects, warnings: warnings.list, moreWarnings: warnings.more };

  function readLine(line: string, i: number): void {
    if (line === '' || line.startsWith('#')) return;
    const warn = (message: string) => warnings.push({ path, line: i + 1, message: `${message}; the line is ignored` });
    const tokens = line.split(/\s+/);
    const index = Number(tokens[0]);
    if (!Number.isSafeInteger(index) || index < 0) return warn(`class index ${JSON.stringify(tokens[0])} is not a non-negative integer`);
    const label = names[index];
    if (label === undefined) return warn(`class index ${index} is not among the ${names.length} class names`);
    const values = tokens.slice(1).map(Number);
    if (values.some((v) => !Number.isFinite(v))) return warn('a coordinate is not a number');
    const object = (shape: ShapedObject['shape'], exterior: Point[]): ShapedObject => ({
      classTitle: label,
      description: '',
      tags: [],
      bitmap: null,
      points: { exterior, interior: [] },
      shape,
    });
    // 5 numbers: a box; 6: a box with a confidence, which is not part of an annotation.
    if (values.length === 4 || values.length === 5) {
      const [cx, cy, w, h] = values as [number, number, number, number];
      if (w < 0 || h < 0) return warn('a box has a negative width or height');
      objects.push(object('rectangle', [[(cx - w / 2) * width, (cy - h / 2) * height], [(cx + w / 2) * width, (cy + h / 2) * height]]));
      return;
    }
    if (values.length >= 6 && values.length % 2 === 0) {
      const ring: Point[] = [];
      for (let k = 0; k < values.length; k += 2) ring.push([values[k]! * width, values[k + 1]! * height]);
      objects.push(object('polygon', ring));
      return;
    }
    warn(`expected "class cx cy w h" or "class x1 y1 x2 y2 x3 y3 …", got ${tokens.length} values`);
  }
}
