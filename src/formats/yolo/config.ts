// YOLO dataset descriptions: an Ultralytics data YAML (any file name), a Darknet obj.data, obj.names.
import { parse } from 'yaml';
import { joinPath } from '../coco/layout.ts';

/** Invalid YOLO input; `path` is the file and `line` (1-based) the line, where known. */
export class YoloFormatError extends Error {
  readonly path: string;
  readonly line: number | undefined;

  constructor(path: string, reason: string, line?: number) {
    super(`${path}${line ? `:${line}` : ''}: ${reason}`);
    this.name = 'YoloFormatError';
    this.path = path;
    this.line = line;
  }
}

/** A split and what it lists: folders of images or `.txt` files of image paths, relative to the import root. */
export interface YoloSplit {
  name: string;
  entries: string[];
}

export interface YoloConfig {
  path: string;
  /** Class names by index; a gap in a dict of names is filled with `class <i>`. */
  names: string[];
  splits: YoloSplit[];
  /** For obj.data: where its names file is, relative to the import root. */
  namesPath?: string;
}

const SPLIT_KEYS = ['train', 'val', 'valid', 'test', 'minival'];
const dirOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

/** A path from a description resolved against `base`; one that climbs out of the import keeps its inner part. */
export function resolveEntry(base: string, entry: string): string {
  const cleaned = entry.trim().replace(/\\/g, '/');
  if (cleaned.startsWith('/')) return joinPath(cleaned) ?? '';
  const joined = joinPath(base, cleaned);
  if (joined !== null) return joined;
  return joinPath(base, cleaned.replace(/^(\.\.\/)+/, '')) ?? '';
}

/** Reads a data YAML: `names` as a list or a dict, `path:`, and the splits `train`, `val`, `test`. */
export function readDataYaml(text: string, path: string): YoloConfig {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    const line = (error as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    throw new YoloFormatError(path, `not valid YAML (${(error as Error).message.split('\n')[0]})`, line);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new YoloFormatError(path, 'a YOLO data YAML must be a mapping');
  const d = doc as Record<string, unknown>;
  const names = readNamesValue(d.names, path);
  // `path:` is the dataset root; an absolute one is the trainer's machine, so the YAML's folder stands in.
  const root = typeof d.path === 'string' && !d.path.startsWith('/') && !/^[A-Za-z]:/.test(d.path) ? resolveEntry(dirOf(path), d.path) : dirOf(path);
  const splits: YoloSplit[] = [];
  for (const key of SPLIT_KEYS) {
    const value = d[key];
    const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    if (list.length === 0) continue;
    const entries = list.map((e) => resolveEntry(root, e));
    // A split naming the same folders as an earlier one (`val` given as `train`, as Ultralytics needs
    // some `val`) adds no images of its own: its images stay in the earlier split only.
    if (splits.some((s) => s.entries.length === entries.length && s.entries.every((e, i) => e === entries[i]))) continue;
    splits.push({ name: key === 'valid' ? 'val' : key, entries });
  }
  return { path, names, splits };
}

function readNamesValue(value: unknown, path: string): string[] {
  if (Array.isArray(value)) return value.map((v, i) => (v === null || v === undefined || String(v).trim() === '' ? `class ${i}` : String(v)));
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>);
    const names: string[] = [];
    for (const [key, name] of entries) {
      const index = Number(key);
      if (!Number.isSafeInteger(index) || index < 0 || index > 100_000) throw new YoloFormatError(path, `names: "${key}" is not a class index`);
      names[index] = String(name);
    }
    return Array.from(names, (n, i) => n ?? `class ${i}`);
  }
  throw new YoloFormatError(path, 'names must be a list or a mapping of class index to name');
}

/** Reads a Darknet obj.data: `names = …` and the splits `train = …`, `valid = …`, `test = …` (list files). */
export function readObjData(text: string, path: string): YoloConfig {
  const values = new Map<string, string>();
  text.split(/\r?\n/).forEach((line, i) => {
    const content = line.replace(/#.*$/, '').trim();
    if (content === '') return;
    const eq = content.indexOf('=');
    if (eq <= 0) throw new YoloFormatError(path, `expected "key = value", got ${JSON.stringify(content)}`, i + 1);
    values.set(content.slice(0, eq).trim(), content.slice(eq + 1).trim());
  });
  const splits: YoloSplit[] = [];
  for (const key of ['train', 'valid', 'test']) {
    const value = values.get(key);
    if (value) splits.push({ name: key === 'valid' ? 'val' : key, entries: [resolveEntry(dirOf(path), value)] });
  }
  const names = values.get('names');
  return { path, names: [], splits, ...(names ? { namesPath: resolveEntry(dirOf(path), names) } : {}) };
}

/** Class names of an obj.names / classes.txt file: one a line, blank lines skipped. */
export function readNamesFile(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}
