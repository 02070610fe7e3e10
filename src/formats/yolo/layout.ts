// Which YOLO images go to which dataset (split), and which label file belongs to each image.
import type { FormatWarning } from '../canonical.ts';
import { joinPath } from '../coco/layout.ts';
import type { YoloConfig } from './config.ts';

export interface YoloImage {
  name: string;
  imagePath: string;
  labelPath: string | null;
}

export interface YoloDataset {
  name: string;
  images: YoloImage[];
}

const lower = (p: string) => p.toLowerCase();
const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const stemOf = (p: string) => p.replace(/\.[^./]*$/, '');

/** The description files among the paths: data YAMLs, Darknet obj.data, names files. */
export function findDescriptions(paths: readonly string[]) {
  return {
    yaml: paths.filter((p) => /\.ya?ml$/i.test(p)),
    objData: paths.filter((p) => /\.data$/i.test(p)),
    names: paths.filter((p) => /\.names$/i.test(p) || /(^|\/)classes\.txt$/i.test(p)),
  };
}

/** Whether the paths look like a YOLO dataset: a data YAML, obj.data or obj.names, or `labels/*.txt`. */
export function detect(paths: readonly string[]): boolean {
  const d = findDescriptions(paths);
  return d.yaml.length + d.objData.length + d.names.length > 0 || paths.some((p) => /(^|\/)labels\/(.+\/)?[^/]+\.txt$/i.test(p));
}

/** The label file of an image: `…/images/…/x.jpg` → `…/labels/…/x.txt`, else `x.txt` beside it. */
export function labelFor(imagePath: string, texts: ReadonlySet<string>): string | null {
  const stem = stemOf(imagePath);
  const parts = stem.split('/');
  const at = parts.lastIndexOf('images');
  const candidates = [];
  if (at >= 0) candidates.push([...parts.slice(0, at), 'labels', ...parts.slice(at + 1)].join('/') + '.txt');
  candidates.push(`${stem}.txt`);
  return candidates.find((c) => texts.has(c)) ?? null;
}

/** The split an image's path names: `images/<split>/x`, `<split>/images/x`, else its folder, else `train`. */
function splitFromPath(imagePath: string): string {
  const parts = imagePath.split('/').slice(0, -1);
  const at = parts.lastIndexOf('images');
  if (at >= 0 && at + 1 < parts.length) return parts[at + 1]!;
  if (at > 0) return parts[at - 1]!;
  if (at < 0 && parts.length > 0) return parts[parts.length - 1]!;
  return 'train';
}

/**
 * Groups the images into datasets, one per split of the description (an image in the folders or
 * list files of several splits is in each); an image no split names goes to the split its path names.
 * `listFile` answers the text of an uploaded list file, if any.
 */
export function planYolo(
  imagePaths: readonly string[],
  textPaths: readonly string[],
  config: YoloConfig | null,
  listFile: (path: string) => string | undefined,
): { datasets: YoloDataset[]; warnings: FormatWarning[] } {
  const texts = new Set(textPaths);
  const warnings: FormatWarning[] = [];
  const byLower = new Map(imagePaths.map((p) => [lower(p), p]));
  const membership = new Map<string, string[]>();
  const add = (imagePath: string, split: string) => {
    const list = membership.get(imagePath) ?? [];
    if (!list.includes(split)) list.push(split);
    membership.set(imagePath, list);
  };
  for (const split of config?.splits ?? []) {
    for (const entry of split.entries) {
      const listed = /\.txt$/i.test(entry) ? listFileFor(entry, texts, listFile) : undefined;
      if (listed !== undefined) {
        listed.text.split(/\r?\n/).forEach((line, i) => {
          const wanted = line.trim();
          if (wanted === '') return;
          const found = matchListed(wanted, listed.path, byLower);
          if (found) add(found, split.name);
          else warnings.push({ path: listed.path, line: i + 1, message: `image ${JSON.stringify(wanted)} is not among the uploaded files` });
        });
        continue;
      }
      const prefix = entry === '' ? '' : `${lower(entry)}/`;
      for (const p of imagePaths) if (lower(p).startsWith(prefix)) add(p, split.name);
    }
  }
  const datasets = new Map<string, YoloDataset>();
  for (const imagePath of imagePaths) {
    const splits = membership.get(imagePath) ?? [splitFromPath(imagePath)];
    for (const split of splits) {
      let dataset = datasets.get(split);
      if (!dataset) datasets.set(split, (dataset = { name: split, images: [] }));
      const name = baseName(imagePath);
      const other = dataset.images.find((i) => i.name === name);
      if (other) {
        warnings.push({ path: imagePath, message: `dataset "${split}" already has an image named "${name}" (${other.imagePath}); this one is skipped` });
        continue;
      }
      dataset.images.push({ name, imagePath, labelPath: labelFor(imagePath, texts) });
    }
  }
  return { datasets: [...datasets.values()], warnings };
}

/**
 * The list files the description's splits may name, all of which an import reads: for each `.txt`
 * entry, each of its trailing paths that is among the texts (Darknet writes `data/train.txt` for a
 * `train.txt` beside obj.data).
 */
export function splitListFiles(config: YoloConfig | null, texts: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  for (const split of config?.splits ?? []) {
    for (const entry of split.entries) {
      if (!/\.txt$/i.test(entry)) continue;
      const parts = entry.split('/');
      for (let i = 0; i < parts.length; i++) {
        const candidate = parts.slice(i).join('/');
        if (texts.has(candidate)) found.add(candidate);
      }
    }
  }
  return [...found];
}

/** A split's list file as uploaded; Darknet's `data/` prefix is dropped when the file is not found with it. */
function listFileFor(entry: string, texts: ReadonlySet<string>, listFile: (path: string) => string | undefined) {
  const parts = entry.split('/');
  for (let i = 0; i < parts.length; i++) {
    const path = parts.slice(i).join('/');
    if (!texts.has(path)) continue;
    const text = listFile(path);
    if (text !== undefined) return { path, text };
  }
  return undefined;
}

/** An image a list file names: as written, from the list's folder, or by its trailing path segments. */
function matchListed(wanted: string, listPath: string, byLower: Map<string, string>): string | undefined {
  const dir = listPath.includes('/') ? listPath.slice(0, listPath.lastIndexOf('/')) : '';
  const tries = [joinPath(wanted.replace(/^\.?\//, '')), joinPath(dir, wanted)];
  for (const t of tries) if (t && byLower.has(lower(t))) return byLower.get(lower(t));
  const parts = wanted.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
  for (let i = 1; i < parts.length; i++) {
    const found = byLower.get(lower(parts.slice(i).join('/')));
    if (found) return found;
  }
  return undefined;
}
