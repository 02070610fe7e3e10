// Which annotation format a set of relative paths holds, from the paths alone: what preset 0 of an
// import decides on the server, and what `annostore import` decides for a folder before it sends a
// byte, so the two never disagree.
import { detect as detectCoco } from './coco/layout.ts';
import { detect as detectVoc, isMaskPath } from './pascal-voc/layout.ts';
import { hasSuperviselyFiles, isImageName } from './supervisely/layout.ts';
import { detect as detectYolo } from './yolo/layout.ts';

export const FOREIGN_FORMATS = ['coco', 'pascal_voc', 'yolo'] as const;
export type ForeignFormat = (typeof FOREIGN_FORMATS)[number];

/** Most specific first: VOC's XMLs and YOLO's descriptions say more than a JSON file does. */
const DETECTORS: readonly [ForeignFormat, (paths: readonly string[]) => boolean][] = [
  ['pascal_voc', detectVoc],
  ['yolo', detectYolo],
  ['coco', detectCoco],
];

/** Whether the paths hold what the format's reader starts from (its annotation or description files). */
export function looksLike(format: ForeignFormat, paths: readonly string[]): boolean {
  return DETECTORS.find(([f]) => f === format)![1](paths);
}

/** Every format the paths may be in, most specific first; none for a Supervisely project. */
export function foreignFormatsOf(paths: readonly string[]): ForeignFormat[] {
  // A Supervisely meta or annotation file says what the folder is more surely than any path below.
  if (hasSuperviselyFiles(paths)) return [];
  return DETECTORS.filter(([, detect]) => detect(paths)).map(([format]) => format);
}

/** The format of preset 0 from the files: their declared `format` first, then their paths. */
export function detectForeignFormat(paths: readonly string[], declared: ReadonlySet<string>): ForeignFormat | null {
  const named = FOREIGN_FORMATS.filter((f) => declared.has(f));
  if (named.length === 1) return named[0]!;
  if (named.length > 1) return null;
  if (hasSuperviselyFiles(paths)) return null;
  return DETECTORS.find(([, detect]) => detect(paths))?.[0] ?? null;
}

/** The images a COCO, VOC or YOLO import takes: image files, but not VOC's segmentation masks. */
export const isForeignImagePath = (path: string): boolean => isImageName(path) && !isMaskPath(path);
