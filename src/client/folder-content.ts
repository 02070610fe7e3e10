// What `annostore import DIR` sends: the folder's format (folder-format.ts) and, of its files, the
// ones an import of that format reads, each with its kind (folder-files.ts, foreign-files.ts).
import fsp from 'node:fs/promises';
import { type ForeignFormat, looksLike } from '../formats/detect-format.ts';
import { type FolderFormat, PRESETS, chooseFormat, nothingToImport } from './folder-format.ts';
import { type FileSource, type Selection, selectImages, selectSupervisely } from './folder-files.ts';
import { type FolderFile, type FoundFile, FolderError, cannotRead, listFolder } from './folder.ts';

export interface FolderContent {
  root: string;
  format: FolderFormat;
  /** The preset the import is started with. */
  preset: number;
  files: FolderFile[];
  /** By image, the files read for it alone (its annotation, its masks). */
  companions: Map<FolderFile, FolderFile[]>;
  /** The folder's other files, left out. */
  ignored: string[];
  /** What the user should know of the folder's files: those left out and why, or how the folder was taken. */
  notes: string[];
}

function sourceOf(found: readonly FoundFile[]): FileSource {
  const absolute = new Map(found.map((f) => [f.path, f.absolute]));
  return {
    async text(path) {
      try {
        return await fsp.readFile(absolute.get(path)!, 'utf8');
      } catch (error) {
        throw cannotRead(absolute.get(path)!, error);
      }
    },
    async stream(path) {
      // Opened here, so that a file that cannot be read says so rather than failing a parser midway.
      let handle;
      try {
        handle = await fsp.open(absolute.get(path)!, 'r');
      } catch (error) {
        throw cannotRead(absolute.get(path)!, error);
      }
      return handle.createReadStream();
    },
  };
}

async function select(format: FolderFormat, paths: readonly string[], source: FileSource): Promise<Selection> {
  if (format === 'supervisely') return selectSupervisely(paths);
  if (format === 'images') return selectImages(paths);
  // The format readers are loaded for the folders that need them, so that other imports start sooner.
  const { selectForeign } = await import('./foreign-files.ts');
  return selectForeign(format, paths, source);
}

/**
 * Lists what an import of `dir` sends. `preset` 1 to 5 chooses the format; without one (or 0) the
 * folder decides (see chooseFormat), and a VOC or YOLO folder whose annotations pair with no image is
 * taken as a folder of images.
 */
export async function readFolder(dir: string, preset?: number): Promise<FolderContent> {
  const { root, found } = await listFolder(dir);
  const paths = found.map((f) => f.path);
  let format = chooseFormat(root, paths, preset);
  let selection = await select(format, paths, sourceOf(found));
  if (!preset && (format === 'pascal_voc' || format === 'yolo') && selection.companions.size === 0) {
    // Found by a stray file (a settings.xml, a CI workflow's .yml) that pairs with no image: the
    // folder is a folder of images, and taken as VOC or YOLO it would lose its datasets.
    const stray = paths.filter((p) => looksLike(format as ForeignFormat, [p])).slice(0, 3).join(', ');
    format = 'images';
    selection = selectImages(paths);
    selection.notes.push(`${stray}: no image has an annotation of that format beside it; imported as a folder of images`);
  }
  const files: FolderFile[] = [];
  const byPath = new Map<string, FolderFile>();
  const ignored: string[] = [];
  for (const f of found) {
    const kind = selection.kinds.get(f.path);
    if (!kind) {
      ignored.push(f.path);
      continue;
    }
    const file = { ...f, kind };
    files.push(file);
    byPath.set(f.path, file);
  }
  if (!files.some((f) => f.kind === 'image')) throw new FolderError(nothingToImport(root, format, preset, selection.notes));
  const companions = new Map<FolderFile, FolderFile[]>();
  for (const [image, own] of selection.companions) companions.set(byPath.get(image)!, own.map((p) => byPath.get(p)!));
  return { root, format, preset: PRESETS[format], files, companions, ignored, notes: selection.notes };
}
