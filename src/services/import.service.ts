// POST /tasks/import: checks the whole request before anything is created, plans which image goes
// to which dataset with which annotation, then creates the project, datasets, classes, tags and the
// task in one transaction. The worker (tasks/handlers/import.handler.ts) imports the images.
import { checkImportIntoProject } from './jobs.service.ts';
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database, DatasetRow } from '../db/types.ts';
import { notFound, validation } from '../errors.ts';
import type { ClassDefinition, TagDefinition } from '../formats/canonical.ts';
import { type ForeignFormat, detectForeignFormat } from '../formats/detect-format.ts';
import { KEPT_WARNINGS, KeptWarnings } from '../formats/kept-warnings.ts';
import { type ProjectMeta, SuperviselyFormatError, hasSuperviselyFiles, imagesOnlyDataset, parseProjectMeta, planProject } from '../formats/supervisely/index.ts';
import * as datasets from '../repositories/datasets.repository.ts';
import * as importRepo from '../repositories/import.repository.ts';
import type { ImportItem } from '../repositories/import.repository.ts';
import * as projects from '../repositories/projects.repository.ts';
import * as staging from '../repositories/staging.repository.ts';
import * as tags from '../repositories/tags.repository.ts';
import * as tasks from '../repositories/tasks.repository.ts';
import { isSafeRelativePath, isValidHash } from './identifiers.ts';
import { planForeignImport } from './import-formats.ts';
import type { Principal } from './keys.service.ts';
import { type Caller, adoptNewProject } from './project-access.ts';

export const ON_CONFLICT = ['ignore', 'replace', 'rename'] as const;
export type OnConflict = (typeof ON_CONFLICT)[number];

export const PRESETS = { detect: 0, supervisely: 1, imagesOnly: 2, coco: 3, pascalVoc: 4, yolo: 5 } as const;

export interface ImportFile {
  path: string;
  hash?: string;
  fileId?: string;
}

export interface ImportRequest {
  project: { id: number | null; title?: string };
  preset: number;
  onConflict?: OnConflict;
  files: ImportFile[];
}

export interface ImportInput {
  projectId: number;
  onConflict: OnConflict;
  format: 'supervisely' | 'images' | 'local' | ForeignFormat;
  /** Classes of the meta that the import skips (shape not supported), by title. */
  unsupportedClasses: string[];
}

interface PlannedDataset {
  title: string;
  /** `annotationHash`: an annotation blob made from a COCO, VOC or YOLO file at planning. */
  images: { name: string; imagePath: string; annotationPath: string | null; annotationHash?: string | null }[];
}

interface Plan {
  format: 'supervisely' | 'images' | ForeignFormat;
  classes: ClassDefinition[];
  tags: TagDefinition[];
  unsupportedClasses: { title: string; shape: string }[];
  datasets: PlannedDataset[];
  /** The first KEPT_WARNINGS warnings; `moreWarnings` counts the rest. */
  warnings: { path: string; message: string }[];
  moreWarnings: number;
}

/**
 * A 400 of the import request. `field` is what v1 names (a member, or a file by its path); `pointer`,
 * where v2's problem points, is given when `field` is no member path (a file named by its path is
 * `/files/<index>`).
 */
const fail = (message: string, field?: string, pointer?: string) => validation(message, { ...(field ? { field } : {}), ...(pointer !== undefined ? { pointer } : {}) });

/** The pointer of the request's file at `path`. */
const fileAt = (files: readonly { path: string }[], path: string): string => `/files/${files.findIndex((f) => f.path === path)}`;

/** Images only: `<dataset>/img/<name>` or `<dataset>/<name>`; an image at the root goes to `ds0`. */
function planImagesOnly(paths: string[]): PlannedDataset[] {
  const byDataset = new Map<string, PlannedDataset & { names: Set<string> }>();
  for (const [index, path] of paths.entries()) {
    const title = imagesOnlyDataset(path);
    if (title === null) continue;
    const name = path.slice(path.lastIndexOf('/') + 1);
    let dataset = byDataset.get(title);
    if (!dataset) byDataset.set(title, (dataset = { title, images: [], names: new Set() }));
    if (dataset.names.has(name)) throw fail(`dataset "${title}" would get two images named "${name}"`, undefined, `/files/${index}/path`);
    dataset.names.add(name);
    dataset.images.push({ name, imagePath: path, annotationPath: null });
  }
  return [...byDataset.values()].map(({ title, images }) => ({ title, images }));
}

