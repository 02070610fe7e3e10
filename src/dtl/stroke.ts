// Outlines drawn with a width, for the line2bitmap layer. The 2018 DTL drew them with OpenCV's thick
// lines; the rule here is the shape such a line has: a pixel is set when it lies within width/2 of
// the outline, measured between pixels (a point of the outline stands for the pixel it lies in, as
// raster.ts draws one-pixel lines). So a line of width 3 is three pixels across with rounded ends,
// and a line of width 1 sets the pixels it passes through.
import type { ClassShape, Point } from '../formats/canonical.ts';
import type { Raster } from '../formats/raster.ts';
import { decodeBitmap } from '../formats/supervisely/bitmap.ts';

type Pixel = readonly [number, number];

/** Sets the pixels within `radius` of the segment a–b (a single pixel when a is b). */
export function strokeSegment(r: Raster, a: Pixel, b: Pixel, radius: number): void {
  const reach = Math.floor(radius);
  const x0 = Math.max(0, Math.min(a[0], b[0]) - reach);
  const x1 = Math.min(r.width - 1, Math.max(a[0], b[0]) + reach);
  const y0 = Math.max(0, Math.min(a[1], b[1]) - reach);
  const y1 = Math.min(r.height - 1, Math.max(a[1], b[1]) + reach);
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const length2 = dx * dx + dy * dy;
  // A hair over radius², so that pixels at exactly the radius count whatever the rounding.
  const limit = radius * radius + 1e-9;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, ((x - a[0]) * dx + (y - a[1]) * dy) / length2));
      const ex = x - (a[0] + t * dx);
      const ey = y - (a[1] + t * dy);
      if (ex * ex + ey * ey <= limit) r.pixels[y * r.width + x] = 1;
    }
  }
}

const pixelOf = (p: Point): Pixel => [Math.floor(p[0]), Math.floor(p[1])];

function strokePath(r: Raster, points: readonly Point[], closed: boolean, radius: number): void {
  const pixels = points.map(pixelOf);
  if (pixels.length === 1) strokeSegment(r, pixels[0]!, pixels[0]!, radius);
  for (let i = 1; i < pixels.length; i++) strokeSegment(r, pixels[i - 1]!, pixels[i]!, radius);
  if (closed && pixels.length > 2) strokeSegment(r, pixels[pixels.length - 1]!, pixels[0]!, radius);
}

/** What strokeObject draws: a stored object's geometry. */
export interface StrokedObject {
  bitmap: { origin: [number, number]; data: string } | null;
  points: { exterior: Point[]; interior: Point[][] };
}

/**
 * The outline of an object of the given shape, `width` pixels wide: a line along its points; a
 * polygon round each of its rings; a rectangle round its edge pixels; a point as a disc of radius
 * ⌊(width+1)/2⌋, as OpenCV drew it; a bitmap round its boundary pixels (set pixels beside an unset
 * one or the mask's edge).
 */
export async function strokeObject(r: Raster, shape: ClassShape, object: StrokedObject, width: number): Promise<void> {
  const radius = width / 2;
  const { exterior, interior } = object.points;
  switch (shape) {
    case 'line':
      return strokePath(r, exterior, false, radius);
    case 'polygon':
      for (const ring of [exterior, ...interior]) strokePath(r, ring, true, radius);
      return;
    case 'rectangle': {
      if (exterior.length < 2) return;
      const [[l, t], [rt, b]] = exterior as [Point, Point];
      // The rectangle covers [left, right) × [top, bottom): its edge pixels are the first and last it covers.
      const left = Math.floor(Math.min(l, rt));
      const top = Math.floor(Math.min(t, b));
      const right = Math.max(left, Math.ceil(Math.max(l, rt)) - 1);
      const bottom = Math.max(top, Math.ceil(Math.max(t, b)) - 1);
      const corners: Point[] = [
        [left, top],
        [right, top],
        [right, bottom],
        [left, bottom],
      ];
      return strokePath(r, corners, true, radius);
    }
    case 'point':
      if (exterior[0]) strokeSegment(r, pixelOf(exterior[0]), pixelOf(exterior[0]), Math.floor((width + 1) / 2));
      return;
    case 'bitmap': {
      if (!object.bitmap) return;
      const mask = await decodeBitmap(object.bitmap.data);
      const [ox, oy] = object.bitmap.origin;
      const set = (x: number, y: number) => x >= 0 && y >= 0 && x < mask.width && y < mask.height && mask.pixels[y * mask.width + x] === 1;
      for (let y = 0; y < mask.height; y++) {
        for (let x = 0; x < mask.width; x++) {
          if (!set(x, y) || (set(x - 1, y) && set(x + 1, y) && set(x, y - 1) && set(x, y + 1))) continue;
          strokeSegment(r, [x + ox, y + oy], [x + ox, y + oy], radius);
        }
      }
    }
  }
}
