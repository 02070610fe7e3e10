// COCO, Pascal VOC and YOLO imports: at POST time the format's files are read (from the blob store,
// by their staged hash) into canonical annotations per image, and each image's annotation is stored
// as a Supervisely annotation blob, staged like an upload. The import task then takes them exactly as
// it takes a Supervisely project: image by image, all or nothing, idempotent on resume.
//
// A COCO file is streamed from the store, several times (see formats/coco/stream-reader.ts), and the
// objects of each image are written out as soon as the image is complete (grouped on disk first when
// the file does not list them image by image), so neither the text nor all the objects of a file of
// hundreds of MB are held. VOC and YOLO files are small, one per image. Every reader ends an image's
// file at its first object past MAX_OBJECTS_PER_ANNOTATION, and the warnings kept are the first
// KEPT_WARNINGS, with a count of the rest.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Context } from '../context.ts';
import { classColorSource } from '../formats/class-colors.ts';
import { type ClassDefinition, type ClassShape, type FormatWarning, type ShapedObject, type TagDefinition, type TagValue, type TagValueType, settleClassShapes } from '../formats/canonical.ts';
import {
  type ByteSource,
  CocoFormatError,
  type CocoIndexFile,
  type CocoSurvey,
  cocoSubsets,
  imageFinder,
  readCocoIndex,
  readCocoObjects,
  surveyCocoAnnotations,
} from '../formats/coco/index.ts';
import { type ForeignFormat, isForeignImagePath } from '../formats/detect-format.ts';
import { JsonLocationError } from '../formats/json-members.ts';
import { KeptWarnings } from '../formats/kept-warnings.ts';
import {
  type LabelColor,
  VOC_LABELS,
  VocFormatError,
  hexColor,
  isBackgroundLabel,
  isMaskPath,
  labelMapFile,
  planVoc,
  readClassMask,
  readInstanceMask,
  readLabelMap,
  readSplitList,
  readVocXml,
  splitFiles,
} from '../formats/pascal-voc/index.ts';
import {
  YoloFormatError,
  type YoloConfig,
  planYolo,
  readDescription,
  readLabelFile,
  splitListFiles,
} from '../formats/yolo/index.ts';
import * as staging from '../repositories/staging.repository.ts';
import { AnnotationBlobWriter } from './annotation-blobs.ts';

export interface ForeignFile {
  path: string;
  hash?: string;
  fileId?: string;
}

export interface ForeignPlan {
  format: ForeignFormat;
  classes: ClassDefinition[];
  tags: TagDefinition[];
  datasets: { title: string; images: { name: string; imagePath: string; annotationPath: null; annotationHash: string | null }[] }[];
  /** The first KEPT_WARNINGS warnings; `moreWarnings` counts the rest. */
  warnings: { path: string; message: string }[];
  moreWarnings: number;
}

const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const shown = (w: FormatWarning) => ({ path: w.line ? `${w.path}:${w.line}` : w.path, message: w.message });

interface PlacedImage {
  dataset: string;
  name: string;
  imagePath: string;
}

interface Placed extends PlacedImage {
  objects: ShapedObject[];
}

interface Reading {
  ctx: Context;
  /** Files by path. */
  files: Map<string, ForeignFile>;
  /** Staged hash and size of each fileId. */
  staged: ReadonlyMap<string, { hash: string; size: number }>;
  sizes: Map<string, { width: number; height: number }>;
  imagePaths: string[];
  warnings: KeptWarnings<FormatWarning>;
}

const hashOf = (r: Reading, path: string): string => {
  const f = r.files.get(path)!;
  return f.fileId ? r.staged.get(f.fileId)!.hash : f.hash!;
};

/**
 * The most bytes of an annotation file read whole (a Pascal VOC XML, a YOLO label file: one image's
 * each, a few MB at the objects limit); a larger one is not read, and its image not imported.
 */
export const MAX_WHOLE_FILE_BYTES = 64 * 1024 * 1024;