async function readJsonBlob(ctx: Context, hash: string, path: string, at: string): Promise<unknown> {
  try {
    return JSON.parse((await ctx.blobs.readBytes(hash)).toString('utf8'));
  } catch {
    throw fail(`${path} is not valid JSON`, path, at);
  }
}

function choosePreset(request: ImportRequest, staged: Map<string, { kind: string; format: string }>): 'supervisely' | 'images' | ForeignFormat {
  const { preset } = request;
  if (preset === PRESETS.supervisely) return 'supervisely';
  if (preset === PRESETS.imagesOnly) return 'images';
  if (preset === PRESETS.coco) return 'coco';
  if (preset === PRESETS.pascalVoc) return 'pascal_voc';
  if (preset === PRESETS.yolo) return 'yolo';
  // preset 0: the files say which format they are, by their declared format, else by their paths.
  const formats = new Set([...staged.values()].filter((f) => f.kind !== 'image').map((f) => f.format));
  const paths = request.files.map((f) => f.path);
  const foreign = detectForeignFormat(paths, formats);
  if (foreign) return foreign;
  if ((['coco', 'yolo', 'pascal_voc'] as const).filter((f) => formats.has(f)).length > 1) {
    throw fail('files of several annotation formats were uploaded; import them separately or choose a preset', 'files');
  }
  return hasSuperviselyFiles(paths) ? 'supervisely' : 'images';
}

async function makePlan(ctx: Context, teamId: number, request: ImportRequest, { byPath, staged }: CheckedFiles): Promise<Plan> {
  const format = choosePreset(request, staged);
  if (format === 'coco' || format === 'pascal_voc' || format === 'yolo') {
    return { ...(await planForeignImport(ctx, teamId, format, request.files, staged)), unsupportedClasses: [] };
  }
  const paths = request.files.map((f) => f.path);
  if (format === 'images') {
    return { format, classes: [], tags: [], unsupportedClasses: [], datasets: planImagesOnly(paths), warnings: [], moreWarnings: 0 };
  }
  let layout;
  try {
    // A new project takes its classes from the meta; an existing one has them already, and its
    // annotations are checked against them when no meta comes (import.handler.ts reads the project's).
    layout = planProject(paths, { requireMeta: request.project.id === null });
  } catch (error) {
    // The layout of the list as a whole (no meta.json for a new project, say): about every file.
    if (error instanceof SuperviselyFormatError) throw fail(error.message, undefined, '/files');
    throw error;
  }
  const { metaPath } = layout;
  const meta = metaPath === null ? NO_META : await readMeta(ctx, byPath, staged, metaPath, fileAt(request.files, metaPath));
  const warnings = new KeptWarnings<{ path: string; message: string }>();
  for (const c of meta.unsupported) warnings.push({ path: metaPath ?? '', message: `class "${c.title}" has shape "${c.shape}", which is not supported: its objects are skipped` });
  for (const d of layout.datasets) for (const path of d.annotationsWithoutImage) warnings.push({ path, message: 'annotation without an image of that name' });
  return {
    format,
    classes: meta.classes,
    tags: meta.tags,
    unsupportedClasses: meta.unsupported.map((c) => ({ title: c.title, shape: c.shape })),
    datasets: layout.datasets.map((d) => ({ title: d.name, images: d.images })),
    warnings: warnings.list,
    moreWarnings: warnings.more,
  };
}

/** What an import without a meta adds to its project: nothing. */
const NO_META: ProjectMeta = { classes: [], tags: [], unsupported: [] };

