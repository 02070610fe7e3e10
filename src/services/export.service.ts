// Export rules seen from the API: starting an export task (everything checked before the task
// exists), reading it, its archive, and removing both.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import type { Readable } from 'node:stream';
import type { Context } from '../context.ts';
import { AppError, conflict, notFound, validation } from '../errors.ts';
import * as datasets from '../repositories/datasets.repository.ts';
import * as exportRepo from '../repositories/export.repository.ts';
import * as projects from '../repositories/projects.repository.ts';
import * as tasks from '../repositories/tasks.repository.ts';
import * as versionExportRepo from '../repositories/version-export.repository.ts';
import * as versionRepo from '../repositories/versions.repository.ts';
import { type ArchiveStat, type ByteRange, archiveKey } from '../storage/archive-store.ts';
import { type CommonOptions, type ExportRequest, type FormatOptions, SAVE_LAYER, parseExportOptions } from './export-request.ts';
import type { Principal } from './keys.service.ts';
import { planTeamGraph } from './dtl-data.ts';
import { DTL_TASK, type DtlExportInput, EXPORT_PAGE, EXPORT_TASK, type ExportInput } from '../tasks/export-inputs.ts';
import { checkIfMatch } from './preconditions.ts';
import { requestStop } from './task-transitions.ts';
import { type TaskView, toTaskView } from './task-view.ts';
import { requireProjectRole } from './project-access.ts';

/** How long DELETE waits for a running export to stop before answering 409. */
const STOP_WAIT_MS = 15_000;

export async function startExport(ctx: Context, principal: Principal, request: ExportRequest): Promise<TaskView> {
  if (request.config !== undefined) {
    const plain = (['projectId', 'datasetIds', 'version', 'format', 'options'] as const).find((f) => request[f] !== undefined);
    if (plain) throw validation(`give a config or ${plain}, not both: a config names its projects and its output itself`, { field: plain });
    return startDtlExport(ctx, principal, request.config);
  }
  if (request.format === undefined) throw validation('give a format (or a DTL config)', { field: 'format' });
  const db = ctx.db.kysely;
  const { writer, common } = parseExportOptions(request.format, request.options ?? {});
  if (request.version !== undefined) return startVersionExport(ctx, principal, request.version, request, writer, common);
  let projectId = request.projectId;
  let subset: number[] | null = null;
  if (request.datasetIds !== undefined) {
    subset = [...new Set(request.datasetIds)].sort((a, b) => a - b);
    if (subset.length === 0) throw validation('datasetIds must name at least one dataset', { field: 'datasetIds' });
    for (const datasetId of subset) {
      const dataset = await datasets.findDataset(db, principal.teamId, datasetId);
      if (!dataset) throw notFound('dataset', { datasetId });
      projectId ??= dataset.project_id;
      if (dataset.project_id !== projectId) throw validation('every dataset of an export must belong to its project', { field: 'datasetIds', datasetId });
      // Every role of the project may download an export: a managers-only dataset's images would be shown to all.
      if (dataset.managers_only === 1) throw validation(`dataset ${datasetId} is for managers only, and an export is read by every role of the project`, { field: 'datasetIds', datasetId });
    }
  }
  if (projectId === undefined) throw validation('give projectId or datasetIds', { field: 'projectId' });
  const project = await projects.findProject(db, principal.teamId, projectId);
  if (!project) throw notFound('project', { projectId });
  const definition = (await exportRepo.exportProject(db, projectId))!;
  checkClasses(common, definition.classes, 'project');
  const chosen = await exportRepo.exportDatasets(db, projectId, subset);
  const { images, bytes } = await exportRepo.countImages(db, chosen.map((d) => d.id));

  const name = `${project.title}-${writer.format}`;
  const config = dtlConfig(project.title, subset ? chosen.map((d) => d.title) : null, null, name, writer, common, definition.classes.map((c) => c.title));
  return queueExport(ctx, principal, { name, config, images, bytes }, { projectId, datasetIds: chosen.map((d) => d.id), writer, common });
}

/** Classes named in `options.classes` that the export's class list does not have: a 400. */
function checkClasses(common: CommonOptions, classes: readonly { title: string }[], owner: string): void {
  if (!common.classes) return;
  const known = new Set(classes.map((c) => c.title));
  const unknown = common.classes.filter((c) => !known.has(c));
  if (unknown.length) throw validation(`the ${owner} has no class ${unknown.map((c) => `"${c}"`).join(', ')}`, { field: 'options.classes', classes: unknown });
}

/**
 * An export of a version: its images, annotations and classes as the version froze them, whatever
 * the project has become since; a version with a split is grouped by subset, else by dataset.
 */
