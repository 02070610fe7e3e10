// Which files of a COCO, Pascal VOC or YOLO folder an import sends: the ones the server's reader
// reads (src/services/import-formats.ts), found with the reader's own functions from src/formats, so
// that an import of this selection places the same images with the same objects as an import of
// every file of the folder. Loaded only for a folder of these formats.
import { CocoFormatError } from '../formats/coco/errors.ts';
import { imagesNamed } from '../formats/coco/layout.ts';
import { readCocoIndex } from '../formats/coco/index-reader.ts';
import { type ForeignFormat, isForeignImagePath } from '../formats/detect-format.ts';
import { JsonLocationError } from '../formats/json-members.ts';
import { isMaskPath, labelMapFile, planVoc, splitFiles } from '../formats/pascal-voc/layout.ts';
import { VocFormatError, readVocXml } from '../formats/pascal-voc/reader.ts';
import { YoloFormatError } from '../formats/yolo/config.ts';
import { readDescription } from '../formats/yolo/description.ts';
import { findDescriptions, labelFor, splitListFiles } from '../formats/yolo/layout.ts';
import type { FileKind, FileSource, Selection } from './folder-files.ts';

/**
 * COCO: every JSON file that reads as a COCO dataset, and the images their `file_name`s may name. A
 * results list or a JSON file of another kind is left out with a note; the server would skip it.
 */
async function selectCoco(paths: readonly string[], source: FileSource): Promise<Selection> {
  const kinds = new Map<string, FileKind>();
  const notes: string[] = [];
  const fileNames: string[] = [];
  for (const path of paths.filter((p) => /\.json$/i.test(p))) {
    try {
      const file = await readCocoIndex(() => source.stream(path), path);
      kinds.set(path, 'annotation');
      for (const image of file.index.images.values()) fileNames.push(image.fileName);
    } catch (error) {
      if (error instanceof CocoFormatError) notes.push(`${error.message}; left out`);
      else if (error instanceof JsonLocationError) notes.push(`${path}: not valid JSON at line ${error.line}, column ${error.column} (${error.reason}); left out`);
      else throw error;
    }
  }
  for (const path of imagesNamed(paths.filter(isForeignImagePath), fileNames)) kinds.set(path, 'image');
  return { kinds, companions: new Map(), notes };
}

/**
 * Pascal VOC: every image, the XML and masks paired with it (as the reader pairs them), the split
 * lists and the label map. An XML that pairs with no image is sent too: the import's warnings name it.
 */
async function selectVoc(paths: readonly string[], source: FileSource): Promise<Selection> {
  const xmls: { path: string; filename: string | null }[] = [];
  for (const path of paths.filter((p) => /\.xml$/i.test(p)).sort()) {
    try {
      xmls.push({ path, filename: readVocXml(await source.text(path), path).filename });
    } catch (error) {
      if (!(error instanceof VocFormatError)) throw error;
      // Paired by its name all the same: the server then tells why its image is not imported.
      xmls.push({ path, filename: null });
    }
  }
  const kinds = new Map<string, FileKind>();
  const companions = new Map<string, string[]>();
  // Without split lists every image is planned once; the pairs do not depend on the splits.
  for (const dataset of planVoc(paths.filter(isForeignImagePath), xmls, paths.filter(isMaskPath), []).datasets) {
    for (const image of dataset.images) {
      kinds.set(image.imagePath, 'image');
      const own = [image.xmlPath, image.maskPath, image.classMaskPath].filter((p): p is string => p !== null);
      for (const p of own) kinds.set(p, 'annotation');
      if (own.length > 0) companions.set(image.imagePath, own);
    }
  }
  // An XML that pairs with no image is sent too, so the import's warnings name it.
  for (const { path } of xmls) if (!kinds.has(path)) kinds.set(path, 'annotation');
  for (const path of splitFiles(paths)) kinds.set(path, 'annotation');
  const labelMap = labelMapFile(paths);
  if (labelMap) kinds.set(labelMap, 'class');
  return { kinds, companions, notes: [] };
}

/**
 * YOLO: every image with its label file, every description (data YAML, obj.data, names files: the
 * reader picks among them) and the list files the description's splits name.
 */
async function selectYolo(paths: readonly string[], source: FileSource): Promise<Selection> {
  const kinds = new Map<string, FileKind>();
  const notes: string[] = [];
  const descriptions = findDescriptions(paths);
  for (const path of [...descriptions.yaml, ...descriptions.objData, ...descriptions.names]) kinds.set(path, 'class');
  let config = null;
  try {
    config = await readDescription(paths, (path) => source.text(path));
  } catch (error) {
    if (!(error instanceof YoloFormatError)) throw error;
    notes.push(`${error.message}; class names and splits are not known`);
  }
  if (!config?.names.length) notes.push('no class names were found (data YAML, obj.data, obj.names or classes.txt): the images come without objects');
  const texts = new Set(paths.filter((p) => /\.txt$/i.test(p)));
  for (const path of splitListFiles(config, texts)) if (!kinds.has(path)) kinds.set(path, 'annotation');
  const companions = new Map<string, string[]>();
  for (const image of paths.filter(isForeignImagePath)) {
    kinds.set(image, 'image');
    const label = labelFor(image, texts);
    if (!label) continue;
    if (!kinds.has(label)) kinds.set(label, 'annotation');
    companions.set(image, [label]);
  }
  return { kinds, companions, notes };
}

export function selectForeign(format: ForeignFormat, paths: readonly string[], source: FileSource): Promise<Selection> {
  return format === 'coco' ? selectCoco(paths, source) : format === 'pascal_voc' ? selectVoc(paths, source) : selectYolo(paths, source);
}