/** Why the file at `path` is not read whole, or null when it may be. */
function tooLarge(r: Reading, path: string): string | null {
  const f = r.files.get(path)!;
  const size = f.fileId ? r.staged.get(f.fileId)!.size : 0;
  return size > MAX_WHOLE_FILE_BYTES ? `the file is larger than ${MAX_WHOLE_FILE_BYTES / (1024 * 1024)} MiB, the limit for an annotation file of one image` : null;
}

const bytesOf = (r: Reading, path: string): Promise<Buffer> => r.ctx.blobs.readBytes(hashOf(r, path));

/** A mask's bytes; throws (and the mask is ignored with a warning) when it is too large to read whole. */
async function maskBytes(r: Reading, path: string): Promise<Buffer> {
  const large = tooLarge(r, path);
  if (large) throw new Error(large);
  return bytesOf(r, path);
}

const streamOf = (r: Reading, path: string): ByteSource => async () => (await r.ctx.blobs.read(hashOf(r, path))) as Readable & AsyncIterable<Buffer>;

/**
 * Reads the format's files and stores one annotation blob per image that has objects. Problems with
 * one file or one object are warnings (file, line where there is one); the images they leave
 * without a usable annotation are not imported.
 */
export async function planForeignImport(
  ctx: Context,
  teamId: number,
  format: ForeignFormat,
  files: readonly ForeignFile[],
  staged: ReadonlyMap<string, { hash: string; size: number }>,
): Promise<ForeignPlan> {
  const imagePaths = files.filter((f) => f.hash && isForeignImagePath(f.path)).map((f) => f.path);
  const facts = await staging.blobsByHash(ctx.db.kysely, [...new Set(files.flatMap((f) => (f.hash ? [f.hash] : [])))]);
  const sizes = new Map<string, { width: number; height: number }>();
  for (const f of files) {
    const fact = f.hash ? facts.get(f.hash) : undefined;
    if (fact?.width && fact.height) sizes.set(f.path, { width: fact.width, height: fact.height });
  }
  const r: Reading = {
    ctx,
    files: new Map(files.map((f) => [f.path, f])),
    staged,
    sizes,
    imagePaths,
    warnings: new KeptWarnings(),
  };
  const read = format === 'coco' ? readCoco : format === 'pascal_voc' ? readVoc : readYolo;
  const reading = await read(r);
  // Labels without a colour of the format's take the palette's in order, apart from those given.
  const nextColor = classColorSource(reading.colors?.values());
  const color = (title: string) => reading.colors?.get(title) ?? nextColor();
  const { classes, settle } = settleClassShapes(reading.shapes, reading.labels, color, 'rectangle', reading.priority);

  const datasets = new Map<string, ForeignPlan['datasets'][number] & { names: Set<string> }>();
  const entries: (ForeignPlan['datasets'][number]['images'][number] | null)[] = [];
  for (const p of reading.images) {
    let dataset = datasets.get(p.dataset);
    if (!dataset) datasets.set(p.dataset, (dataset = { title: p.dataset, images: [], names: new Set() }));
    if (dataset.names.has(p.name)) {
      r.warnings.push({ path: p.imagePath, message: `dataset "${p.dataset}" already has an image named "${p.name}"; this one is skipped` });
      entries.push(null);
      continue;
    }
    dataset.names.add(p.name);
    const entry = { name: p.name, imagePath: p.imagePath, annotationPath: null, annotationHash: null };
    dataset.images.push(entry);
    entries.push(entry);
  }

  // Each object tag's value type is what its values are: any string among them makes it a string tag.
  const tagTypes = new Map<string, TagValueType>();
  const writer = new AnnotationBlobWriter(ctx, teamId);
  await reading.objects(async (index, objects) => {
    const entry = entries[index];
    if (!entry || objects.length === 0) return;
    for (const o of objects) {
      settle(o);
      for (const t of o.tags) tagTypes.set(t.name, widerValueType(tagTypes.get(t.name) ?? 'none', t.value));
    }
    const bytes = Buffer.from(
      JSON.stringify({
        description: '',
        tags: [],
        size: sizes.get(entry.imagePath)!,
        objects: objects.map((o) => ({
          classTitle: o.classTitle,
          description: o.description,
          tags: o.tags,
          bitmap: o.bitmap ? { origin: o.bitmap.origin, data: o.bitmap.data } : null,
          points: o.points,
        })),
      }),
    );
    entry.annotationHash = await writer.add(bytes, entry.imagePath);
  });
  await writer.flush();
  const tags: TagDefinition[] = [...tagTypes].map(([title, valueType]) => ({ title, scope: 'figures', valueType }));
  return { format, classes, tags, datasets: [...datasets.values()].map(({ title, images }) => ({ title, images })), warnings: r.warnings.list.map(shown), moreWarnings: r.warnings.more };
}