/** The project meta of a Supervisely import, from the uploaded class file at `metaPath`. */
async function readMeta(ctx: Context, byPath: Map<string, ImportFile>, staged: Map<string, staging.StagedFile>, metaPath: string, at: string): Promise<ProjectMeta> {
  const metaFile = byPath.get(metaPath)!;
  if (!metaFile.fileId) throw fail(`${metaPath} must be an uploaded class file (fileId)`, metaPath, at);
  try {
    return parseProjectMeta(await readJsonBlob(ctx, staged.get(metaFile.fileId)!.hash, metaPath, at));
  } catch (error) {
    if (error instanceof SuperviselyFormatError) throw fail(`${metaPath}: ${error.message}`, metaPath, at);
    throw error;
  }
}

/**
 * Refuses an import that brings a class the project has with another shape (the objects of a class
 * keep one geometry): the contract answers 400, naming each such class.
 */
function refuseClassClashes(clashes: string[]): void {
  if (clashes.length) throw validation(`classes exist in the project with another shape: ${clashes.join(', ')}`, { classes: clashes });
}

/** The project an import writes into: a new one titled `title` when `id` is null, else the team's `id`. */
async function targetProject(
  trx: Kysely<Database>,
  caller: Caller,
  id: number | null,
  title: string | undefined,
): Promise<{ projectId: number; projectTitle: string }> {
  const teamId = caller.teamId;
  if (id === null) {
    const projectTitle = title!.trim();
    const projectId = await projects.insertProject(trx, teamId, projectTitle);
    await adoptNewProject(trx, caller, projectId);
    return { projectId, projectTitle };
  }
  const project = await projects.findProject(trx, teamId, id);
  if (!project) throw notFound('project', { projectId: id });
  return { projectId: project.id, projectTitle: project.title };
}

/** The request's files by path, and the staged files they name by id. */
interface CheckedFiles {
  byPath: Map<string, ImportFile>;
  staged: Map<string, staging.StagedFile>;
}

/** Checks files: safe unique paths, hashes and fileIds the team owns. */
async function checkFiles(db: Kysely<Database>, teamId: number, files: ImportFile[]): Promise<CheckedFiles> {
  const byPath = new Map<string, ImportFile>();
  // Lists of a hundred thousand: one plain loop, no per-file arrays or closures.
  const hashes = new Set<string>();
  const ids = new Set<string>();
  for (let i = 0; i < files.length; i += 1) {
    const f = files[i]!;
    if (!isSafeRelativePath(f.path)) throw fail(`files[${i}].path must be a relative, normalised path without "..", "\\" or NUL`, `files[${i}].path`);
    // A path seen before leaves the map's size as it was: one lookup, not two.
    const known = byPath.size;
    if (byPath.set(f.path, f).size === known) throw fail(`files[${i}].path "${f.path}" appears twice`, `files[${i}].path`);
    if ((f.hash === undefined) === (f.fileId === undefined)) throw fail(`files[${i}] needs a hash or a fileId`, `files[${i}]`);
    if (f.hash !== undefined) {
      if (!isValidHash(f.hash)) throw fail(`files[${i}].hash is not the base64 of a SHA-256 digest`, `files[${i}].hash`);
      hashes.add(f.hash);
    } else ids.add(f.fileId!);
  }
  const now = new Date().toISOString();
  const unknown = await staging.unknownHashes(db, teamId, [...hashes], now);
  const unknownHash = unknown.size > 0 ? files.findIndex((f) => f.hash !== undefined && unknown.has(f.hash)) : -1;
  if (unknownHash >= 0) throw fail(`files[${unknownHash}].hash is not a known image: upload it first`, `files[${unknownHash}].hash`);
  const staged = await staging.findStagedFiles(db, teamId, [...ids], now);
  // Each id found once (they are distinct): nothing to look for.
  const unknownFile = staged.size === ids.size ? -1 : files.findIndex((f) => f.fileId !== undefined && !staged.has(f.fileId));
  if (unknownFile >= 0) throw fail(`files[${unknownFile}].fileId is not a known upload (or it expired)`, `files[${unknownFile}].fileId`);
  return { byPath, staged };
}

