// Recognises a Supervisely project by its relative paths and pairs each image with its annotation.
import { stemOf } from '../archive-names.ts';
import { SuperviselyFormatError } from './errors.ts';

const IMAGE_EXTENSIONS = new Set(['jpg', 'jpeg', 'png', 'bmp', 'webp', 'tif', 'tiff', 'gif']);
const META_FILES = ['meta.json', 'classes.json'] as const;

export interface PlannedImage {
  name: string;
  imagePath: string;
  annotationPath: string | null;
}

export interface PlannedDataset {
  name: string;
  images: PlannedImage[];
  /** Annotation files with no image of that name in the dataset. */
  annotationsWithoutImage: string[];
}

export interface ProjectPlan {
  /** Null only when the meta was not required (see planProject). */
  metaPath: string | null;
  datasets: PlannedDataset[];
  /** Paths that play no part in the project (other files at the root, masks, nested folders…). */
  ignored: string[];
}

/** Whether a name ends in one of the image extensions we import, in any case. */
export function isImageName(name: string): boolean {
  const dot = name.lastIndexOf('.');
  return dot > 0 && IMAGE_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

const isMetaPath = (p: string): boolean => (META_FILES as readonly string[]).includes(p);
const isAnnotationPath = (p: string): boolean => classify(p)?.kind === 'annotation';

/**
 * The dataset an image of an images-only import goes to: `<dataset>/img/<name>` or `<dataset>/<name>`
 * gives `<dataset>`, an image at the root `ds0`; null for any other path or a file that is no image.
 */
export function imagesOnlyDataset(path: string): string | null {
  const parts = path.split('/');
  if (!isImageName(parts[parts.length - 1]!)) return null;
  if (parts.length === 1) return 'ds0';
  return parts.length === 2 || (parts.length === 3 && parts[1] === 'img') ? parts[0]! : null;
}

/** Whether relative paths look like a Supervisely project: a meta at the root and a `<dataset>/ann/*.json`. */
export function detect(paths: readonly string[]): boolean {
  return paths.some(isMetaPath) && paths.some(isAnnotationPath);
}

/**
 * Whether relative paths carry anything of Supervisely's own: a meta at the root or a
 * `<dataset>/ann/*.json`. Annotation files without a meta are still Supervisely annotations (a second
 * import into a project that has its classes), not a folder of images whose extra files are ignored.
 */
export function hasSuperviselyFiles(paths: readonly string[]): boolean {
  return paths.some((p) => isMetaPath(p) || isAnnotationPath(p));
}

/**
 * Maps a project's relative paths (already checked to be safe) to its meta file and datasets, with
 * `<dataset>/img/<name>` or `<dataset>/<name>` images paired with `<dataset>/ann/<name>.json`, or
 * else with `<dataset>/ann/<stem>.json` (the 2018 layout names annotations without the image's
 * extension) when no other image of the dataset has that stem.
 * Throws SuperviselyFormatError when a dataset has two images of one name, or when there is no meta
 * and `requireMeta` (the default) says there must be one.
 */
export function planProject(paths: readonly string[], { requireMeta = true }: { requireMeta?: boolean } = {}): ProjectPlan {
  const metaPath = META_FILES.find((name) => paths.includes(name)) ?? null;
  if (!metaPath && requireMeta) throw new SuperviselyFormatError('', 'no meta.json or classes.json at the root of the project');

  const datasets = new Map<string, DatasetFiles>();
  const ignored: string[] = [];
  // The files of a dataset mostly come one after another: the last dataset is found by its prefix,
  // without cutting its name out of every path and looking it up (an import has 200,000 paths).
  let last: DatasetFiles | null = null;
  for (const path of paths) {
    if (path === metaPath) continue;
    const entry = classify(path);
    if (!entry) {
      ignored.push(path);
      continue;
    }
    let dataset: DatasetFiles | undefined = last !== null && last.name.length === entry.datasetEnd && path.startsWith(last.name) ? last : undefined;
    if (!dataset) {
      const name = path.slice(0, entry.datasetEnd);
      dataset = datasets.get(name);
      if (!dataset) datasets.set(name, (dataset = { name, images: new Map(), annotations: new Map() }));
    }
    last = dataset;
    if (entry.kind === 'annotation') {
      dataset.annotations.set(entry.name, path);
      continue;
    }
    const other = dataset.images.get(entry.name);
    if (other !== undefined) {
      const reason = `dataset "${dataset.name}" already has an image named "${entry.name}" at ${other}`;
      throw new SuperviselyFormatError(path, reason);
    }
    dataset.images.set(entry.name, path);
  }
  return { metaPath, datasets: [...datasets.values()].sort(byName).map(plannedDataset), ignored };
}

interface DatasetFiles {
  name: string;
  /** Image name → path. */
  images: Map<string, string>;
  /** Image name (the annotation file's name without `.json`) → path. */
  annotations: Map<string, string>;
}

function plannedDataset({ name, images, annotations }: DatasetFiles): PlannedDataset {
  const planned: PlannedImage[] = [];
  const used = new Set<string>();
  /** Images without an annotation of their name, by stem. */
  const byStem = new Map<string, PlannedImage[]>();
  images.forEach((imagePath, image) => {
    const annotationPath = annotations.get(image) ?? null;
    const entry: PlannedImage = { name: image, imagePath, annotationPath };
    planned.push(entry);
    if (annotationPath !== null) used.add(image);
    else byStem.set(stemOf(image), [...(byStem.get(stemOf(image)) ?? []), entry]);
  });
  byStem.forEach((entries, stem) => {
    const path = annotations.get(stem);
    if (entries.length !== 1 || path === undefined || used.has(stem)) return;
    entries[0]!.annotationPath = path;
    used.add(stem);
  });
  const alone: { name: string; path: string }[] = [];
  annotations.forEach((path, image) => {
    if (!used.has(image)) alone.push({ name: image, path });
  });
  return { name, images: planned.sort(byName), annotationsWithoutImage: alone.sort(byName).map((a) => a.path) };
}

/** A path of a dataset: its kind, the image's name, and where the dataset's name ends in the path. */
type Entry = { kind: 'image' | 'annotation'; name: string; datasetEnd: number };

function classify(path: string): Entry | null {
  const first = path.indexOf('/');
  if (first <= 0) return null;
  const second = path.indexOf('/', first + 1);
  if (second < 0) {
    const name = path.slice(first + 1);
    return isImageName(name) ? { kind: 'image', name, datasetEnd: first } : null;
  }
  if (second === first + 1 || path.indexOf('/', second + 1) >= 0) return null;
  const file = path.slice(second + 1);
  const folderLength = second - first - 1;
  if (folderLength === 3 && path.startsWith('img', first + 1) && isImageName(file)) return { kind: 'image', name: file, datasetEnd: first };
  if (folderLength === 3 && path.startsWith('ann', first + 1) && file.length > '.json'.length && file.toLowerCase().endsWith('.json')) {
    return { kind: 'annotation', name: file.slice(0, -'.json'.length), datasetEnd: first };
  }
  return null;
}

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
