// The outer contours of a binary mask, as polygons for formats that have no masks (YOLO segment).
//
// Each 4-connected piece of the mask gives one polygon traced along the pixel edges (the cracks
// between set and unset pixels), with a vertex only where the contour turns. Drawn back with the
// pixel-centre rule of raster.ts, the polygon sets exactly the pixels of its piece with its holes
// filled in (a polygon cannot carry holes in these formats). Where two pixels of a piece meet only at
// a corner, the outside passes between them: the contour touches itself at that corner.
import type { Point } from './canonical.ts';
import type { Raster } from './raster.ts';

// Headings in image coordinates (y down): east, south, west, north. Turning right adds one.
const DX = [1, 0, -1, 0];
const DY = [0, 1, 0, -1];

/** One polygon a 4-connected piece, in the mask's own coordinates (pixel corners), in scan order of the pieces. */
export function outerContours(mask: Raster): Point[][] {
  const { width, height, pixels } = mask;
  const label = new Int32Array(width * height);
  const queue = new Int32Array(width * height);
  const contours: Point[][] = [];
  let id = 0;
  for (let start = 0; start < pixels.length; start++) {
    if (!pixels[start] || label[start]) continue;
    id += 1;
    // Flood the piece, so the trace can tell it from another piece that touches it at a corner.
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    label[start] = id;
    const visit = (n: number) => {
      if (pixels[n] && !label[n]) {
        label[n] = id;
        queue[tail++] = n;
      }
    };
    while (head < tail) {
      const p = queue[head++]!;
      const x = p % width;
      if (x > 0) visit(p - 1);
      if (x < width - 1) visit(p + 1);
      if (p >= width) visit(p - width);
      if (p + width < pixels.length) visit(p + width);
    }
    contours.push(trace(label, width, height, id, start % width, Math.floor(start / width)));
  }
  return contours;
}

/**
 * Walks the contour clockwise with the piece on the right, from the top-left corner of its first
 * pixel in scan order (nothing of the piece lies above or left of it, so that corner is on the outer
 * contour and is passed once).
 */
function trace(label: Int32Array, width: number, height: number, id: number, x0: number, y0: number): Point[] {
  const inside = (x: number, y: number) => x >= 0 && y >= 0 && x < width && y < height && label[y * width + x] === id;
  const points: Point[] = [[x0, y0]];
  let x = x0 + 1;
  let y = y0;
  let heading = 0;
  while (x !== x0 || y !== y0) {
    // The two pixels ahead of the vertex (x, y): on the left and on the right of the heading.
    const aheadLeft = inside(x + (DX[heading]! + DY[heading]! - 1) / 2, y + (DY[heading]! - DX[heading]! - 1) / 2);
    const aheadRight = inside(x + (DX[heading]! - DY[heading]! - 1) / 2, y + (DY[heading]! + DX[heading]! - 1) / 2);
    // No piece ahead on the right: turn right. Piece ahead on both sides: turn left (the piece goes on
    // that way). Otherwise straight on. Pieces that meet only at a corner are thereby kept apart.
    const turn = !aheadRight ? 1 : aheadLeft ? 3 : 0;
    if (turn !== 0) {
      points.push([x, y]);
      heading = (heading + turn) % 4;
    }
    x += DX[heading]!;
    y += DY[heading]!;
  }
  return points;
}
