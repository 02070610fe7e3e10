// An object's geometry as a COCO instance annotation: segmentation, area, bbox, iscrowd.
//
// - A polygon without holes is one polygon (a flat `[x1, y1, x2, y2, …]`), its area by the shoelace
//   formula.
// - A rectangle is the polygon of its four corners. pycocotools reads a segmentation of `[]` as no
//   polygon at all and fails to make its mask (segm evaluation, annToMask), and detectron2 drops it,
//   which breaks mask training when other objects of the image have masks; four corners are read
//   well by both, and by every tool that reads polygons. So a rectangle comes back as a polygon.
// - A polygon with holes and a bitmap are an uncompressed RLE of the image, `iscrowd: 1` as the
//   reference tools write RLE (detectron2 then leaves them out of training, as it does every crowd
//   region), area and bbox of the mask.
// - Lines and points have no instance geometry in COCO (keypoints need a skeleton per category):
//   they are left out, and counted by the writer.
import type { ClassShape, Point } from '../canonical.ts';
import { fillPolygon, newRaster } from '../raster.ts';
import { decodeBitmap } from '../supervisely/bitmap.ts';
import type { ExportObject } from '../writer.ts';
import { encodeRle } from './mask.ts';

export type Bbox = [number, number, number, number];

export interface CocoGeometry {
  segmentation: number[][] | { size: [number, number]; counts: number[] };
  area: number;
  bbox: Bbox;
  iscrowd: 0 | 1;
}

export const SKIPPED_LINE_OR_POINT = 'lines and points are left out: COCO instances have no geometry for them';
export const SKIPPED_EMPTY_MASK = 'masks with no pixel inside the image are left out';

/** The COCO fields of an object of `shape` on an image of `width` × `height`, or why it has none. */
export async function cocoGeometry(object: ExportObject, shape: ClassShape, width: number, height: number): Promise<CocoGeometry | { skipped: string }> {
  const { exterior, interior } = object.points;
  switch (shape) {
    case 'line':
    case 'point':
      return { skipped: SKIPPED_LINE_OR_POINT };
    case 'rectangle': {
      const [[l, t], [r, b]] = exterior as [Point, Point];
      return { segmentation: [[l, t, r, t, r, b, l, b]], area: (r - l) * (b - t), bbox: [l, t, r - l, b - t], iscrowd: 0 };
    }
    case 'polygon':
      if (interior.length === 0) return { segmentation: [exterior.flat()], area: shoelaceArea(exterior), bbox: pointsBox(exterior), iscrowd: 0 };
      return polygonRle(exterior, interior, width, height);
    case 'bitmap': {
      if (!object.bitmap) return { skipped: SKIPPED_EMPTY_MASK };
      const mask = await decodeBitmap(object.bitmap.data);
      return rleGeometry(encodeRle(mask, object.bitmap.origin[0], object.bitmap.origin[1], width, height), width, height);
    }
  }
}

/** The polygon drawn (holes unset) in the box of its exterior, then encoded over the whole image. */
function polygonRle(exterior: Point[], interior: Point[][], width: number, height: number): CocoGeometry | { skipped: string } {
  const [x, y, w, h] = pointsBox(exterior);
  const left = Math.max(0, Math.floor(x));
  const top = Math.max(0, Math.floor(y));
  const right = Math.min(width, Math.ceil(x + w));
  const bottom = Math.min(height, Math.ceil(y + h));
  if (right <= left || bottom <= top) return { skipped: SKIPPED_EMPTY_MASK };
  const raster = newRaster(right - left, bottom - top);
  fillPolygon(raster, [exterior, ...interior], 1, [left, top]);
  return rleGeometry(encodeRle(raster, left, top, width, height), width, height);
}

function rleGeometry(rle: ReturnType<typeof encodeRle>, width: number, height: number): CocoGeometry | { skipped: string } {
  if (!rle.bbox) return { skipped: SKIPPED_EMPTY_MASK };
  return { segmentation: { size: [height, width], counts: rle.counts }, area: rle.area, bbox: rle.bbox, iscrowd: 1 };
}

export function shoelaceArea(ring: readonly Point[]): number {
  let twice = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) twice += ring[j]![0] * ring[i]![1] - ring[i]![0] * ring[j]![1];
  return Math.abs(twice) / 2;
}

/** `[x, y, width, height]` of the points. */
export function pointsBox(points: readonly Point[]): Bbox {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of points) {
    if (x < minX) minX = x;
    if (y < minY) minY = y;
    if (x > maxX) maxX = x;
    if (y > maxY) maxY = y;
  }
  return [minX, minY, maxX - minX, maxY - minY];
}
