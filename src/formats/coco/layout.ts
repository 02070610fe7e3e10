// Where a COCO file's images are: next to it by `file_name`, or in the usual image folders; which
// dataset each of several COCO files is.
import { cocoSubset } from './image-index.ts';

const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** Whether the relative paths hold something that can be a COCO instances file. */
export function detect(paths: readonly string[]): boolean {
  return paths.some((p) => /\.json$/i.test(p) && !/(^|\/)(meta|classes)\.json$/i.test(p) && !/(^|\/)ann\/[^/]+\.json$/i.test(p));
}

/** Joins relative path pieces, resolving `.` and `..`; null when the result leaves the root. */
export function joinPath(...pieces: string[]): string | null {
  const out: string[] = [];
  for (const segment of pieces.join('/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(segment);
  }
  return out.join('/');
}

/**
 * The paths an image of `fileName` listed in the COCO file at `jsonPath` may have, most likely first:
 * relative to the file, then `images/<subset>/`, `images/`, `data/`, `<subset>/`, beside the file and
 * one folder up (the `annotations/` + `images/` layout).
 */
export function imageCandidates(jsonPath: string, subset: string, fileName: string): string[] {
  const dir = jsonPath.includes('/') ? jsonPath.slice(0, jsonPath.lastIndexOf('/')) : '';
  const name = fileName.replace(/\\/g, '/');
  const folders = [`images/${subset}`, 'images', 'data', subset, 'img', 'JPEGImages'];
  const bases = [dir, joinPath(dir, '..'), ''];
  const candidates = [joinPath(dir, name)];
  for (const base of bases) {
    if (base === null) continue;
    for (const folder of folders) candidates.push(joinPath(base, folder, name));
  }
  return [...new Set(candidates.filter((c): c is string => c !== null && c !== ''))];
}

const fileKey = (p: string) => baseName(p).toLowerCase();

/**
 * The dataset of each COCO file: the subset its file name gives (`instances_val2017.json` →
 * `val2017`), unless other files share that file name. Then the name says nothing (Roboflow writes
 * `train/_annotations.coco.json`, `valid/…`, `test/…`) and the folder the file is in names its split,
 * passing over an `annotations` folder; a file at the root keeps its file name.
 */
export function cocoSubsets(jsonPaths: readonly string[]): Map<string, string> {
  const sharing = new Map<string, number>();
  for (const p of jsonPaths) sharing.set(fileKey(p), (sharing.get(fileKey(p)) ?? 0) + 1);
  const subsets = new Map<string, string>();
  for (const p of jsonPaths) {
    const folders = p.split('/').slice(0, -1);
    if (folders.length > 0 && folders[folders.length - 1]!.toLowerCase() === 'annotations') folders.pop();
    const folder = folders[folders.length - 1];
    subsets.set(p, sharing.get(fileKey(p))! > 1 && folder ? folder : cocoSubset(p));
  }
  return subsets;
}

/**
 * Finds the uploaded image a COCO file names: at one of the usual places, else the one upload whose
 * path ends with the name, else the one with the same base name.
 */
export function imageFinder(imagePaths: readonly string[]): (jsonPath: string, subset: string, fileName: string) => string | null {
  const imageSet = new Set(imagePaths);
  const byBase = new Map<string, string[]>();
  for (const p of imagePaths) {
    const list = byBase.get(baseName(p));
    if (list) list.push(p);
    else byBase.set(baseName(p), [p]);
  }
  return (jsonPath, subset, fileName) => {
    for (const c of imageCandidates(jsonPath, subset, fileName)) if (imageSet.has(c)) return c;
    const name = fileName.replace(/\\/g, '/');
    // A path that ends with the name has its base name, so the list of that base name holds them all.
    const sameBase = byBase.get(baseName(name)) ?? [];
    const bySuffix = sameBase.filter((p) => p === name || p.endsWith(`/${name}`));
    if (bySuffix.length === 1) return bySuffix[0]!;
    return sameBase.length === 1 ? sameBase[0]! : null;
  };
}

/**
 * The images among `imagePaths` that imageFinder may answer for these file names: every image of a
 * name's base name, since the finder looks at no other. An import sent these alone finds the same
 * image for each name as one sent every image.
 */
export function imagesNamed(imagePaths: readonly string[], fileNames: Iterable<string>): string[] {
  const bases = new Set<string>();
  for (const name of fileNames) bases.add(baseName(name.replace(/\\/g, '/')));
  return imagePaths.filter((p) => bases.has(baseName(p)));
}
