// The index of a COCO file: its categories and images by id, filled in file order. The first pass of
// a streamed read (index-reader.ts) needs only this, so it is kept apart from the annotation
// conversion (reader.ts, mask.ts), which brings in zlib: a browser can plan a COCO import with it.
// Ids are compared as strings: 0, gaps and string ids ("2299" against 2299) all work.
import type { ShapedObject } from '../canonical.ts';

export interface CocoImage {
  /** The image's `id`, as a string. */
  id: string;
  fileName: string;
  width: number | null;
  height: number | null;
  objects: ShapedObject[];
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isId = (v: unknown): v is string | number => (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v !== '');
export const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The dataset a COCO file names: its file name without `.json` and an `instances_` prefix. */
export function cocoSubset(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/\.json$/i, '');
  return base.replace(/^instances_/i, '') || base;
}

/** Categories and images of a COCO file by id, filled in file order. */
export interface CocoIndex {
  categories: Map<string, string>;
  /** Category names in file order, once each. */
  labels: string[];
  images: Map<string, CocoImage>;
}

export const newCocoIndex = (): CocoIndex => ({ categories: new Map(), labels: [], images: new Map() });

/** Adds `categories[i]`; the first of two with the same id wins. */
export function addCategory(index: CocoIndex, c: unknown, i: number, warn: (message: string) => void): void {
  if (!isRecord(c) || !isId(c.id)) return warn(`categories[${i}] has no id; it is ignored`);
  const name = typeof c.name === 'string' && c.name.trim() !== '' ? c.name : `category ${c.id}`;
  if (index.categories.has(String(c.id))) return warn(`categories[${i}]: category id ${c.id} is declared twice; the first one is kept`);
  index.categories.set(String(c.id), name);
  if (!index.labels.includes(name)) index.labels.push(name);
}

/** Adds `images[i]`; the first of two with the same id wins. */
export function addImage(index: CocoIndex, im: unknown, i: number, warn: (message: string) => void): void {
  if (!isRecord(im) || !isId(im.id) || typeof im.file_name !== 'string' || im.file_name === '') {
    return warn(`images[${i}] needs an id and a file_name; it is ignored`);
  }
  const id = String(im.id);
  if (index.images.has(id)) return warn(`images[${i}]: image id ${im.id} is listed twice; the first one is kept`);
  const size = (v: unknown) => (isNumber(v) && v > 0 ? v : null);
  index.images.set(id, { id, fileName: im.file_name, width: size(im.width), height: size(im.height), objects: [] });
}
