// Versions: made, listed, read, compared and deleted within the caller's team. A version never
// changes once made; the project it came from may change in any way afterwards.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import { isUniqueViolation } from '../db/dialect.ts';
import type { Database } from '../db/types.ts';
import { conflict, notFound, validation } from '../errors.ts';
import { parseObjectTagValues, tagsWithValues } from '../formats/object-tag-values.ts';
import * as versions from '../repositories/versions.repository.ts';
import { objectIdsOf } from './object-ids.ts';
import type { Page } from './paging.ts';
import { requireProject } from './projects.service.ts';
import { checkTitle } from './titles.ts';
import { type SplitRule, randomSplit } from './version-split.ts';

export interface VersionInput {
  name: string;
  description?: string;
  /** Only these datasets of the project; all of them when absent. */
  datasetIds?: number[];
  split?: SplitRule;
}

export interface VersionClass {
  index: number;
  classId: number;
  title: string;
  shape: string;
  color: string;
}

export interface VersionResource {
  id: number;
  projectId: number;
  name: string;
  description: string;
  split: SplitRule;
  imageCount: number;
  objectCount: number;
  createdAt: string;
  /** Images per subset ('' for those of a version without a split). */
  subsets: Record<string, number>;
  classes: VersionClass[];
  tags: { tagId: number; title: string; scope: string; valueType: string }[];
}

export async function createVersion(db: Kysely<Database>, teamId: number, userId: number | null, projectId: number, input: VersionInput): Promise<VersionResource> {
  checkTitle(input.name, 'name');
  const split = checkSplit(input.split ?? { method: 'none' });
  await requireProject(db, teamId, projectId);
  if (input.datasetIds) {
    const found = await db.selectFrom('datasets').where('project_id', '=', projectId).where('hidden', '=', 0).where('id', 'in', input.datasetIds.length ? input.datasetIds : [0]).select(['id', 'managers_only']).execute();
    const missing = input.datasetIds.filter((id) => !found.some((d) => d.id === id));
    if (missing.length > 0) throw notFound('dataset', { datasetId: missing[0] });
    // Every role of the project reads a version: a managers-only dataset's images would be shown to all.
    const managersOnly = found.filter((d) => d.managers_only === 1).map((d) => d.id);
    if (managersOnly.length > 0) throw validation(`dataset ${managersOnly.join(', ')} is for managers only, and a version is read by every role of the project`, { field: 'datasetIds', datasetIds: managersOnly });
  }
  let id: number;
  try {
    id = await db.transaction().execute(async (trx) => {
      const versionId = await versions.insertVersion(trx, {
        projectId,
        name: input.name,
        description: input.description ?? '',
        split: JSON.stringify(split),
        createdBy: userId,
        createdAt: isoNow(),
      });
      const scope = { projectId, datasetIds: input.datasetIds ?? null };
      await versions.hashUnhashedImages(trx);
      await snapshotInSubsets(trx, versionId, scope, split);
      await versions.snapshotTags(trx, versionId, projectId);
      await versions.insertVersionClasses(trx, versionId, await stableClassIndices(trx, projectId, versionId));
      await versions.countVersion(trx, versionId, scope);
      return versionId;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`the project already has a version named "${input.name}"`, { field: 'name', name: input.name });
    throw error;
  }
  return describeVersion(db, teamId, id);
}

function checkSplit(split: SplitRule): SplitRule {
  if (split.method !== 'random') return split;
  const ratios = Object.entries(split.ratios);
  if (ratios.length === 0) throw validation('split.ratios must name at least one subset', { field: 'split.ratios' });
  for (const [name, ratio] of ratios) {
    if (name.trim() === '' || name.length > 64) throw validation('a subset name must be 1 to 64 characters', { field: 'split.ratios' });
    if (!(ratio > 0) || !Number.isFinite(ratio)) throw validation(`split.ratios.${name} must be a number above 0`, { field: `split.ratios.${name}` });
  }
  return { method: 'random', ratios: split.ratios, seed: split.seed, ...(split.stratify ? { stratify: true } : {}) };
}

/**
 * Each class of the project now with its index: a class the newest earlier version had keeps its
 * index (found by id, else by title), the others follow the highest index in id order.
 */
async function stableClassIndices(trx: Kysely<Database>, projectId: number, versionId: number) {
  const previous = await versions.latestVersionClasses(trx, projectId, versionId);
  const before = new Map(previous.map((p) => [p.class_id, p.idx]));
  const byTitle = new Map(previous.map((p) => [p.title, p.idx]));
  const classes = await versions.projectClasses(trx, projectId);
  const taken = new Set<number>();
  const indexOf = new Map<number, number>();
  for (const c of classes) {
    const kept = before.get(c.id) ?? byTitle.get(c.title);
    if (kept !== undefined && !taken.has(kept)) {
      indexOf.set(c.id, kept);
      taken.add(kept);
    }
  }
  let next = Math.max(0, ...before.values(), ...byTitle.values()) + 1;
  for (const c of classes) {
    if (indexOf.has(c.id)) continue;
    while (taken.has(next)) next++;
    indexOf.set(c.id, next);
    taken.add(next);
  }
  return classes.map((c) => ({ idx: indexOf.get(c.id)!, classId: c.id, title: c.title, shape: c.shape, color: c.color }));
}

/**
 * Adds the scope's images to the version, each in its subset as it is added (no row is written twice),
 * by one INSERT … SELECT: without a random split straight from the images; with one, the split is made
 * first from the images' ids (and, stratified, each image's classes with its most objects, found in the
 * database from the class summaries, of which only a class title each stays in memory), then all the
 * subsets go in as one list of ids. No annotation is read.
 */
async function snapshotInSubsets(trx: Kysely<Database>, versionId: number, scope: versions.VersionScope, split: SplitRule): Promise<void> {
  if (split.method === 'none') return versions.snapshotImages(trx, versionId, scope, { name: '' });
  if (split.method === 'datasets') return versions.snapshotImages(trx, versionId, scope, 'dataset title');
  let ids: number[];
  let strata: Map<number, string> | undefined;
  if (split.stratify) {
    ids = [];
    strata = new Map();
    const titles = new Map((await versions.projectClasses(trx, scope.projectId)).map((c) => [c.id, c.title]));
    // Only the classes that tie for an image's most objects come back, so its stratum is the first of
    // their titles in dominantClass's order: the same as dominantClass over all of its classes gives.
    for await (const page of versions.scopeStrataCandidates(trx, scope)) {
      for (const [imageId, classId] of page) {
        const title = classId === null ? undefined : titles.get(classId);
        const before = strata.get(imageId);
        if (before === undefined) {
          ids.push(imageId);
          strata.set(imageId, title ?? '');
        } else if (title !== undefined && (before === '' || title < before)) {
          strata.set(imageId, title);
        }
      }
    }
  } else {
    ids = await versions.scopeImageIds(trx, scope);
  }
  await versions.snapshotSubsets(trx, versionId, scope.projectId, randomSplit(ids, split.ratios, split.seed, strata));
}

export async function requireVersion(db: Kysely<Database>, teamId: number, versionId: number): Promise<versions.VersionRow> {
  const row = await versions.findVersion(db, teamId, versionId);
  if (!row) throw notFound('version', { versionId });
  return row;
}

export async function describeVersion(db: Kysely<Database>, teamId: number, versionId: number): Promise<VersionResource> {
  const row = await requireVersion(db, teamId, versionId);
  const [classes, tags, subsets] = await Promise.all([versions.versionClasses(db, versionId), versions.versionTags(db, versionId), versions.subsetCounts(db, versionId)]);
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    description: row.description,
    split: JSON.parse(row.split) as SplitRule,
    imageCount: row.image_count,
    objectCount: row.object_count,
    createdAt: row.created_at,
    subsets: Object.fromEntries([...subsets].sort(([a], [b]) => (a < b ? -1 : 1))),
    classes: classes.map((c) => ({ index: c.idx, classId: c.class_id, title: c.title, shape: c.shape, color: c.color })),
    tags: tags.map((t) => ({ tagId: t.tag_id, title: t.title, scope: t.scope, valueType: t.value_type })),
  };
}