async function startVersionExport(ctx: Context, principal: Principal, version: number | string, request: ExportRequest, writer: FormatOptions, common: CommonOptions): Promise<TaskView> {
  const db = ctx.db.kysely;
  if (request.datasetIds !== undefined) throw validation('a version is exported whole: give version or datasetIds, not both', { field: 'datasetIds' });
  let found: { id: number; project_id: number; name: string; split: string } | undefined;
  if (typeof version === 'number') {
    found = await versionRepo.findVersion(db, principal.teamId, version);
    if (found && request.projectId !== undefined && found.project_id !== request.projectId) found = undefined;
  } else {
    if (request.projectId === undefined) throw validation('a version named by its name needs the projectId it belongs to', { field: 'projectId' });
    const named = await versionExportRepo.findVersionNamed(db, principal.teamId, request.projectId, version);
    found = named && (await versionRepo.findVersion(db, principal.teamId, named.id));
  }
  if (!found) throw notFound('version', { version });
  const project = (await projects.findProject(db, principal.teamId, found.project_id))!;
  const definition = (await versionExportRepo.versionExportProject(db, found.id))!;
  checkClasses(common, definition.classes, 'version');
  // Subsets are the splits of the formats that have them: YOLO's folders follow them.
  if (writer.format === 'yolo' && (JSON.parse(found.split) as { method: string }).method !== 'none') writer.splitsFromDatasets = true;
  const { images, bytes } = await versionExportRepo.countVersionImages(db, found.id);
  const name = `${project.title}-${found.name}-${writer.format}`;
  const config = dtlConfig(project.title, null, found.id, name, writer, common, definition.classes.map((c) => c.title));
  return queueExport(ctx, principal, { name, config, images, bytes }, { projectId: found.project_id, datasetIds: [], versionId: found.id, writer, common });
}

/** Creates the export task with its meta and input, and wakes a worker. */
async function queueExport(
  ctx: Context,
  principal: Principal,
  what: { name: string; config: unknown; images: number; bytes: number },
  input: Omit<ExportInput, 'key'>,
): Promise<TaskView> {
  const db = ctx.db.kysely;
  const taskId = await db.transaction().execute(async (trx) => {
    const id = await tasks.createTask(trx, { teamId: principal.teamId, userId: principal.userId, type: EXPORT_TASK, size: what.bytes, meta: {}, input: {}, projectId: input.projectId });
    const key = archiveKey(principal.teamId, id);
    const meta = {
      name: what.name,
      format: input.writer.format,
      config: what.config,
      settings: { batchSize: EXPORT_PAGE, nodesCount: 1 },
      path: { bucket: ctx.archives.bucket, objectName: ctx.archives.objectName(key) },
      progress: { done: 0, total: what.images },
    };
    await tasks.setMetaAndInput(trx, id, meta, { ...input, key } satisfies ExportInput);
    return id;
  });
  ctx.tasksQueued.notify();
  return getExport(ctx, principal.teamId, taskId);
}

/**
 * An export of a DTL graph: the graph checked whole and its data layers resolved to the team's
 * datasets before the task exists; the task runs the graph again from what is stored (dtl-export.ts).
 * Layers without a seed of their own are seeded with the task's id.
 */
async function startDtlExport(ctx: Context, principal: Principal, config: unknown[]): Promise<TaskView> {
  const db = ctx.db.kysely;
  const { plan, resolved } = await planTeamGraph(db, principal.teamId, config, { seed: 0 });
  // The supervisely output writes a new project, in a task of its own type, with no archive.
  const toProject = plan.output.action === 'supervisely';
  let images = 0;
  let bytes = 0;
  for (const index of plan.data) {
    const source = plan.layers[index]!.source!;
    // The graph names its projects inside: exporting each is a manager's, as the route's own check is.
    await requireProjectRole(db, principal, source.projectId, 'manager');
    const counted = source.version ? await versionExportRepo.countVersionImages(db, source.version.id) : await exportRepo.countImages(db, source.datasets.map((d) => d.id));
    images += counted.images;
    bytes += counted.bytes;
  }
  const taskId = await db.transaction().execute(async (trx) => {
    const id = await tasks.createTask(trx, { teamId: principal.teamId, userId: principal.userId, type: toProject ? DTL_TASK : EXPORT_TASK, size: bytes, meta: {}, input: {} });
    const key = archiveKey(principal.teamId, id);
    const meta = {
      name: plan.output.name,
      config,
      settings: { batchSize: EXPORT_PAGE, nodesCount: 1 },
      ...(toProject ? {} : { path: { bucket: ctx.archives.bucket, objectName: ctx.archives.objectName(key) } }),
      progress: { done: 0, total: images },
    };
    const input: DtlExportInput = { dtl: { config, resolved, seed: id }, key };
    await tasks.setMetaAndInput(trx, id, meta, input);
    return id;
  });
  ctx.tasksQueued.notify();
  return getExport(ctx, principal.teamId, taskId);
}

/**
 * The DTL graph the request amounts to, as Supervisely's exports recorded it: the data layer, a
 * drop_obj_by_class layer when only some classes are kept, and the format's save layer.
 */