interface DatasetMeta {
  id: number;
  isNew: boolean;
  title: string;
}

/** The id of the project's dataset titled `title`, created if missing; its entry goes to `meta`. */
async function targetDataset(trx: Kysely<Database>, projectId: number, title: string, meta: DatasetMeta[]): Promise<number> {
  const existing = await datasets.findDatasetByTitle(trx, projectId, title);
  const id = existing?.id ?? (await datasets.insertDataset(trx, projectId, title));
  meta.push({ id, isNew: !existing, title });
  return id;
}

/**
 * Queues the import task, with its plan and the meta every import starts with: the first planning
 * warnings (KEPT_WARNINGS) and, in `moreWarnings`, how many more there were.
 */
async function queueImport(
  trx: Kysely<Database>,
  principal: Principal,
  size: number,
  project: { id: number; isNew: boolean; title: string },
  datasetMeta: DatasetMeta[],
  input: ImportInput,
  items: ImportItem[],
  warnings: { path: string; message: string }[] = [],
  moreWarnings = 0,
): Promise<number> {
  const taskId = await tasks.createTask(trx, {
    teamId: principal.teamId,
    userId: principal.userId,
    type: 'import',
    size,
    projectId: project.id,
    meta: {
      project,
      datasets: datasetMeta,
      path: null,
      format: input.format,
      progress: { done: 0, total: items.length },
      ...(warnings.length ? { warnings: warnings.slice(0, KEPT_WARNINGS) } : {}),
      ...(warnings.length > KEPT_WARNINGS || moreWarnings > 0 ? { moreWarnings: warnings.length - Math.min(warnings.length, KEPT_WARNINGS) + moreWarnings } : {}),
    },
    input,
  });
  await importRepo.insertPlan(trx, taskId, items);
  return taskId;
}

/** Validates the request, creates what it names, and queues the import. Answers the task id. */
export async function startImport(ctx: Context, principal: Principal, request: ImportRequest): Promise<number> {
  const db = ctx.db.kysely;
  if (request.project.id !== null) await checkImportIntoProject(db, principal, request.project.id);
  const checked = await checkFiles(db, principal.teamId, request.files);
  const { byPath, staged } = checked;
  const plan = await makePlan(ctx, principal.teamId, request, checked);

  // Every image must come by hash, every annotation by an uploaded annotation file. The hashes of each
  // planned image and of its annotation, in the plan's order, are kept for the task's plan.
  const imageHashes: string[] = [];
  const annotationHashes: (string | null)[] = [];
  for (const d of plan.datasets) {
    for (const image of d.images) {
      const file = byPath.get(image.imagePath)!;
      if (!file.hash) throw fail(`${image.imagePath} is an image and must be given by hash`, image.imagePath, fileAt(request.files, image.imagePath));
      imageHashes.push(file.hash);
      let annotation = image.annotationHash ?? null;
      if (image.annotationPath) {
        const ann = byPath.get(image.annotationPath)!;
        const stagedAnn = ann.fileId ? staged.get(ann.fileId) : undefined;
        if (!stagedAnn || stagedAnn.kind !== 'annotation') {
          throw fail(`${image.annotationPath} must be an uploaded annotation file (fileId)`, image.annotationPath, fileAt(request.files, image.annotationPath));
        }
        annotation ??= stagedAnn.hash;
      }
      annotationHashes.push(annotation);
    }
  }
  if (imageHashes.length === 0) {
    const first = plan.warnings[0];
    throw fail(`the import holds no image${first ? `; first problem: ${first.path}: ${first.message}` : ''}`, 'files');
  }
  if (request.project.id === null && !request.project.title?.trim()) throw fail('a new project needs a title', 'project.title');

  const size = (await staging.totalBlobSize(db, imageHashes)) + [...staged.values()].reduce((n, s) => n + s.size, 0);

  const taskId = await db.transaction().execute(async (trx) => {
    const isNew = request.project.id === null;
    const { projectId, projectTitle } = await targetProject(trx, principal, request.project.id, request.project.title);
    const clashes = await importRepo.ensureClasses(trx, projectId, plan.classes);
    refuseClassClashes(clashes);
    for (const tag of plan.tags) {
      await tags.ensureTag(trx, { projectId, scope: tag.scope, title: tag.title, hotkey: '', valueType: tag.valueType, values: tag.valueType === 'oneof_string' ? tag.values : undefined, createdBy: principal.userId });
    }
    const datasetMeta: DatasetMeta[] = [];
    const items: ImportItem[] = [];
    for (const d of plan.datasets) {
      const datasetId = await targetDataset(trx, projectId, d.title, datasetMeta);
      for (const image of d.images) {
        const k = items.length;
        items.push({ d: datasetId, n: image.name, h: imageHashes[k]!, a: annotationHashes[k]!, p: image.imagePath });
      }
    }
    const input: ImportInput = {
      projectId,
      onConflict: request.onConflict ?? 'ignore',
      format: plan.format,
      unsupportedClasses: plan.unsupportedClasses.map((c) => c.title),
    };
    return queueImport(trx, principal, size, { id: projectId, isNew, title: projectTitle }, datasetMeta, input, items, plan.warnings, plan.moreWarnings);
  });
  ctx.tasksQueued.notify();
  return taskId;
}