export async function pageOfVersions(db: Kysely<Database>, teamId: number, projectId: number, afterId: number | undefined, limit: number): Promise<Page<VersionResource>> {
  await requireProject(db, teamId, projectId);
  const rows = await versions.listVersions(db, projectId, afterId, limit + 1);
  const kept = rows.slice(0, limit);
  return {
    items: await Promise.all(kept.map((r) => describeVersion(db, teamId, r.id))),
    nextAfterId: rows.length > limit ? kept[kept.length - 1]!.id : null,
  };
}

export async function deleteVersion(db: Kysely<Database>, teamId: number, versionId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await requireVersion(trx, teamId, versionId);
    await versions.deleteVersion(trx, versionId);
  });
}

/**
 * The stored bytes of an image of the version: those of the hash the version holds, so they are read
 * even after the image is deleted or its project changed (the blob sweep keeps a version's blobs).
 */
export async function versionImageFile(db: Kysely<Database>, teamId: number, versionId: number, imageId: number): Promise<{ hash: string; mediaType: string; size: number }> {
  await requireVersion(db, teamId, versionId);
  const file = await versions.findVersionImageFile(db, teamId, versionId, imageId);
  if (!file) throw notFound('image', { versionId, imageId });
  return file;
}

/** An image of a version as the API answers it: its annotation as it was when the version was made. */
export interface VersionImage {
  imageId: number;
  datasetId: number;
  dataset: string;
  name: string;
  hash: string;
  width: number;
  height: number;
  subset: string;
  description: string;
  tags: { title: string; value: unknown }[];
  objects: Record<string, unknown>[];
}