function dtlConfig(project: string, datasetTitles: string[] | null, versionId: number | null, name: string, writer: FormatOptions, common: CommonOptions, allClasses: string[]) {
  const src = datasetTitles ? datasetTitles.map((d) => `${project}/${d}`) : [`${project}/*`];
  const layers: { action: string; src: string[]; dst: string; settings: Record<string, unknown> }[] = [
    { action: 'data', src, dst: '$data', settings: { classes_mapping: 'default', ...(versionId !== null ? { version: versionId } : {}) } },
  ];
  let last = '$data';
  if (common.classes) {
    const kept = new Set(common.classes);
    layers.push({ action: 'drop_obj_by_class', src: [last], dst: '$kept', settings: { classes: allClasses.filter((c) => !kept.has(c)) } });
    last = '$kept';
  }
  const { format, ...options } = writer;
  layers.push({ action: SAVE_LAYER[format], src: [last], dst: name, settings: { ...options, onlyAnnotated: common.onlyAnnotated, ...(common.classes ? { classes: common.classes } : {}) } });
  return layers;
}

/** The team's export task (or a graph's task writing a project), or a 404 (another team's, or not an export). */
export async function getExport(ctx: Context, teamId: number, id: number, db: Kysely<Database> = ctx.db.kysely): Promise<TaskView> {
  const task = await tasks.findTaskEntry(db, teamId, id);
  if (!task || (task.type !== EXPORT_TASK && task.type !== DTL_TASK)) throw notFound('export', { exportId: id });
  // The task as every v2 route shows it (GET /v2/tasks/:id, task events): one shape everywhere.
  return toTaskView(task);
}

/** The task and, once it has finished, its archive's size and entity tag. */
export async function describeExport(ctx: Context, teamId: number, id: number, db: Kysely<Database> = ctx.db.kysely): Promise<{ task: TaskView; archive: ArchiveStat | null }> {
  const task = await getExport(ctx, teamId, id, db);
  const archive = task.type === EXPORT_TASK && task.status === 'finished' && task.meta.expiredAt === undefined ? await ctx.archives.stat(archiveKey(teamId, id)) : null;
  return { task, archive };
}

/** An export as the API answers it: the task and, once finished, its archive's size. */
export const exportView = ({ task, archive }: { task: TaskView; archive: ArchiveStat | null }) => ({ task, archive: archive && { size: archive.size } });

/** The finished export's archive: its facts and a reader of it. 409 while the export is not finished. */
export async function exportArchive(ctx: Context, teamId: number, id: number): Promise<{ task: TaskView; stat: ArchiveStat; open: (range?: ByteRange) => Promise<Readable> }> {
  const task = await getExport(ctx, teamId, id);
  if (task.type === DTL_TASK) throw new AppError('NOT_FOUND', 'this export writes a project, not an archive: meta.project names it', { exportId: id });
  if (typeof task.meta.expiredAt === 'string') {
    throw new AppError('GONE', 'the archive was removed at the end of its retention; export again', { exportId: id, expiredAt: task.meta.expiredAt });
  }
  if (task.status !== 'finished') throw conflict(`the export is ${task.status}; its archive is there once it has finished`, { exportId: id, taskStatus: task.status });
  const key = archiveKey(teamId, id);
  const stat = await ctx.archives.stat(key);
  if (!stat) throw notFound('export archive', { exportId: id });
  return { task, stat, open: (range) => ctx.archives.read(key, range, stat.etag) };
}

/**
 * Removes the export's archive and the task; a queued or running export is stopped first. With
 * `ifMatch`, only while the export is still the version that tag names: the check and the first
 * change (the stop, or the removal of an ended export) are one transaction holding the row.
 */
export async function deleteExport(ctx: Context, teamId: number, id: number, ifMatch?: string): Promise<void> {
  const db = ctx.db.kysely;
  const removed = await db.transaction().execute(async (trx) => {
    if (!(await tasks.findTaskEntry(trx, teamId, id, { lock: true }))) throw notFound('export', { exportId: id });
    const current = await describeExport(ctx, teamId, id, trx);
    checkIfMatch(exportView(current), ifMatch);
    if (isRunning(current.task.status)) {
      await requestStop(trx, teamId, id);
      return false;
    }
    await ctx.archives.delete(archiveKey(teamId, id));
    await tasks.deleteTask(trx, teamId, id);
    return true;
  });
  if (removed) return;
  let task: TaskView;
  const deadline = Date.now() + STOP_WAIT_MS;
  while ((task = await getExport(ctx, teamId, id)).status === 'started' || task.status === 'terminating') {
    if (Date.now() > deadline) throw new AppError('CONFLICT', 'the export is still stopping; try again in a moment', { exportId: id });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await ctx.archives.delete(archiveKey(teamId, id));
  await tasks.deleteTask(db, teamId, id);
}

const isRunning = (status: string): boolean => status === 'queued' || status === 'started' || status === 'terminating';
