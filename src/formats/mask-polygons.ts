// Polygons with holes from a binary mask (what the segment tool's model answers), for a class whose
// shape is a polygon.
//
// Each 4-connected piece of the mask gives one polygon whose exterior is traced along the pixel edges
// (the cracks between set and unset pixels), so that drawn back with the pixel-centre rule (raster.ts)
// it sets exactly the pixels of the piece. Each piece of unset pixels that does not reach the mask's
// border is a hole of the piece it lies in, traced the same way. The rings are then simplified with
// Douglas–Peucker to a tolerance in pixels: a staircase of one-pixel steps becomes a few straight
// edges. Pieces and holes smaller than `minArea` pixels (the specks a model leaves) are left out.
// Pure and DOM-free: the editor runs it in the browser, the tests in Node.

export type Point = [number, number];

export interface MaskPolygon {
  exterior: Point[];
  interior: Point[][];
}

export interface BinaryMask {
  width: number;
  height: number;
  /** Row-major, one byte a pixel; non-zero is set. */
  pixels: Uint8Array;
}

export interface PolygonOptions {
  /** Douglas–Peucker tolerance in pixels; 0 keeps every corner of the pixel staircase. */
  tolerance?: number;
  /** Pieces and holes of fewer pixels are left out. */
  minArea?: number;
}

// Headings in image coordinates (y down): east, south, west, north. Turning right adds one.
const DX = [1, 0, -1, 0];
const DY = [0, 1, 0, -1];
const EAST = 0;
const NORTH = 3;

/** The polygons of the mask's pieces, largest first, in the mask's coordinates (pixel corners). */
export function maskToPolygons(mask: BinaryMask, options: PolygonOptions = {}): MaskPolygon[] {
  const { width, height, pixels } = mask;
  const tolerance = options.tolerance ?? 1;
  const minArea = Math.max(1, options.minArea ?? 1);
  const set = (i: number) => pixels[i] !== 0;
  const pieces = labelPieces(width, height, (i) => set(i));
  const gaps = labelPieces(width, height, (i) => !set(i));

  const polygons = new Map<number, { polygon: MaskPolygon; area: number }>();
  for (const piece of pieces.firsts) {
    const label = pieces.labels[piece.first]!;
    if (piece.area < minArea) continue;
    const ring = traceRing(width, height, piece.first, (i) => pieces.labels[i] === label);
    const exterior = simplifyRing(ring, tolerance);
    if (exterior.length >= 3) polygons.set(label, { polygon: { exterior, interior: [] }, area: piece.area });
  }
  for (const gap of gaps.firsts) {
    if (gap.touchesBorder || gap.area < minArea) continue;
    // The pixel above a gap's first pixel (in scan order) is set: the piece the gap is a hole in.
    const owner = polygons.get(pieces.labels[gap.first - width]!);
    if (!owner) continue;
    const label = gaps.labels[gap.first]!;
    const hole = simplifyRing(traceRing(width, height, gap.first, (i) => gaps.labels[i] === label), tolerance);
    if (hole.length >= 3) owner.polygon.interior.push(hole);
  }
  return [...polygons.values()].sort((a, b) => b.area - a.area).map((p) => p.polygon);
}

interface Piece {
  /** Its first pixel in scan order. */
  first: number;
  area: number;
  touchesBorder: boolean;
}

/** 4-connected pieces of the pixels `member` takes: a label per pixel (0 for none) and each piece. */
function labelPieces(width: number, height: number, member: (i: number) => boolean): { labels: Int32Array; firsts: Piece[] } {
  const labels = new Int32Array(width * height);
  const queue = new Int32Array(width * height);
  const firsts: Piece[] = [];
  for (let start = 0; start < labels.length; start++) {
    if (labels[start] || !member(start)) continue;
    const label = firsts.length + 1;
    const piece: Piece = { first: start, area: 0, touchesBorder: false };
    firsts.push(piece);
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    labels[start] = label;
    while (head < tail) {
      const i = queue[head++]!;
      piece.area += 1;
      const x = i % width;
      const y = (i - x) / width;
      if (x === 0 || y === 0 || x === width - 1 || y === height - 1) piece.touchesBorder = true;
      const visit = (n: number) => {
        if (!labels[n] && member(n)) {
          labels[n] = label;
          queue[tail++] = n;
        }
      };
      if (x > 0) visit(i - 1);
      if (x < width - 1) visit(i + 1);
      if (y > 0) visit(i - width);
      if (y < height - 1) visit(i + width);
    }
  }
  return { labels, firsts };
}

