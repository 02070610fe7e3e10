// Where a COCO file's images are: next to it by `file_name`, or in the usual image folders.

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
