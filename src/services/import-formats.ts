// COCO, Pascal VOC and YOLO imports: at POST time the format's files are read (from the blob store,
// by their staged hash) into canonical annotations per image, and each image's annotation is stored
// as a Supervisely annotation blob, staged like an upload. The import task then takes them exactly as
// it takes a Supervisely project: image by image, all or nothing, idempotent on resume.
//
// A COCO file is read whole and parsed once; the text is dropped before the annotations are indexed
// by image id, so the text and the parsed document are never both kept.
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from '../context.ts';
import { type ClassDefinition, type FormatWarning, type ShapedObject, type TagDefinition, settleClasses } from '../formats/canonical.ts';
import { CocoFormatError, imageCandidates, readCocoFile, detect as detectCoco } from '../formats/coco/index.ts';
import { VocFormatError, detect as detectVoc, isMaskPath, planVoc, readInstanceMask, readSplitList, readVocXml, splitFiles } from '../formats/pascal-voc/index.ts';
import { defaultClassColor, isImageName } from '../formats/supervisely/index.ts';
import {
  YoloFormatError,
  type YoloConfig,
  detect as detectYolo,
  findDescriptions,
  planYolo,
  readDataYaml,
  readLabelFile,
  readNamesFile,
  readObjData,
} from '../formats/yolo/index.ts';
import * as images from '../repositories/images.repository.ts';
import * as staging from '../repositories/staging.repository.ts';

export const FOREIGN_FORMATS = ['coco', 'pascal_voc', 'yolo'] as const;
export type ForeignFormat = (typeof FOREIGN_FORMATS)[number];

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
  warnings: { path: string; message: string }[];
}

/** The format of preset 0 from the files: their declared `format` first, then their paths. */
export function detectForeignFormat(paths: readonly string[], declared: ReadonlySet<string>): ForeignFormat | null {
  const named = FOREIGN_FORMATS.filter((f) => declared.has(f));
  if (named.length === 1) return named[0]!;
  if (named.length > 1) return null;
  if (paths.includes('meta.json') || paths.includes('classes.json')) return null;
  if (detectVoc(paths)) return 'pascal_voc';
  if (detectYolo(paths)) return 'yolo';
  if (detectCoco(paths)) return 'coco';
  return null;
}

const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const shown = (w: FormatWarning) => ({ path: w.line ? `${w.path}:${w.line}` : w.path, message: w.message });

interface Placed {
  dataset: string;
  name: string;
  imagePath: string;
  objects: ShapedObject[];
}

interface Reading {
  ctx: Context;
  /** Files by path. */
  files: Map<string, ForeignFile>;
  /** Staged hash of each fileId. */
  stagedHash: Map<string, string>;
  sizes: Map<string, { width: number; height: number }>;
  imagePaths: string[];
  warnings: FormatWarning[];
}

async function bytesOf(r: Reading, path: string): Promise<Buffer> {
  const f = r.files.get(path)!;
  return r.ctx.blobs.readBytes(f.fileId ? r.stagedHash.get(f.fileId)! : f.hash!);
}

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
  staged: ReadonlyMap<string, { hash: string }>,
): Promise<ForeignPlan> {
  const imagePaths = files.filter((f) => f.hash && isImageName(f.path) && !isMaskPath(f.path)).map((f) => f.path);
  const facts = await staging.blobsByHash(ctx.db.kysely, [...new Set(files.flatMap((f) => (f.hash ? [f.hash] : [])))]);
  const sizes = new Map<string, { width: number; height: number }>();
  for (const f of files) {
    const fact = f.hash ? facts.get(f.hash) : undefined;
    if (fact?.width && fact.height) sizes.set(f.path, { width: fact.width, height: fact.height });
  }
  const r: Reading = {
    ctx,
    files: new Map(files.map((f) => [f.path, f])),
    stagedHash: new Map([...staged].map(([id, s]) => [id, s.hash])),
    sizes,
    imagePaths,
    warnings: [],
  };
  const read = format === 'coco' ? readCoco : format === 'pascal_voc' ? readVoc : readYolo;
  const { placed, labels, priority } = await read(r);

  const classes = settleClasses(
    placed.flatMap((p) => p.objects),
    labels,
    defaultClassColor,
    'rectangle',
    priority,
  );
  const tagTitles = new Set(placed.flatMap((p) => p.objects.flatMap((o) => o.tags.map((t) => t.name))));
  const tags: TagDefinition[] = [...tagTitles].map((title) => ({ title, scope: 'figures', valueType: 'none' }));

  const datasets = new Map<string, ForeignPlan['datasets'][number]>();
  const blobs = new Map<string, { bytes: Buffer; path: string }>();
  for (const p of placed) {
    let dataset = datasets.get(p.dataset);
    if (!dataset) datasets.set(p.dataset, (dataset = { title: p.dataset, images: [] }));
    if (dataset.images.some((i) => i.name === p.name)) {
      r.warnings.push({ path: p.imagePath, message: `dataset "${p.dataset}" already has an image named "${p.name}"; this one is skipped` });
      continue;
    }
    let annotationHash: string | null = null;
    if (p.objects.length > 0) {
      const size = sizes.get(p.imagePath)!;
      const bytes = Buffer.from(
        JSON.stringify({
          description: '',
          tags: [],
          size,
          objects: p.objects.map((o) => ({
            classTitle: o.classTitle,
            description: o.description,
            tags: o.tags,
            bitmap: o.bitmap ? { origin: o.bitmap.origin, data: o.bitmap.data } : null,
            points: o.points,
          })),
        }),
      );
      annotationHash = createHash('sha256').update(bytes).digest('base64');
      blobs.set(annotationHash, { bytes, path: `${p.imagePath}.json` });
    }
    dataset.images.push({ name: p.name, imagePath: p.imagePath, annotationPath: null, annotationHash });
  }
  await storeAnnotations(ctx, teamId, blobs);
  return { format, classes, tags, datasets: [...datasets.values()], warnings: r.warnings.map(shown) };
}