export interface LocalImportRequest {
  id: number | null;
  title?: string;
  datasetsIds: number[];
}

/**
 * POST /tasks/import/local: copies datasets of the team into a project (a new one when `id` is null or
 * 0). Images are shared by hash; classes and tags are carried over by title.
 */
export async function startLocalImport(ctx: Context, principal: Principal, request: LocalImportRequest): Promise<number> {
  const db = ctx.db.kysely;
  const sources: DatasetRow[] = [];
  for (const datasetId of new Set(request.datasetsIds)) {
    const dataset = await datasets.findDataset(db, principal.teamId, datasetId);
    if (!dataset) throw notFound('dataset', { datasetId });
    sources.push(dataset);
  }
  if (sources.length === 0) throw fail('datasetsIds must name at least one dataset', 'datasetsIds');
  const newProject = request.id === null || request.id === 0;
  if (!newProject) await checkImportIntoProject(db, principal, request.id!);
  if (newProject && !request.title?.trim()) throw fail('a new project needs a title', 'title');
  const sourceImages = await importRepo.imagesOfDatasets(db, sources.map((d) => d.id));
  if (sourceImages.length === 0) throw fail('the datasets hold no image', 'datasetsIds');
  const size = sourceImages.reduce((n, i) => n + Number(i.size), 0);

  const taskId = await db.transaction().execute(async (trx) => {
    const { projectId, projectTitle } = await targetProject(trx, principal, newProject ? null : request.id, request.title);
    for (const sourceProjectId of new Set(sources.map((d) => d.project_id))) {
      if (sourceProjectId === projectId) continue;
      const clashes = await importRepo.ensureClasses(trx, projectId, await importRepo.classDefinitions(trx, sourceProjectId));
      refuseClassClashes(clashes);
      for (const tag of await importRepo.tagDefinitions(trx, sourceProjectId)) {
        await tags.ensureTag(trx, { projectId, scope: tag.scope, title: tag.title, hotkey: tag.hotkey, createdBy: principal.userId });
      }
    }
    const datasetMeta: DatasetMeta[] = [];
    const targetOf = new Map<number, number>();
    for (const source of sources) targetOf.set(source.id, await targetDataset(trx, projectId, source.title, datasetMeta));
    const input: ImportInput = { projectId, onConflict: 'rename', format: 'local', unsupportedClasses: [] };
    const items = sourceImages.map((i) => ({ d: targetOf.get(i.dataset_id)!, n: i.name, h: i.hash, a: null, p: `${i.dataset_id}/${i.name}`, s: i.id }));
    return queueImport(trx, principal, size, { id: projectId, isNew: newProject, title: projectTitle }, datasetMeta, input, items);
  });
  ctx.tasksQueued.notify();
  return taskId;
}
