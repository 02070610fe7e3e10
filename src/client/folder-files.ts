// Which files of a folder an import sends, by format: the Supervisely project and the folder of images
// here, COCO, Pascal VOC and YOLO in foreign-files.ts. Everything else in the folder is left out.
import { isImageName } from '../formats/supervisely/layout.ts';
import type { FileKind } from './folder.ts';

/** What an import sends of a folder, by path. */
export interface Selection {
  /** The files sent, with their kind. */
  kinds: Map<string, FileKind>;
  /** By image, the files read for that image alone: they travel in the image's upload request. */
  companions: Map<string, string[]>;
  /** Files that looked like the format's but are left out, and why. */
  notes: string[];
}

/** Reads a file of the folder by its path inside it. */
export interface FileSource {
  text(path: string): Promise<string>;
  stream(path: string): Promise<AsyncIterable<Buffer>>;
}

const META_FILES = ['meta.json', 'classes.json'];

/** `<dataset>/img/<image>` or `<dataset>/<image>`, `<dataset>/ann/<image>.json`, and the class file. */
export function selectSupervisely(paths: readonly string[]): Selection {
  const metaPath = META_FILES.find((name) => paths.includes(name));
  const kinds = new Map<string, FileKind>();
  for (const p of paths) {
    const parts = p.split('/');
    if (p === metaPath) kinds.set(p, 'class');
    else if (parts.length === 2 && isImageName(parts[1]!)) kinds.set(p, 'image');
    else if (parts.length === 3 && parts[1] === 'img' && isImageName(parts[2]!)) kinds.set(p, 'image');
    else if (parts.length === 3 && parts[1] === 'ann' && parts[2]!.toLowerCase().endsWith('.json') && parts[2]!.length > 5) kinds.set(p, 'annotation');
  }
  const companions = new Map<string, string[]>();
  for (const [p, kind] of kinds) {
    if (kind !== 'image') continue;
    const parts = p.split('/');
    const annotation = `${parts[0]}/ann/${parts[parts.length - 1]}.json`;
    if (kinds.get(annotation) === 'annotation') companions.set(p, [annotation]);
  }
  return { kinds, companions, notes: [] };
}

/** Images at the root, in `<dataset>/` or in `<dataset>/img/`. */
export function selectImages(paths: readonly string[]): Selection {
  const kinds = new Map<string, FileKind>();
  for (const p of paths) {
    const parts = p.split('/');
    if (!isImageName(parts[parts.length - 1]!)) continue;
    if (parts.length <= 2 || (parts.length === 3 && parts[1] === 'img')) kinds.set(p, 'image');
  }
  return { kinds, companions: new Map(), notes: [] };
}
