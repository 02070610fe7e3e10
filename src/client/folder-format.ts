// The format of an import folder, decided from its paths as the server's preset 0 decides it
// (src/formats/detect-format.ts), except that a folder that could be several formats is refused
// rather than guessed: the command says what it found and the user picks with --preset.
import { type ForeignFormat, foreignFormatsOf, looksLike } from '../formats/detect-format.ts';
import { hasSuperviselyFiles } from '../formats/supervisely/layout.ts';
import { FolderError } from './folder-error.ts';

export type FolderFormat = 'supervisely' | 'images' | ForeignFormat;

/** The v1 preset of each format. */
export const PRESETS: Readonly<Record<FolderFormat, number>> = { supervisely: 1, images: 2, coco: 3, pascal_voc: 4, yolo: 5 };

export const FORMAT_NAMES: Readonly<Record<FolderFormat, string>> = {
  supervisely: 'Supervisely project',
  images: 'folder of images',
  coco: 'COCO',
  pascal_voc: 'Pascal VOC',
  yolo: 'YOLO',
};

/** What each format's folder holds, for the messages that say what was looked for. */
export const LAYOUTS: Readonly<Record<FolderFormat, string>> = {
  supervisely: 'a Supervisely project (meta.json or classes.json at the root, <dataset>/img/<image>, <dataset>/ann/<image>.json)',
  coco: 'COCO (a *.json with images, annotations and categories; its images beside it, in images/ or in subset folders)',
  pascal_voc: 'Pascal VOC (Annotations/*.xml with JPEGImages/, or XML files beside their images)',
  yolo: 'YOLO (data.yaml or another *.yaml, obj.data, obj.names or classes.txt, with images/ and labels/)',
  images: 'a folder of images (one dataset per subfolder)',
};

const FORMAT_OF_PRESET = new Map(Object.entries(PRESETS).map(([format, preset]) => [preset, format as FolderFormat]));

/** The first path that makes the folder look like the format, to show the user why. */
const evidence = (format: ForeignFormat, paths: readonly string[]) => paths.find((p) => looksLike(format, [p]));

/**
 * How the user is told to pick the format a folder cannot decide: the formats found (`images` alone
 * when the annotations found may be strays). The command's option by default; the web form names
 * its own field.
 */
export type FormatChoice = (formats: readonly FolderFormat[]) => string;

export const presetOption: FormatChoice = (formats) => {
  const found = formats.filter((f) => f !== 'images');
  if (found.length === 0) return 'to import the images alone use --preset 2';
  return `choose one with --preset ${found.map((f) => `${PRESETS[f]} (${FORMAT_NAMES[f]})`).join(', ')}, or --preset 2 for the images alone`;
};

/**
 * The format to import `root` as. `preset` 3 to 5 insists on that format and refuses a folder that
 * does not look like it (1 and 2 are taken as given: the server tells what it cannot import); without one (or 0) the paths decide: a class file at the root makes a
 * Supervisely project, and so do `<dataset>/ann/*.json` files without one; the files of one
 * annotation format make that format, none a folder of images.
 */
export function chooseFormat(root: string, paths: readonly string[], preset?: number, choice: FormatChoice = presetOption): FolderFormat {
  const wanted = preset ? FORMAT_OF_PRESET.get(preset) : undefined;
  // A Supervisely import without a meta is what adds images to an existing project: the server
  // takes it there, and refuses it for a new project with its own message.
  if (wanted === 'supervisely' || wanted === 'images') return wanted;
  if (wanted) {
    if (!looksLike(wanted, paths)) throw new FolderError(`${root} is not a ${FORMAT_NAMES[wanted]} folder: expected ${LAYOUTS[wanted]}`);
    return wanted;
  }
  if (hasSuperviselyFiles(paths)) return 'supervisely';
  const found = foreignFormatsOf(paths);
  if (found.length > 1) {
    const seen = found.map((f) => `${FORMAT_NAMES[f]} (${evidence(f, paths)})`).join(', ');
    throw new FolderError(`${root} holds the files of several formats: ${seen}; ${choice(found)}`);
  }
  return found[0] ?? 'images';
}

/** Why a folder of this format gives nothing to import, and what was looked for. */
export function nothingToImport(root: string, format: FolderFormat, preset: number | undefined, notes: readonly string[], choice: FormatChoice = presetOption): string {
  const why = notes.length > 0 ? `:\n  ${notes.slice(0, 10).join('\n  ')}${notes.length > 10 ? `\n  … and ${notes.length - 10} more` : ''}\n` : ' ';
  if (format === 'supervisely' || format === 'images') {
    // A folder of images is what is left when no format was found: every layout was tried.
    const tried = format === 'images' && !preset ? Object.values(LAYOUTS) : [LAYOUTS[format]];
    return `${root} is not a project: no images found${why}(looked for ${tried.join('; ')})`;
  }
  // Found by a file that may be a stray (a notes.json among photos): the images alone may be what was meant.
  const otherwise = preset ? '' : `; ${choice(['images'])}`;
  return `${root} has no image to import as ${FORMAT_NAMES[format]}${why}(expected ${LAYOUTS[format]})${otherwise}`;
}