/**
 * The outer boundary of the 4-connected piece whose first pixel (in scan order) is `first`, walked
 * along pixel edges with the piece on the right; a vertex where the walk turns.
 */
function traceRing(width: number, height: number, first: number, inPiece: (i: number) => boolean): Point[] {
  const has = (x: number, y: number) => x >= 0 && y >= 0 && x < width && y < height && inPiece(y * width + x);
  const sx = first % width;
  const sy = (first - sx) / width;
  const ring: Point[] = [];
  let x = sx;
  let y = sy;
  // The walk reaches its start going north, up the left edge of the first pixel.
  let heading = NORTH;
  do {
    // The two pixels ahead of the vertex, left and right of the way.
    const [lx, ly, rx, ry] = aheadPixels(x, y, heading);
    let next: number;
    if (!has(rx, ry)) next = (heading + 1) % 4;
    else if (has(lx, ly)) next = (heading + 3) % 4;
    else next = heading;
    if (next !== heading) ring.push([x, y]);
    heading = next;
    x += DX[heading]!;
    y += DY[heading]!;
  } while (x !== sx || y !== sy);
  return ring;
}

/** Of the four pixels around vertex (x, y), the one ahead on the left and the one ahead on the right. */
function aheadPixels(x: number, y: number, heading: number): [number, number, number, number] {
  switch (heading) {
    case EAST:
      return [x, y - 1, x, y];
    case 1: // south
      return [x, y, x - 1, y];
    case 2: // west
      return [x - 1, y, x - 1, y - 1];
    default: // north
      return [x - 1, y - 1, x, y - 1];
  }
}

/**
 * Douglas–Peucker on a closed ring: split at the vertex farthest from the first, simplify each half
 * as a line. Keeps every vertex farther than `tolerance` from the simplified edge.
 */
export function simplifyRing(ring: readonly Point[], tolerance: number): Point[] {
  if (tolerance <= 0 || ring.length <= 4) return ring.slice();
  const [x0, y0] = ring[0]!;
  let far = 0;
  let farDistance = -1;
  for (let i = 1; i < ring.length; i++) {
    const d = (ring[i]![0] - x0) ** 2 + (ring[i]![1] - y0) ** 2;
    if (d > farDistance) {
      farDistance = d;
      far = i;
    }
  }
  const keep = new Uint8Array(ring.length);
  keep[0] = 1;
  keep[far] = 1;
  markKept(ring, 0, far, tolerance, keep);
  markKept(ring, far, ring.length, tolerance, keep);
  return ring.filter((_, i) => keep[i]);
}

/** Marks the vertices strictly between `from` and `to` (an index of ring.length is vertex 0 again). */
function markKept(ring: readonly Point[], from: number, to: number, tolerance: number, keep: Uint8Array): void {
  const stack: [number, number][] = [[from, to]];
  while (stack.length > 0) {
    const [a, b] = stack.pop()!;
    if (b - a < 2) continue;
    const [ax, ay] = ring[a]!;
    const [bx, by] = ring[b % ring.length]!;
    const dx = bx - ax;
    const dy = by - ay;
    const length = Math.hypot(dx, dy);
    let worst = -1;
    let worstDistance = tolerance;
    for (let i = a + 1; i < b; i++) {
      const [px, py] = ring[i]!;
      const d = length === 0 ? Math.hypot(px - ax, py - ay) : Math.abs(dx * (ay - py) - dy * (ax - px)) / length;
      if (d > worstDistance) {
        worstDistance = d;
        worst = i;
      }
    }
    if (worst < 0) continue;
    keep[worst] = 1;
    stack.push([a, worst], [worst, b]);
  }
}
