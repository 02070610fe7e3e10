// An object as YOLO label rows: `class xc yc w h` for detection, `class x1 y1 x2 y2 …` for
// segmentation, coordinates normalised by the image size and clamped to [0, 1] (Ultralytics refuses
// a label outside [-0.01, 1.01]).
//
// Detection takes every object with an area as its box: a polygon's or a bitmap's bounding box (a
// bitmap's is the box of its PNG, which Supervisely crops to the mask). Segmentation takes a
// rectangle as its four corners, a polygon as its exterior (YOLO has no holes), and a bitmap as the
// outer contour of each of its pieces. Lines and points have neither: they are left out.
import type { ClassShape, Point } from '../canonical.ts';
import { pointsBox, shoelaceArea } from '../coco/geometry.ts';
import { outerContours } from '../contours.ts';
import { decodeBitmap, readMaskSize } from '../supervisely/bitmap.ts';
import type { ExportObject } from '../writer.ts';

export type YoloTask = 'detect' | 'segment';

export const SKIPPED_LINE_OR_POINT = 'lines and points are left out: YOLO labels are boxes or polygons';
export const SKIPPED_OUTSIDE = 'objects with nothing inside their image are left out';
export const HOLES_DROPPED = 'polygon holes are dropped: a YOLO polygon has none';
export const BOXES_ONLY = 'polygons and bitmaps are written as their boxes: a detection label is a box (task segment keeps their outlines)';
export const BITMAP_HOLES_FILLED = 'holes of bitmaps are filled in: a bitmap is written as the outer contour of each of its pieces';

/** A normalised coordinate: clamped, six decimals (within 5e-7 of the value), no trailing zeros. */
function coordinate(value: number, size: number): string {
  const text = Math.min(1, Math.max(0, value / size)).toFixed(6);
  return text.replace(/\.?0+$/, '') || '0';
}

/** The rows of one object with class id `classId`, and what was changed or left out of it. */
export async function yoloRows(object: ExportObject, shape: ClassShape, classId: number, width: number, height: number, task: YoloTask): Promise<{ rows: string[]; notices: string[] }> {
  if (shape === 'line' || shape === 'point') return { rows: [], notices: [SKIPPED_LINE_OR_POINT] };
  const notices: string[] = [];
  let rings: Point[][];
  if (task === 'detect') {
    rings = [areaPoints(object, shape)];
  } else if (shape === 'bitmap') {
    if (!object.bitmap) return { rows: [], notices: [SKIPPED_OUTSIDE] };
    const [ox, oy] = object.bitmap.origin;
    const mask = await decodeBitmap(object.bitmap.data);
    rings = outerContours(mask).map((ring) => ring.map(([x, y]): Point => [x + ox, y + oy]));
    // The contours enclose the pieces' pixels and their holes: more area than pixels means holes.
    const enclosed = rings.reduce((sum, ring) => sum + shoelaceArea(ring), 0);
    if (enclosed > mask.pixels.reduce((sum, v) => sum + v, 0)) notices.push(BITMAP_HOLES_FILLED);
  } else {
    rings = [shape === 'rectangle' ? corners(object.points.exterior) : object.points.exterior];
    if (object.points.interior.length > 0) notices.push(HOLES_DROPPED);
  }
  if (rings.length === 0) notices.push(SKIPPED_OUTSIDE);
  const rows: string[] = [];
  for (const ring of rings) {
    const [x, y, w, h] = pointsBox(ring);
    const left = Math.max(0, x);
    const top = Math.max(0, y);
    const right = Math.min(width, x + w);
    const bottom = Math.min(height, y + h);
    if (right <= left || bottom <= top) {
      notices.push(SKIPPED_OUTSIDE);
      continue;
    }
    const values =
      task === 'detect'
        ? [coordinate((left + right) / 2, width), coordinate((top + bottom) / 2, height), coordinate(right - left, width), coordinate(bottom - top, height)]
        : ring.flatMap(([px, py]) => [coordinate(px, width), coordinate(py, height)]);
    rows.push(`${classId} ${values.join(' ')}`);
  }
  if (task === 'detect' && rows.length > 0 && (shape === 'polygon' || shape === 'bitmap')) notices.push(BOXES_ONLY);
  return { rows, notices };
}

/** Points whose bounding box is the object's box. */
function areaPoints(object: ExportObject, shape: ClassShape): Point[] {
  if (shape !== 'bitmap') return object.points.exterior;
  if (!object.bitmap) return [];
  const { width, height } = readMaskSize(object.bitmap.data);
  const [x, y] = object.bitmap.origin;
  return [
    [x, y],
    [x + width, y + height],
  ];
}

function corners(box: Point[]): Point[] {
  const [[l, t], [r, b]] = box as [Point, Point];
  return [[l, t], [r, t], [r, b], [l, b]];
}