/** The value type of a tag whose values so far make `type`, once it has also had `value`. */
function widerValueType(type: TagValueType, value: TagValue): TagValueType {
  if (value === null || type === 'any_string') return type;
  return typeof value === 'string' ? 'any_string' : 'any_number';
}

/**
 * What a format's reader found: the images in plan order, the labels and the shapes their objects
 * have (so classes are settled before any object is written), and the objects themselves, handed
 * over image by image (by index into `images`), each image with objects once.
 */
interface ReadResult {
  images: PlacedImage[];
  labels: string[];
  priority?: ClassShape[];
  /** Colours the format gives its labels (`#RRGGBB`); the others get the default colour. */
  colors?: Map<string, string>;
  shapes: Map<string, Set<ClassShape>>;
  objects(take: (index: number, objects: ShapedObject[]) => Promise<void>): Promise<void>;
}

/** A ReadResult of a reader that holds every object already (VOC, YOLO). */
function inMemory(placed: Placed[], labels: string[], options: { priority?: ClassShape[]; colors?: Map<string, string> } = {}): ReadResult {
  const shapes = new Map<string, Set<ClassShape>>();
  for (const p of placed) {
    for (const o of p.objects) {
      let set = shapes.get(o.classTitle);
      if (!set) shapes.set(o.classTitle, (set = new Set()));
      set.add(o.shape);
    }
  }
  return {
    images: placed,
    labels,
    ...options,
    shapes,
    async objects(take) {
      for (const [index, p] of placed.entries()) await take(index, p.objects);
    },
  };
}

/** The real size of an uploaded image (from the blob table); null, with a warning, when it is not known. */
function checkSize(r: Reading, imagePath: string): { width: number; height: number } | null {
  const size = r.sizes.get(imagePath);
  if (!size) r.warnings.push({ path: imagePath, message: 'the image size is unknown (the file is not a stored image); it is skipped' });
  return size ?? null;
}

