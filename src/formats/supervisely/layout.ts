// Recognises a Supervisely project by its relative paths and pairs each image with its annotation.
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
  metaPath: string;
  datasets: PlannedDataset[];
  /** Paths that play no part in the project (other files at the root, masks, nested folders…). */
  ignored: string[];
}

/** Whether a name ends in one of the image extensions we import, in any case. */
export function isImageName(name: string): boolean {
  const dot = name.lastIndexOf('.');
  return dot > 0 && IMAGE_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

/** Whether relative paths look like a Supervisely project: a meta at the root and a `<dataset>/ann/*.json`. */
export function detect(paths: readonly string[]): boolean {
  const hasMeta = paths.some((p) => (META_FILES as readonly string[]).includes(p));
  return hasMeta && paths.some((p) => classify(p)?.kind === 'annotation');
}

/**
 * Maps a project's relative paths (already checked to be safe) to its meta file and datasets, with
 * `<dataset>/img/<name>` or `<dataset>/<name>` images paired with `<dataset>/ann/<name>.json`.
 * Throws SuperviselyFormatError when there is no meta or a dataset has two images of one name.
 */
export function planProject(paths: readonly string[]): ProjectPlan {
  const metaPath = META_FILES.find((name) => paths.includes(name));
  if (!metaPath) throw new SuperviselyFormatError('', 'no meta.json or classes.json at the root of the project');

  const datasets = new Map<string, { images: Map<string, string>; annotations: Map<string, string> }>();
  const ignored: string[] = [];
  for (const path of paths) {
    if (path === metaPath) continue;
    const entry = classify(path);
    if (!entry) {
      ignored.push(path);
      continue;
    }
    let dataset = datasets.get(entry.dataset);
    if (!dataset) {
      dataset = { images: new Map(), annotations: new Map() };
      datasets.set(entry.dataset, dataset);
    }
    if (entry.kind === 'annotation') {
      dataset.annotations.set(entry.name, path);
      continue;
    }
    const other = dataset.images.get(entry.name);
    if (other !== undefined) {
      const reason = `dataset "${entry.dataset}" already has an image named "${entry.name}" at ${other}`;
      throw new SuperviselyFormatError(path, reason);
    }
    dataset.images.set(entry.name, path);
  }

  return {
    metaPath,
    datasets: [...datasets.entries()].sort(byKey).map(([name, d]) => ({
      name,
      images: [...d.images.entries()].sort(byKey).map(([image, imagePath]) => ({
        name: image,
        imagePath,
        annotationPath: d.annotations.get(image) ?? null,
      })),
      annotationsWithoutImage: [...d.annotations.entries()]
        .sort(byKey)
        .filter(([image]) => !d.images.has(image))
        .map(([, path]) => path),
    })),
    ignored,
  };
}

type Entry = { kind: 'image' | 'annotation'; dataset: string; name: string };

function classify(path: string): Entry | null {
  const parts = path.split('/');
  const [dataset, folder, file] = parts;
  if (dataset === undefined || dataset === '' || folder === undefined || folder === '') return null;
  if (parts.length === 2) return isImageName(folder) ? { kind: 'image', dataset, name: folder } : null;
  if (parts.length !== 3 || file === undefined) return null;
  if (folder === 'img' && isImageName(file)) return { kind: 'image', dataset, name: file };
  if (folder === 'ann' && file.length > '.json'.length && file.toLowerCase().endsWith('.json')) {
    return { kind: 'annotation', dataset, name: file.slice(0, -'.json'.length) };
  }
  return null;
}

const byKey = <T>(a: [string, T], b: [string, T]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