/** Stores the annotation blobs and stages them for the team, so they live as long as an upload. */
async function storeAnnotations(ctx: Context, teamId: number, blobs: Map<string, { bytes: Buffer; path: string }>): Promise<void> {
  const entries = [...blobs];
  const known = await staging.blobsByHash(ctx.db.kysely, entries.map(([hash]) => hash));
  const todo = entries.filter(([hash]) => !known.has(hash));
  // Bytes first, rows after: a blob row always has its bytes in the store.
  for (let i = 0; i < todo.length; i += 16) {
    await Promise.all(todo.slice(i, i + 16).map(([hash, b]) => ctx.blobs.putBytes(hash, b.bytes)));
  }
  const now = new Date();
  const createdAt = now.toISOString();
  const expiresAt = new Date(now.getTime() + ctx.config.limits.stagedFileTtlMs).toISOString();
  for (let i = 0; i < entries.length; i += 500) {
    const part = entries.slice(i, i + 500);
    await ctx.db.kysely.transaction().execute(async (trx) => {
      for (const [hash, b] of part) await images.ensureBlob(trx, { hash, size: b.bytes.length, mediaType: 'application/json', width: null, height: null });
      await staging.insertStagedFiles(
        trx,
        part.map(([hash, b]) => ({
          id: `f_${randomBytes(16).toString('base64url')}`,
          teamId,
          kind: 'annotation',
          format: 'supervisely',
          name: b.path,
          hash,
          size: b.bytes.length,
          createdAt,
          expiresAt,
        })),
      );
    });
  }
}

type ReadResult = { placed: Placed[]; labels: string[]; priority?: ShapedObject['shape'][] };

/** The real size of an uploaded image (from the blob table); null, with a warning, when it is not known. */
function checkSize(r: Reading, imagePath: string): { width: number; height: number } | null {
  const size = r.sizes.get(imagePath);
  if (!size) r.warnings.push({ path: imagePath, message: 'the image size is unknown (the file is not a stored image); it is skipped' });
  return size ?? null;
}

async function readCoco(r: Reading): Promise<ReadResult> {
  const jsonPaths = [...r.files.values()].filter((f) => f.fileId && /\.json$/i.test(f.path)).map((f) => f.path).sort();
  const imageSet = new Set(r.imagePaths);
  const used = new Set<string>();
  const placed: Placed[] = [];
  const labels: string[] = [];
  for (const path of jsonPaths) {
    let file;
    try {
      let document: unknown;
      {
        let text: string | null = (await bytesOf(r, path)).toString('utf8');
        try {
          document = JSON.parse(text);
        } catch (error) {
          r.warnings.push({ path, message: `not valid JSON (${(error as Error).message}); the file is skipped` });
          continue;
        }
        text = null;
      }
      file = readCocoFile(document, path);
    } catch (error) {
      if (!(error instanceof CocoFormatError)) throw error;
      r.warnings.push({ path, message: `${error.message.slice(path.length + 2)}; the file is skipped` });
      continue;
    }
    r.warnings.push(...file.warnings);
    for (const l of file.labels) if (!labels.includes(l)) labels.push(l);
    const missing: string[] = [];
    for (const image of file.images) {
      const imagePath = findImage(path, file.subset, image.fileName, imageSet, r.imagePaths);
      if (!imagePath) {
        missing.push(image.fileName);
        continue;
      }
      used.add(imagePath);
      if (!checkSize(r, imagePath)) continue;
      placed.push({ dataset: file.subset, name: baseName(imagePath), imagePath, objects: image.objects });
    }
    if (missing.length > 0) {
      const first = missing.slice(0, 5).join(', ');
      r.warnings.push({ path, message: `${missing.length} of its ${file.images.length} images are not among the uploaded files and are not imported (${first}${missing.length > 5 ? ', …' : ''})` });
    }
  }
  const unused = r.imagePaths.filter((p) => !used.has(p));
  if (unused.length > 0) {
    r.warnings.push({ path: unused[0]!, message: `${unused.length} uploaded image(s) are listed in no COCO file and are not imported` });
  }
  return { placed, labels };
}