async function readCoco(r: Reading): Promise<ReadResult> {
  const jsonPaths = [...r.files.values()].filter((f) => f.fileId && /\.json$/i.test(f.path)).map((f) => f.path).sort();
  const subsets = cocoSubsets(jsonPaths);
  const finder = imageFinder(r.imagePaths);
  const used = new Set<string>();
  const images: PlacedImage[] = [];
  const labels: string[] = [];
  const shapes = new Map<string, Set<ClassShape>>();
  // Each file read without error, with where its images went in `images` (by COCO image id).
  const read: { path: string; file: CocoIndexFile; survey: CocoSurvey; indexOf: Map<string, number> }[] = [];
  for (const path of jsonPaths) {
    const open = streamOf(r, path);
    // The images of this file, placed only once the whole file has been read without error.
    const placedHere = new Map<string, PlacedImage>();
    const missing: string[] = [];
    let file;
    let survey;
    try {
      file = await readCocoIndex(open, path, subsets.get(path));
      for (const image of file.index.images.values()) {
        const imagePath = finder(path, file.subset, image.fileName);
        if (!imagePath) {
          missing.push(image.fileName);
          continue;
        }
        used.add(imagePath);
        if (!checkSize(r, imagePath)) continue;
        placedHere.set(image.id, { dataset: file.subset, name: baseName(imagePath), imagePath });
      }
      survey = await surveyCocoAnnotations(open, file, (image) => placedHere.has(image.id));
    } catch (error) {
      if (error instanceof JsonLocationError) {
        r.warnings.push({ path, message: `not valid JSON at line ${error.line}, column ${error.column} (${error.reason}); the file is skipped` });
        continue;
      }
      if (!(error instanceof CocoFormatError)) throw error;
      r.warnings.push({ path, message: `${error.message.slice(path.length + 2)}; the file is skipped` });
      continue;
    }
    r.warnings.addAll(file.warnings, file.moreWarnings);
    r.warnings.addAll(survey.warnings, survey.moreWarnings);
    for (const l of file.index.labels) if (!labels.includes(l)) labels.push(l);
    for (const [label, set] of survey.shapes) {
      const all = shapes.get(label) ?? new Set();
      for (const shape of set) all.add(shape);
      shapes.set(label, all);
    }
    const indexOf = new Map<string, number>();
    for (const [id, image] of placedHere) {
      indexOf.set(id, images.length);
      images.push(image);
    }
    read.push({ path, file, survey, indexOf });
    if (missing.length > 0) {
      const first = missing.slice(0, 5).join(', ');
      r.warnings.push({ path, message: `${missing.length} of its ${file.index.images.size} images are not among the uploaded files and are not imported (${first}${missing.length > 5 ? ', …' : ''})` });
    }
  }
  const unused = r.imagePaths.filter((p) => !used.has(p));
  if (unused.length > 0) {
    r.warnings.push({ path: unused[0]!, message: `${unused.length} uploaded image(s) are listed in no COCO file and are not imported` });
  }
  return {
    images,
    labels,
    shapes,
    async objects(take) {
      // Where a file not listed image by image is grouped: beside the process's other temporary
      // files (DATA_DIR/tmp), not in the system's temporary folder, which may be a small RAM disk.
      const tempDir = path.join(r.ctx.config.dataDir, 'tmp', 'imports');
      await fsp.mkdir(tempDir, { recursive: true });
      for (const { path: filePath, file, survey, indexOf } of read) {
        await readCocoObjects(streamOf(r, filePath), file, survey, (image, objects) => take(indexOf.get(image.id)!, objects), tempDir);
      }
    },
  };
}

async function readVoc(r: Reading): Promise<ReadResult> {
  const paths = [...r.files.keys()];
  const xmls: { path: string; filename: string | null; annotation: ReturnType<typeof readVocXml> | null }[] = [];
  for (const path of paths.filter((p) => /\.xml$/i.test(p)).sort()) {
    const large = tooLarge(r, path);
    if (large) {
      r.warnings.push({ path, message: `${large}; its image is not imported` });
      xmls.push({ path, filename: null, annotation: null });
      continue;
    }
    try {
      const annotation = readVocXml((await bytesOf(r, path)).toString('utf8'), path);
      r.warnings.addAll(annotation.warnings);
      xmls.push({ path, filename: annotation.filename, annotation });
    } catch (error) {
      if (!(error instanceof VocFormatError)) throw error;
      r.warnings.push({ path: error.path, ...(error.line ? { line: error.line } : {}), message: `${error.message.slice(error.message.indexOf(': ') + 2)}; its image is not imported` });
      xmls.push({ path, filename: null, annotation: null });
    }
  }
  const splits = [];
  for (const path of splitFiles(paths)) {
    splits.push({ name: baseName(path).replace(/\.txt$/i, ''), ids: readSplitList((await bytesOf(r, path)).toString('utf8')) });
  }
  // Class masks are decoded with the label map's colours, else with those of the VOC 2012 classes.
  let maskLabels: readonly LabelColor[] = VOC_LABELS;
  const colors = new Map<string, string>();
  const labelMapPath = labelMapFile(paths);
  if (labelMapPath) {
    const read = readLabelMap((await bytesOf(r, labelMapPath)).toString('utf8'), labelMapPath);
    r.warnings.addAll(read.warnings);
    if (read.labels.length > 0) maskLabels = read.labels;
    for (const l of read.labels) colors.set(l.name, hexColor(l.color));
  }
  const annotationOf = new Map(xmls.map((x) => [x.path, x.annotation]));
  const { datasets, warnings } = planVoc(r.imagePaths, xmls, paths.filter(isMaskPath), splits);
  r.warnings.addAll(warnings);
  const placed: Placed[] = [];
  const labels: string[] = [];
  for (const d of datasets) {
    for (const image of d.images) {
      const annotation = image.xmlPath ? annotationOf.get(image.xmlPath) : undefined;
      if (annotation === null) continue; // unreadable XML, warned above
      if (!checkSize(r, image.imagePath)) continue;
      const objects = annotation?.objects.map((o) => ({ ...o, tags: o.tags.map((t) => ({ ...t })) })) ?? [];
      if (annotation && image.maskPath) {
        try {
          const masks = await readInstanceMask(await maskBytes(r, image.maskPath), image.maskPath, annotation.objects, annotation.objectIndex);
          r.warnings.addAll(masks.warnings);
          for (const o of masks.objects) objects.push(o);
        } catch (error) {
          r.warnings.push({ path: image.maskPath, message: `the mask cannot be read (${(error as Error).message}); it is ignored` });
        }
      } else if (image.classMaskPath) {
        // No instance mask to tell objects apart: each class in the mask becomes one bitmap object.
        try {
          const masks = await readClassMask(await maskBytes(r, image.classMaskPath), image.classMaskPath, maskLabels, isBackgroundLabel);
          r.warnings.addAll(masks.warnings);
          for (const o of masks.objects) objects.push(o);
        } catch (error) {
          r.warnings.push({ path: image.classMaskPath, message: `the mask cannot be read (${(error as Error).message}); it is ignored` });
        }
      }
      for (const o of objects) if (!labels.includes(o.classTitle)) labels.push(o.classTitle);
      placed.push({ dataset: d.name, name: image.name, imagePath: image.imagePath, objects });
    }
  }
  return inMemory(placed, labels, { priority: ['rectangle', 'polygon', 'bitmap', 'line', 'point'], colors });
}

