// Pass 1 of a streamed COCO read (see stream-reader.ts): the file's categories and images, its
// annotations skipped. It needs no annotation conversion, so planning an import (which only wants to
// know the images a file names) runs in a browser as well as in Node.
import type { FormatWarning } from '../canonical.ts';
import { type MemberMode, streamMembers } from '../json-members.ts';
import { KeptWarnings } from '../kept-warnings.ts';
import { CocoFormatError } from './errors.ts';
import { type CocoIndex, addCategory, addImage, cocoSubset, newCocoIndex } from './image-index.ts';

/** Opens the file's bytes, once per pass. */
export type ByteSource = () => Promise<AsyncIterable<Uint8Array>>;

export interface CocoIndexFile {
  path: string;
  subset: string;
  index: CocoIndex;
  /** The first warnings (KEPT_WARNINGS); `moreWarnings` counts the rest. */
  warnings: FormatWarning[];
  moreWarnings: number;
}

const ARRAYS = new Set(['images', 'annotations', 'categories']);

/**
 * One pass over the file: `streamed` members come element by element, the other COCO arrays are
 * skipped, anything else is parsed (so it is checked to be JSON) and dropped.
 */
export async function readPass(
  open: ByteSource,
  path: string,
  streamed: ReadonlySet<string>,
  element: (key: string, index: number, value: unknown) => void,
  afterChunk?: () => Promise<void>,
): Promise<Set<string>> {
  const seen = new Set<string>();
  const mode = (key: string): MemberMode => (streamed.has(key) ? 'elements' : ARRAYS.has(key) ? 'skip' : 'whole');
  const top = await streamMembers(await open(), {
    mode(key) {
      seen.add(key);
      return mode(key);
    },
    element,
    member(key) {
      if (streamed.has(key)) throw new CocoFormatError(path, key, 'must be an array');
    },
    ...(afterChunk ? { afterChunk } : {}),
  });
  if (top === 'array') {
    throw new CocoFormatError(path, '', 'this is a COCO results list (a top-level array of detections), not a dataset with images and categories; import the ground-truth file instead');
  }
  if (top !== 'object') throw new CocoFormatError(path, '', 'a COCO file must be a JSON object with images, annotations and categories');
  return seen;
}

/**
 * Pass 1. `subset` is the file's dataset (see cocoSubsets), by default the one its file name gives.
 * Throws CocoFormatError when the file is not a COCO dataset, JsonLocationError when it is not JSON.
 */
export async function readCocoIndex(open: ByteSource, path: string, subset = cocoSubset(path)): Promise<CocoIndexFile> {
  const warnings = new KeptWarnings<FormatWarning>();
  const warn = (message: string) => warnings.push({ path, message });
  const index = newCocoIndex();
  const seen = await readPass(open, path, new Set(['images', 'categories']), (key, i, value) => {
    if (key === 'images') addImage(index, value, i, warn);
    else addCategory(index, value, i, warn);
  });
  if (!seen.has('images')) throw new CocoFormatError(path, 'images', 'must be an array');
  return { path, subset, index, warnings: warnings.list, moreWarnings: warnings.more };
}
