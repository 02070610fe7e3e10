// What the statistics and the filters need to know of an image's objects, per class: how many, the
// extremes of their boxes, and three small fixed histograms (box area, box aspect, where the box
// centre sits on a grid over the image). Kept as one row per image and class (image_classes), written
// with every write of the objects, so a statistic or a filter reads a few integers per image and
// class instead of parsing the objects of every image.
import { scanBoxes } from './object-boxes-scan.ts';
import { readMaskSize } from './supervisely/bitmap.ts';

/** Upper edges of the box area bins, as the side of a square (px): 8² … 512², then one bin above. */
export const AREA_EDGES = [8, 16, 32, 64, 96, 128, 256, 512] as const;
/** Upper edges of the box aspect (width ÷ height) bins, then one bin above. */
export const ASPECT_EDGES = [0.25, 0.5, 0.75, 4 / 3, 2, 4] as const;
/** The grid of box centres: GRID × GRID cells over the image, row by row from the top left. */
export const GRID = 4;

export const AREA_BINS = AREA_EDGES.length + 1;
export const ASPECT_BINS = ASPECT_EDGES.length + 1;
export const GRID_CELLS = GRID * GRID;

/** One class's objects on one image. */
export interface ClassSummary {
  classId: number;
  objects: number;
  /** Smallest and largest box area (px², rounded). */
  minArea: number;
  maxArea: number;
  /** Smallest longer side of a box: an object fits in S × S exactly when S ≥ this. */
  minSide: number;
  /** Largest shorter side of a box: an object covers S × S exactly when S ≤ this. */
  maxSide: number;
  area: number[];
  aspect: number[];
  grid: number[];
}

export interface ImageSummary {
  /** Every object of the image, of a known class or not. */
  objects: number;
  classes: ClassSummary[];
}

interface StoredObject {
  classTitle: string;
  bitmap: { origin: [number, number]; data: string } | null;
  points: { exterior: [number, number][] };
}

interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The box of an object: of its points, or of its mask (origin and the PNG's size). */
function boxOf(o: StoredObject): Box {
  if (o.bitmap) {
    let size = { width: 0, height: 0 };
    try {
      size = readMaskSize(o.bitmap.data);
    } catch {
      // A mask that does not decode counts as a point at its origin: the summary must not refuse a write.
    }
    return { left: o.bitmap.origin[0], top: o.bitmap.origin[1], ...size };
  }
  const points = o.points.exterior;
  if (points.length === 0) return { left: 0, top: 0, width: 0, height: 0 };
  let l = Infinity;
  let t = Infinity;
  let r = -Infinity;
  let b = -Infinity;
  for (const [x, y] of points) {
    if (x < l) l = x;
    if (x > r) r = x;
    if (y < t) t = y;
    if (y > b) b = y;
  }
  return { left: l, top: t, width: r - l, height: b - t };
}

function binOf(value: number, edges: readonly number[]): number {
  let i = 0;
  while (i < edges.length && value >= edges[i]!) i += 1;
  return i;
}

const clampCell = (v: number) => Math.min(GRID - 1, Math.max(0, Math.floor(v * GRID)));

/**
 * The objects of an image as its summary reads them: each object's class title and box (left, top,
 * width, height at 4 × i in `boxes`). An import's annotation threads make these beside the objects'
 * text, so the thread that writes the rows only bins numbers.
 */
export interface ObjectBoxes {
  titles: string[];
  boxes: Float64Array;
}

/** The boxes of stored objects (images.objects_json). */
export function boxesOf(objectsJson: string): ObjectBoxes {
  if (objectsJson === '[]') return { titles: [], boxes: new Float64Array(0) };
  const scanned = scanBoxes(objectsJson);
  if (scanned) return { titles: scanned.titles, boxes: Float64Array.from(scanned.boxes) };
  return parsedBoxes(objectsJson);
}

/** The boxes of stored objects, parsed whole: what scanBoxes declines (tags, bitmaps, escapes). */
export function parsedBoxes(objectsJson: string): ObjectBoxes {
  const objects = JSON.parse(objectsJson) as StoredObject[];
  const boxes = new Float64Array(objects.length * 4);
  objects.forEach((o, i) => {
    const box = boxOf(o);
    boxes.set([box.left, box.top, box.width, box.height], i * 4);
  });
  return { titles: objects.map((o) => o.classTitle), boxes };
}

/**
 * The summary of stored objects (images.objects_json) on an image of `width` × `height`. Objects of a
 * title `classIdOf` does not know count in `objects` but in no class.
 */
export const summariseObjects = (objectsJson: string, width: number, height: number, classIdOf: ReadonlyMap<string, number>): ImageSummary =>
  summariseBoxes(boxesOf(objectsJson), width, height, classIdOf);

/** The summary of objects by their boxes (see summariseObjects). */
export function summariseBoxes({ titles, boxes }: ObjectBoxes, width: number, height: number, classIdOf: ReadonlyMap<string, number>): ImageSummary {
  if (titles.length === 0) return { objects: 0, classes: [] };
  const byClass = new Map<number, ClassSummary>();
  titles.forEach((title, i) => {
    const classId = classIdOf.get(title);
    if (classId === undefined) return;
    const box = { left: boxes[i * 4]!, top: boxes[i * 4 + 1]!, width: boxes[i * 4 + 2]!, height: boxes[i * 4 + 3]! };
    const area = Math.round(box.width * box.height);
    const longer = Math.round(Math.max(box.width, box.height));
    const shorter = Math.round(Math.min(box.width, box.height));
    let s = byClass.get(classId);
    if (!s) {
      s = {
        classId,
        objects: 0,
        minArea: area,
        maxArea: area,
        minSide: longer,
        maxSide: shorter,
        area: new Array<number>(AREA_BINS).fill(0),
        aspect: new Array<number>(ASPECT_BINS).fill(0),
        grid: new Array<number>(GRID_CELLS).fill(0),
      };
      byClass.set(classId, s);
    }
    s.objects += 1;
    s.minArea = Math.min(s.minArea, area);
    s.maxArea = Math.max(s.maxArea, area);
    s.minSide = Math.min(s.minSide, longer);
    s.maxSide = Math.max(s.maxSide, shorter);
    s.area[binOf(Math.sqrt(box.width * box.height), AREA_EDGES)]! += 1;
    // A box of no height is as wide as can be; a box of neither is a square (a point).
    const aspect = box.height > 0 ? box.width / box.height : box.width > 0 ? Infinity : 1;
    s.aspect[binOf(aspect, ASPECT_EDGES)]! += 1;
    const cx = width > 0 ? (box.left + box.width / 2) / width : 0;
    const cy = height > 0 ? (box.top + box.height / 2) / height : 0;
    s.grid[clampCell(cy) * GRID + clampCell(cx)]! += 1;
  });
  return { objects: titles.length, classes: [...byClass.values()].sort((a, b) => a.classId - b.classId) };
}

/** The columns of image_classes that hold the histograms, in bin order. */
export const AREA_COLUMNS = Array.from({ length: AREA_BINS }, (_, i) => `area_${i}`);
export const ASPECT_COLUMNS = Array.from({ length: ASPECT_BINS }, (_, i) => `aspect_${i}`);
export const GRID_COLUMNS = Array.from({ length: GRID_CELLS }, (_, i) => `grid_${i}`);