export async function pageOfVersionImages(db: Kysely<Database>, teamId: number, versionId: number, subset: string | undefined, afterId: number | undefined, limit: number): Promise<Page<VersionImage>> {
  await requireVersion(db, teamId, versionId);
  const rows = await versions.pageOfVersionImages(db, versionId, subset, afterId, limit + 1);
  const kept = rows.slice(0, limit);
  const tags = new Map<number, { title: string; value: unknown }[]>();
  for (const t of await versions.versionImageTags(db, versionId, kept.map((r) => r.image_id))) {
    const list = tags.get(t.image_id) ?? [];
    list.push({ title: t.title, value: t.value === null ? null : (JSON.parse(t.value) as unknown) });
    tags.set(t.image_id, list);
  }
  return {
    items: kept.map((r) => ({
      imageId: r.image_id,
      datasetId: r.dataset_id,
      dataset: r.dataset_title,
      name: r.name,
      hash: r.hash,
      width: r.width,
      height: r.height,
      subset: r.subset,
      description: r.description,
      tags: tags.get(r.image_id) ?? [],
      objects: objectsOf(r),
    })),
    nextAfterId: rows.length > limit ? kept[kept.length - 1]!.image_id : null,
  };
}

/** The stored objects, each with its id first and its tags with their values. */
function objectsOf(row: Pick<versions.VersionImageRow, 'objects_json' | 'object_ids' | 'object_tag_values'>): Record<string, unknown>[] {
  const objects = JSON.parse(row.objects_json) as (Record<string, unknown> & { tags?: string[] })[];
  const ids = objectIdsOf(row.object_ids, objects.length);
  const values = parseObjectTagValues(row.object_tag_values);
  return objects.map((o, i) => ({ id: ids[i], ...o, tags: tagsWithValues(o.tags ?? [], values, ids[i]!) }));
}

export interface VersionDiff {
  from: number;
  to: number;
  images: { added: number; removed: number; changed: number; unchanged: number };
  /** Per class title: objects added, removed and changed (same object id, other content). */
  classes: { title: string; added: number; removed: number; changed: number }[];
}

/** What changed from version `fromId` to version `toId` (both of the team), image by image and object by object. */
export async function diffVersions(db: Kysely<Database>, teamId: number, fromId: number, toId: number): Promise<VersionDiff> {
  await requireVersion(db, teamId, fromId);
  await requireVersion(db, teamId, toId);
  const images = { added: 0, removed: 0, changed: 0, unchanged: 0 };
  const classes = new Map<string, { added: number; removed: number; changed: number }>();
  const count = (title: string, what: 'added' | 'removed' | 'changed') => {
    let c = classes.get(title);
    if (!c) classes.set(title, (c = { added: 0, removed: 0, changed: 0 }));
    c[what]++;
  };
  const byId = (row: versions.VersionImageRow) => new Map(objectsOf(row).map((o) => [o.id as number, o]));
  // A merge of the two lists in image id order, a page of each at a time.
  const from = pagedRows(db, fromId);
  const to = pagedRows(db, toId);
  let a = await from.next();
  let b = await to.next();
  while (!a.done || !b.done) {
    if (b.done || (!a.done && a.value.image_id < b.value.image_id)) {
      images.removed++;
      for (const o of objectsOf(a.value)) count(o.classTitle as string, 'removed');
      a = await from.next();
    } else if (a.done || b.value.image_id < a.value.image_id) {
      images.added++;
      for (const o of objectsOf(b.value)) count(o.classTitle as string, 'added');
      b = await to.next();
    } else {
      const before = a.value;
      const after = b.value;
      // One hash, one content: the same hash is the same objects, ids, tag values and description.
      const same = before.annotation_hash === after.annotation_hash;
      if (same) images.unchanged++;
      else {
        images.changed++;
        const old = byId(before);
        const now = byId(after);
        for (const [id, o] of now) {
          const was = old.get(id);
          if (!was) count(o.classTitle as string, 'added');
          else if (JSON.stringify(was) !== JSON.stringify(o)) count(o.classTitle as string, 'changed');
        }
        for (const [id, o] of old) if (!now.has(id)) count(o.classTitle as string, 'removed');
      }
      a = await from.next();
      b = await to.next();
    }
  }
  return {
    from: fromId,
    to: toId,
    images,
    classes: [...classes].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([title, c]) => ({ title, ...c })),
  };
}

async function* pagedRows(db: Kysely<Database>, versionId: number): AsyncGenerator<versions.VersionImageRow> {
  for (let after: number | undefined; ; ) {
    const page = await versions.pageOfVersionImages(db, versionId, undefined, after, 1000);
    yield* page;
    if (page.length < 1000) return;
    after = page[page.length - 1]!.image_id;
  }
}