async function readYolo(r: Reading): Promise<ReadResult> {
  const paths = [...r.files.keys()].filter((p) => r.files.get(p)!.fileId);
  const text = async (path: string) => (await bytesOf(r, path)).toString('utf8');
  let config: YoloConfig | null = null;
  try {
    config = await readDescription(paths, text);
  } catch (error) {
    if (!(error instanceof YoloFormatError)) throw error;
    r.warnings.push({ path: error.path, ...(error.line ? { line: error.line } : {}), message: `${error.message.slice(error.message.indexOf(': ') + 2)}; class names and splits are not known` });
  }
  const names = config?.names ?? [];
  if (names.length === 0) r.warnings.push({ path: '', message: 'no class names were found (data YAML, obj.data, obj.names or classes.txt); every label line is ignored' });
  const texts = paths.filter((p) => /\.txt$/i.test(p));
  const lists = new Map<string, string>();
  for (const path of splitListFiles(config, new Set(texts))) lists.set(path, await text(path));
  const planned = planYolo(r.imagePaths, texts, config, (p) => lists.get(p));
  r.warnings.addAll(planned.warnings);
  const placed: Placed[] = [];
  const labelFiles = new Set<string>();
  for (const d of planned.datasets) {
    for (const image of d.images) {
      const size = checkSize(r, image.imagePath);
      if (!size) continue;
      let objects: ShapedObject[] = [];
      if (image.labelPath) {
        labelFiles.add(image.labelPath);
        const large = tooLarge(r, image.labelPath);
        if (large) {
          r.warnings.push({ path: image.labelPath, message: `${large}; its image is not imported` });
          continue;
        }
        try {
          const read = readLabelFile(await text(image.labelPath), image.labelPath, names, size.width, size.height);
          r.warnings.addAll(read.warnings, read.moreWarnings);
          objects = read.objects;
        } catch (error) {
          if (!(error instanceof YoloFormatError)) throw error;
          r.warnings.push({ path: error.path, ...(error.line ? { line: error.line } : {}), message: `${error.message.slice(error.message.indexOf(': ') + 2)}; its image is not imported` });
          continue;
        }
      }
      placed.push({ dataset: d.name, name: image.name, imagePath: image.imagePath, objects });
    }
  }
  for (const p of texts) {
    if (/(^|\/)labels\//.test(p) && !labelFiles.has(p) && baseName(p).toLowerCase() !== 'readme.txt') {
      r.warnings.push({ path: p, message: 'a label file with no image of that name; it is ignored' });
    }
  }
  return inMemory(placed, names);
}
