// The data layers of a DTL graph found in the database: a layer's `src` ("project/dataset",
// "project/*") as the team's project and datasets, with the project's classes and tags; with
// `settings.version`, that version of the project, its classes and tags. The graph's
// checks and plan (src/dtl/validate.ts) stay pure and take this as their resolver.
import type { Kysely } from 'kysely';
import type { LayerT } from '../dtl/config.ts';
import { type DataResolver, MAX_DATASETS, type Plan, type Resolved, type ResolvedData, layerError, list, planGraph, type ValidateOptions } from '../dtl/validate.ts';
import type { Database } from '../db/types.ts';
import * as dtlRepo from '../repositories/dtl.repository.ts';
import * as exportRepo from '../repositories/export.repository.ts';
import * as versionExport from '../repositories/version-export.repository.ts';
import * as versionRepo from '../repositories/versions.repository.ts';

/** A data layer's sources as the team's datasets, and the classes and tags of its project. */
async function resolveData(
  db: Kysely<Database>,
  teamId: number,
  layer: LayerT,
  index: number,
  resolved: Resolved[number] | undefined,
): Promise<ResolvedData> {
  const fail = (message: string, at = '/src') => layerError(index, 'data', message, at);
  const sources = list(layer.src).map((s) => ({ project: s.slice(0, s.lastIndexOf('/')), dataset: s.slice(s.lastIndexOf('/') + 1) }));
  const projectTitle = sources[0]!.project;
  if (sources.some((s) => s.project !== projectTitle)) throw fail('the sources of one data layer are datasets of one project');
  let project: { id: number; title: string } | undefined;
  if (resolved) project = await dtlRepo.teamProject(db, teamId, resolved.projectId);
  else {
    const found = await dtlRepo.projectsTitled(db, teamId, projectTitle);
    if (found.length > 1) throw fail(`the team has ${found.length} projects titled "${projectTitle}"; give them distinct titles to name one`);
    project = found[0];
  }
  if (!project) throw fail(`the team has no project "${projectTitle}"`);
  const version = (layer.settings as { version?: number | string } | undefined)?.version;
  if (version !== undefined || resolved?.versionId !== undefined) return versionData(db, teamId, project, sources, layer, index, resolved?.versionId ?? version!);
  const all = await exportRepo.exportDatasets(db, project.id, resolved?.datasetIds ?? null);
  let datasets: { id: number; title: string }[];
  if (resolved || sources.some((s) => s.dataset === '*')) datasets = all;
  else {
    const byTitle = new Map(all.map((d) => [d.title, d]));
    datasets = [];
    for (const [k, s] of sources.entries()) {
      const found = byTitle.get(s.dataset);
      if (!found) throw fail(`the project "${project.title}" has no dataset "${s.dataset}"`, Array.isArray(layer.src) ? `/src/${k}` : '/src');
      if (!datasets.includes(found)) datasets.push(found);
    }
    datasets.sort((a, b) => a.id - b.id);
  }
  if (datasets.length > MAX_DATASETS) throw fail(`a data layer reads at most ${MAX_DATASETS} datasets`);
  const definition = (await exportRepo.exportProject(db, project.id))!;
  return {
    source: { projectId: project.id, project: project.title, datasets },
    set: { classes: definition.classes, tags: definition.tags },
    resolved: { projectId: project.id, datasetIds: resolved?.datasetIds ?? (sources.some((s) => s.dataset === '*') ? null : datasets.map((d) => d.id)) },
  };
}

/** A data layer reading a version of the project: its sources must be "project/*", the version is read whole. */
async function versionData(
  db: Kysely<Database>,
  teamId: number,
  project: { id: number; title: string },
  sources: { dataset: string }[],
  layer: LayerT,
  index: number,
  version: number | string,
): Promise<ResolvedData> {
  const fail = (message: string, at: string) => layerError(index, 'data', message, at);
  if (sources.some((s) => s.dataset !== '*')) throw fail(`a version is read whole: give src "${project.title}/*"`, '/src');
  const id = typeof version === 'number' ? version : (await versionExport.findVersionNamed(db, teamId, project.id, version))?.id;
  const found = id === undefined ? undefined : await versionRepo.findVersion(db, teamId, id);
  if (!found || found.project_id !== project.id) throw fail(`the project "${project.title}" has no version ${JSON.stringify(version)}`, '/settings/version');
  const column = (await versionExport.groupColumnOf(db, found.id))!;
  const groups = await versionExport.versionGroups(db, found.id, column);
  const definition = (await versionExport.versionExportProject(db, found.id))!;
  return {
    source: { projectId: project.id, project: project.title, datasets: groups.map((title) => ({ id: 0, title })), version: { id: found.id, column } },
    set: { classes: definition.classes.map(({ title, shape, color }) => ({ title, shape, color })), tags: definition.tags },
    resolved: { projectId: project.id, datasetIds: null, versionId: found.id },
  };
}

/** The resolver of the team's data layers. */
export const teamData =
  (db: Kysely<Database>, teamId: number): DataResolver =>
  (layer, index, resolved) =>
    resolveData(db, teamId, layer, index, resolved);

/** The config checked and planned against the team's projects and datasets (validate.ts's planGraph). */
export function planTeamGraph(db: Kysely<Database>, teamId: number, config: unknown, options: ValidateOptions): Promise<{ plan: Plan; resolved: Resolved }> {
  return planGraph(teamData(db, teamId), config, options);
}