function findImage(jsonPath: string, subset: string, fileName: string, imageSet: ReadonlySet<string>, imagePaths: readonly string[]): string | null {
  for (const c of imageCandidates(jsonPath, subset, fileName)) if (imageSet.has(c)) return c;
  const name = fileName.replace(/\\/g, '/');
  const bySuffix = imagePaths.filter((p) => p === name || p.endsWith(`/${name}`));
  if (bySuffix.length === 1) return bySuffix[0]!;
  const byBase = imagePaths.filter((p) => baseName(p) === baseName(name));
  return byBase.length === 1 ? byBase[0]! : null;
}

async function readVoc(r: Reading): Promise<ReadResult> {
  const paths = [...r.files.keys()];
  const xmls: { path: string; filename: string | null; annotation: ReturnType<typeof readVocXml> | null }[] = [];
  for (const path of paths.filter((p) => /\.xml$/i.test(p)).sort()) {
    try {
      const annotation = readVocXml((await bytesOf(r, path)).toString('utf8'), path);
      r.warnings.push(...annotation.warnings);
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
  const annotationOf = new Map(xmls.map((x) => [x.path, x.annotation]));
  const datasets = planVoc(r.imagePaths, xmls, paths.filter(isMaskPath), splits);
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
          const masks = await readInstanceMask(await bytesOf(r, image.maskPath), image.maskPath, annotation.objects, annotation.objectIndex);
          r.warnings.push(...masks.warnings);
          objects.push(...masks.objects);
        } catch (error) {
          r.warnings.push({ path: image.maskPath, message: `the mask cannot be read (${(error as Error).message}); it is ignored` });
        }
      }
      for (const o of objects) if (!labels.includes(o.classTitle)) labels.push(o.classTitle);
      placed.push({ dataset: d.name, name: image.name, imagePath: image.imagePath, objects });
    }
  }
  return { placed, labels, priority: ['rectangle', 'polygon', 'bitmap', 'line', 'point'] };
}

async function readYolo(r: Reading): Promise<ReadResult> {
  const paths = [...r.files.keys()].filter((p) => r.files.get(p)!.fileId);
  const text = async (path: string) => (await bytesOf(r, path)).toString('utf8');
  const descriptions = findDescriptions(paths);
  let config: YoloConfig | null = null;
  try {
    const yamls = [...descriptions.yaml].sort((a, b) => Number(baseName(b) === 'data.yaml') - Number(baseName(a) === 'data.yaml'));
    if (yamls.length > 0) config = readDataYaml(await text(yamls[0]!), yamls[0]!);
    else if (descriptions.objData.length > 0) config = readObjData(await text(descriptions.objData[0]!), descriptions.objData[0]!);
    if (config && config.names.length === 0) {
      const namesPath = descriptions.names.find((p) => config!.namesPath?.endsWith(p)) ?? descriptions.names.find((p) => config!.namesPath && baseName(p) === baseName(config!.namesPath)) ?? descriptions.names[0];
      if (namesPath) config.names = readNamesFile(await text(namesPath));
    }
    if (!config && descriptions.names.length > 0) config = { path: descriptions.names[0]!, names: readNamesFile(await text(descriptions.names[0]!)), splits: [] };
  } catch (error) {
    if (!(error instanceof YoloFormatError)) throw error;
    r.warnings.push({ path: error.path, ...(error.line ? { line: error.line } : {}), message: `${error.message.slice(error.message.indexOf(': ') + 2)}; class names and splits are not known` });
  }
  const names = config?.names ?? [];
  if (names.length === 0) r.warnings.push({ path: '', message: 'no class names were found (data YAML, obj.data or obj.names); every label line is ignored' });
  const texts = paths.filter((p) => /\.txt$/i.test(p));
  const lists = new Map<string, string>();
  for (const split of config?.splits ?? []) {
    for (const entry of split.entries.filter((e) => /\.txt$/i.test(e))) {
      const parts = entry.split('/');
      for (let i = 0; i < parts.length; i++) {
        const candidate = parts.slice(i).join('/');
        if (texts.includes(candidate) && !lists.has(candidate)) lists.set(candidate, await text(candidate));
      }
    }
  }
  const planned = planYolo(r.imagePaths, texts, config, (p) => lists.get(p));
  r.warnings.push(...planned.warnings);
  const placed: Placed[] = [];
  const labelFiles = new Set<string>();
  for (const d of planned.datasets) {
    for (const image of d.images) {
      const size = checkSize(r, image.imagePath);
      if (!size) continue;
      let objects: ShapedObject[] = [];
      if (image.labelPath) {
        labelFiles.add(image.labelPath);
        const read = readLabelFile(await text(image.labelPath), image.labelPath, names, size.width, size.height);
        r.warnings.push(...read.warnings);
        objects = read.objects;
      }
      placed.push({ dataset: d.name, name: image.name, imagePath: image.imagePath, objects });
    }
  }
  for (const p of texts) {
    if (/(^|\/)labels\//.test(p) && !labelFiles.has(p) && baseName(p).toLowerCase() !== 'readme.txt') {
      r.warnings.push({ path: p, message: 'a label file with no image of that name; it is ignored' });
    }
  }
  return { placed, labels: names };
}
