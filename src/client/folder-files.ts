// Which files of a folder an import sends, by format: the Supervisely project and the folder of images
// here, COCO, Pascal VOC and YOLO in foreign-files.ts. Everything else in the folder is left out.
import { SuperviselyFormatError } from '../formats/supervisely/errors.ts';
import { imagesOnlyDataset, planProject } from '../formats/supervisely/layout.ts';
import { FolderError } from './folder-error.ts';

export type FileKind = 'image' | 'annotation' | 'class';

/** What an import sends of a folder, by path. */
export interface Selection {
  /** The files sent, with their kind. */
  kinds: Map<string, FileKind>;
  /** By image, the files read for that image alone: they travel in the image's upload request. */
  companions: Map<string, string[]>;
  /** What the user should know of the folder's files: those left out and why, or how the folder was taken. */
  notes: string[];
}

/** Reads a file of the folder by its path inside it. */
export interface FileSource {
  text(path: string): Promise<string>;
  stream(path: string): Promise<AsyncIterable<Uint8Array>>;
}

/**
 * A Supervisely project as the server's import plans it (planProject): the class file when there is
 * one, each image with its annotation, and annotations without an image (the import warns of them).
 */
export function selectSupervisely(paths: readonly string[]): Selection {
  let plan;
  try {
    plan = planProject(paths, { requireMeta: false });
  } catch (error) {
    if (error instanceof SuperviselyFormatError) throw new FolderError(error.message);
    throw error;
  }
  const kinds = new Map<string, FileKind>();
  const companions = new Map<string, string[]>();
  if (plan.metaPath) kinds.set(plan.metaPath, 'class');
  for (const dataset of plan.datasets) {
    for (const image of dataset.images) {
      kinds.set(image.imagePath, 'image');
      if (image.annotationPath) {
        kinds.set(image.annotationPath, 'annotation');
        companions.set(image.imagePath, [image.annotationPath]);
      }
    }
    for (const path of dataset.annotationsWithoutImage) kinds.set(path, 'annotation');
  }
  return { kinds, companions, notes: [] };
}

/** Images at the root, in `<dataset>/` or in `<dataset>/img/`, as the server's images-only import takes them. */
export function selectImages(paths: readonly string[]): Selection {
  const kinds = new Map<string, FileKind>();
  for (const p of paths) if (imagesOnlyDataset(p) !== null) kinds.set(p, 'image');
  return { kinds, companions: new Map(), notes: [] };
}
