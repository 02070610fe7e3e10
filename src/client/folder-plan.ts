// What an import of a folder sends, planned from the folder's paths and, where a format needs it, the
// text of a few of its files: the format (folder-format.ts) and, of its files, the ones an import of
// that format reads, each with its kind (folder-files.ts, foreign-files.ts). Nothing here touches a
// disk: `annostore import` gives it the files of a folder it walked (folder-content.ts), the web
// interface the files of a folder dropped on the page (web/folder-import.ts).
import { type ForeignFormat, looksLike } from '../formats/detect-format.ts';
import { type FolderFormat, type FormatChoice, PRESETS, chooseFormat, nothingToImport, presetOption } from './folder-format.ts';
import { FolderError } from './folder-error.ts';
import { type FileKind, type FileSource, type Selection, selectImages, selectSupervisely } from './folder-files.ts';

export { FolderError } from './folder-error.ts';
export type { FileKind, FileSource } from './folder-files.ts';

/** A file of the folder, before the import has chosen it. */
export interface ListedFile {
  /** Path inside the folder, with forward slashes: the `path` of the import. */
  path: string;
  size: number;
}

/** A file the import sends, with its kind. */
export type Planned<F extends ListedFile> = F & { kind: FileKind };

export interface FolderPlan<F extends ListedFile> {
  root: string;
  format: FolderFormat;
  /** The preset the import is started with. */
  preset: number;
  files: Planned<F>[];
  /** By image, the files read for it alone (its annotation, its masks). */
  companions: Map<Planned<F>, Planned<F>[]>;
  /** The folder's other files, left out. */
  ignored: string[];
  /** What the user should know of the folder's files: those left out and why, or how the folder was taken. */
  notes: string[];
}

async function select(format: FolderFormat, paths: readonly string[], source: FileSource): Promise<Selection> {
  if (format === 'supervisely') return selectSupervisely(paths);
  if (format === 'images') return selectImages(paths);
  // The format readers are loaded for the folders that need them, so that other imports start sooner.
  const { selectForeign } = await import('./foreign-files.ts');
  return selectForeign(format, paths, source);
}

/**
 * Plans an import of the files `found` of the folder `root` (named in messages). `preset` 1 to 5
 * chooses the format; without one (or 0) the folder decides (see chooseFormat), and a VOC or YOLO
 * folder whose annotations pair with no image is taken as a folder of images. Throws FolderError
 * when the folder gives nothing to import or holds several formats; `choice` says there how the
 * user picks one.
 */
export async function planFolder<F extends ListedFile>(
  root: string,
  found: readonly F[],
  source: FileSource,
  preset?: number,
  choice: FormatChoice = presetOption,
): Promise<FolderPlan<F>> {
  const paths = found.map((f) => f.path);
  let format = chooseFormat(root, paths, preset, choice);
  let selection = await select(format, paths, source);
  if (!preset && (format === 'pascal_voc' || format === 'yolo') && selection.companions.size === 0) {
    // Found by a stray file (a settings.xml, a CI workflow's .yml) that pairs with no image: the
    // folder is a folder of images, and taken as VOC or YOLO it would lose its datasets.
    const stray = paths.filter((p) => looksLike(format as ForeignFormat, [p])).slice(0, 3).join(', ');
    format = 'images';
    selection = selectImages(paths);
    selection.notes.push(`${stray}: no image has an annotation of that format beside it; imported as a folder of images`);
  }
  const files: Planned<F>[] = [];
  const byPath = new Map<string, Planned<F>>();
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
  if (!files.some((f) => f.kind === 'image')) throw new FolderError(nothingToImport(root, format, preset, selection.notes, choice));
  const companions = new Map<Planned<F>, Planned<F>[]>();
  for (const [image, own] of selection.companions) companions.set(byPath.get(image)!, own.map((p) => byPath.get(p)!));
  return { root, format, preset: PRESETS[format], files, companions, ignored, notes: selection.notes };
}
