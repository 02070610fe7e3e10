// The import task: turns the plan made by services/import.service.ts into images and annotations.
//
// Images are committed in small batches; each batch is one transaction that writes the images, their
// tags and the `import_items` rows that mark them done, so a crash leaves every image either whole or
// absent, and a resumed task skips exactly what was committed. A bad annotation fails its image (with
// a warning in the task's meta), not the import, unless no image could be imported at all.
import type { Kysely } from 'kysely';
import { mapLimited } from '../../concurrency.ts';
import type { Database } from '../../db/types.ts';
import type { ProjectMeta } from '../../formats/supervisely/index.ts';
import * as images from '../../repositories/images.repository.ts';
import * as importRepo from '../../repositories/import.repository.ts';
import * as staging from '../../repositories/staging.repository.ts';
import * as tags from '../../repositories/tags.repository.ts';
import type { ImportItem } from '../../repositories/import.repository.ts';
import type { ImportInput } from '../../services/import.service.ts';
import { queueImportThumbnails } from '../../services/thumbnail-tasks.ts';
import { ThumbnailsAlongside } from './import-thumbnails.ts';
import { PendingItems, type PlanSummary, type Slice, summarisePlan } from './import-plan-reader.ts';
import { LARGE_IMPORT, collectGarbage, holdHeapGrowth } from '../../heap-growth.ts';
import { KEPT_WARNINGS } from '../../formats/kept-warnings.ts';
import { TaskFailure, type TaskHandler, type TaskRun } from '../handler.ts';
import { renumberObjectTagValues } from '../../formats/object-tag-values.ts';
import { type DerivedForms, EMPTY_ANNOTATION, type Preparation, prepareAnnotation } from './annotation-preparation.ts';
import { type AnnotationThreads, annotationThreads } from './annotation-threads.ts';
import { recordNewImages, taskAuthor } from '../../services/annotation-revisions.service.ts';

/** Annotation files read and parsed at once. */
const READS_AT_ONCE = 32;
/**
 * Batches prepared ahead of the one committing: two keep the annotation threads busy when a commit
 * takes longer than usual (a checkpoint), one left them idle for a seventh of a large import.
 */
const BATCHES_AHEAD = 2;
/**
 * How often progress and counts go to the task's meta when only `imported` changed (a resumed task
 * recounts that one from the committed items), and so how often a stop is noticed.
 */
const CHECKPOINT_MS = 1500;

interface Warning {
  path: string;
  message: string;
}

interface Prepared {
  index: number;
  item: ImportItem;
  /** Null when the image cannot be imported (see `warning`). */
  image: {
    size: number;
    width: number;
    height: number;
    description: string;
    objectsJson: string;
    imageTags: { title: string; value: string | null }[];
    objectTags: string[];
    objectTagValues: string | null;
    derived?: DerivedForms;
  } | null;
  warning?: Warning;
}

interface Counts {
  imported: number;
  skipped: number;
  failed: number;
}

/**
 * The images of a slice, ready to commit: blob facts from the database, annotation files read and
 * prepared here or, for a large import, on the annotation threads.
 */
async function prepareSlice(run: TaskRun, slice: Slice, meta: ProjectMeta, threads: AnnotationThreads | null): Promise<Prepared[]> {
  const annotated = slice.filter((s) => s.item.a);
  const hashes = annotated.map((s) => s.item.a!);
  const imageHashes = [...new Set(slice.map((s) => s.item.h))];
  let preparations: Preparation[];
  let blobs: Map<string, staging.ImageFacts>;
  if (threads && run.ctx.db.dialect === 'sqlite') {
    // On SQLite a thread looks the blobs up too: the query would wait on the task's thread for the
    // commit before it (one connection), and then hold that thread up.
    ({ preparations, blobs } = await threads.prepare(run.ctx.config, meta, hashes, imageHashes));
  } else {
    // The annotations are prepared while the blobs are looked up.
    const preparing = threads
      ? threads.prepare(run.ctx.config, meta, hashes).then((answer) => answer.preparations)
      : mapLimited(hashes, READS_AT_ONCE, async (hash) => prepareAnnotation(await run.ctx.blobs.readBytes(hash), meta));
    // Settled here too, so a failure of the blob query does not leave its rejection unhandled.
    preparing.catch(() => {});
    blobs = await staging.blobsByHash(run.ctx.db.kysely, imageHashes);
    preparations = await preparing;
  }
  const byIndex = new Map<number, Preparation>(annotated.map((s, i) => [s.index, preparations[i]!]));
  return slice.map(({ item, index }): Prepared => {
    const blob = blobs.get(item.h);
    if (!blob || !blob.width || !blob.height) {
      return { index, item, image: null, warning: { path: item.p, message: 'the image bytes are no longer stored; upload it again' } };
    }
    const prepared = byIndex.get(index) ?? { annotation: EMPTY_ANNOTATION };
    if ('problem' in prepared) return { index, item, image: null, warning: { path: item.p, message: prepared.problem } };
    // The contract: an annotation's size is read from the image itself.
    return { index, item, image: { size: blob.size, width: blob.width, height: blob.height, ...prepared.annotation } };
  });
}

/** import/local: copies of images that already exist, with their annotation and tags as stored. */
async function prepareCopies(run: TaskRun, slice: Slice): Promise<Prepared[]> {
  const source = await importRepo.imagesToCopy(run.ctx.db.kysely, slice.map((s) => s.item.s!));
  const rows = new Map(source.rows.map((r) => [r.id, r]));
  const imageTags = groupBy(source.imageTags, (t) => t.image_id);
  const objectTags = groupBy(source.objectTags, (t) => t.image_id);
  return slice.map(({ item, index }) => {
    const row = rows.get(item.s!);
    if (!row) return { index, item, image: null, warning: { path: item.p, message: 'the source image was deleted before it was copied' } };
    return {
      index,
      item,
      image: {
        size: Number(row.size),
        width: row.width,
        height: row.height,
        description: row.description,
        objectsJson: row.objects_json,
        imageTags: (imageTags.get(row.id) ?? []).map((t) => ({ title: t.title, value: t.value })),
        objectTags: (objectTags.get(row.id) ?? []).map((t) => t.title),
        // The copy's objects are numbered 1..n: their values follow them from the source's ids.
        objectTagValues: row.object_ids === null ? row.object_tag_values : renumberObjectTagValues(row.object_tag_values, JSON.parse(row.object_ids) as number[]),
      },
    };
  });
}

function groupBy<T>(items: T[], key: (item: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const list = groups.get(key(item));
    if (list) list.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/** The id of tag `scope:title`, created in the project if the meta did not declare it. */
async function tagId(trx: Kysely<Database>, run: TaskRun, projectId: number, known: Map<string, number>, scope: 'images' | 'figures', title: string): Promise<number> {
  const key = `${scope}:${title}`;
  const found = known.get(key);
  if (found !== undefined) return found;
  const { id } = await tags.ensureTag(trx, { projectId, scope, title, hotkey: '', createdBy: run.userId ?? (null as unknown as number) });
  known.set(key, id);
  return id;
}

/**
 * Forgets every tag the batch uses that was renamed or deleted since `known` was filled, so tagId()
 * resolves it again by the title the files give (finding it, or creating it anew). Without this a
 * batch would store the old title in its objects while referring to the renamed tag. The tags stay
 * locked until the batch commits (see importRepo.lockTags): a rename waiting on them then finds the
 * batch's images and rewrites them as it does every other image.
 */
async function revalidateTags(trx: Kysely<Database>, batch: Prepared[], known: Map<string, number>): Promise<void> {
  const keyOfId = new Map<number, string>();
  const use = (key: string) => {
    const id = known.get(key);
    if (id !== undefined) keyOfId.set(id, key);
  };
  for (const p of batch) {
    if (!p.image) continue;
    for (const t of p.image.imageTags) use(`images:${t.title}`);
    for (const title of p.image.objectTags) use(`figures:${title}`);
  }
  if (keyOfId.size === 0) return;
  const current = await importRepo.lockTags(trx, [...keyOfId.keys()]);
  for (const [id, key] of keyOfId) if (current.get(id) !== key) known.delete(key);
}

/**
 * The common case of a batch, in a few statements: no image name of the batch exists in its dataset
 * yet, and none repeats within the batch. Answers false, having written nothing, when that does not
 * hold; commitBatch then goes image by image, resolving each conflict as `onConflict` says.
 */
async function commitNewNames(trx: Kysely<Database>, run: TaskRun, input: ImportInput, batch: Prepared[], tagIds: Map<string, number>, delta: Counts): Promise<boolean> {
  const fresh = batch.filter((p) => p.image);
  const namesByDataset = new Map<number, Set<string>>();
  for (const p of fresh) {
    let names = namesByDataset.get(p.item.d);
    if (!names) namesByDataset.set(p.item.d, (names = new Set()));
    if (names.has(p.item.n)) return false;
    names.add(p.item.n);
  }
  for (const [datasetId, names] of namesByDataset) {
    if ((await importRepo.findImagesByNames(trx, datasetId, [...names])).size > 0) return false;
  }
  const ids = await images.insertImages(
    trx,
    fresh.map((p) => ({
      datasetId: p.item.d,
      projectId: input.projectId,
      name: p.item.n,
      hash: p.item.h,
      size: p.image!.size,
      width: p.image!.width,
      height: p.image!.height,
      description: p.image!.description,
      objectsJson: p.image!.objectsJson,
      objectTagValues: p.image!.objectTagValues,
      derived: p.image!.derived,
    })),
  );
  const imageTagRows = [];
  const refs = [];
  for (const [i, p] of fresh.entries()) {
    for (const t of p.image!.imageTags) {
      imageTagRows.push({ image_id: ids[i]!, tag_id: await tagId(trx, run, input.projectId, tagIds, 'images', t.title), value: t.value });
    }
    for (const title of p.image!.objectTags) refs.push({ image_id: ids[i]!, tag_id: await tagId(trx, run, input.projectId, tagIds, 'figures', title) });
  }
  for (let i = 0; i < imageTagRows.length; i += 1000) await importRepo.insertImageTags(trx, imageTagRows.slice(i, i + 1000));
  for (let i = 0; i < refs.length; i += 1000) await importRepo.insertObjectTagRefs(trx, refs.slice(i, i + 1000));
  await recordNewImages(trx, taskAuthor(run.teamId, run.taskId), fresh.map((p, i) => ({ imageId: ids[i]!, objectsJson: p.image!.objectsJson })));
  const idOf = new Map(fresh.map((p, i) => [p.index, ids[i]!]));
  await importRepo.markItems(
    trx,
    run.taskId,
    batch.map((p) => ({ item: p.index, imageId: idOf.get(p.index) ?? null })),
  );
  delta.imported += fresh.length;
  delta.failed += batch.length - fresh.length;
  return true;
}

async function commitBatch(run: TaskRun, input: ImportInput, batch: Prepared[], tagIds: Map<string, number>, counts: Counts): Promise<void> {
  const db = run.ctx.db.kysely;
  const delta: Counts = { imported: 0, skipped: 0, failed: 0 };
  await db.transaction().execute(async (trx) => {
    await run.fenceLease(trx);
    await revalidateTags(trx, batch, tagIds);
    if (await commitNewNames(trx, run, input, batch, tagIds, delta)) return;
    for (const p of batch) {
      if (!p.image) {
        await importRepo.markItem(trx, run.taskId, p.index, null);
        delta.failed += 1;
        continue;
      }
      let name = p.item.n;
      const existing = await importRepo.findImageByName(trx, p.item.d, name);
      if (existing) {
        if (input.onConflict === 'ignore') {
          await importRepo.markItem(trx, run.taskId, p.index, null);
          delta.skipped += 1;
          continue;
        }
        if (input.onConflict === 'replace') {
          await importRepo.deleteImage(trx, existing.id);
          await images.addToSizes(trx, p.item.d, input.projectId, -Number(existing.size));
        } else name = await importRepo.freeName(trx, p.item.d, name);
      }
      const imageId = await images.insertImage(trx, {
        datasetId: p.item.d,
        projectId: input.projectId,
        name,
        hash: p.item.h,
        size: p.image.size,
        width: p.image.width,
        height: p.image.height,
        description: p.image.description,
        objectsJson: p.image.objectsJson,
        objectTagValues: p.image.objectTagValues,
        derived: p.image.derived,
      });
      const imageTagRows = [];
      for (const t of p.image.imageTags) {
        imageTagRows.push({ image_id: imageId, tag_id: await tagId(trx, run, input.projectId, tagIds, 'images', t.title), value: t.value });
      }
      await importRepo.insertImageTags(trx, imageTagRows);
      const refs = [];
      for (const title of p.image.objectTags) refs.push({ image_id: imageId, tag_id: await tagId(trx, run, input.projectId, tagIds, 'figures', title) });
      await importRepo.insertObjectTagRefs(trx, refs);
      await recordNewImages(trx, taskAuthor(run.teamId, run.taskId), [{ imageId, objectsJson: p.image.objectsJson }]);
      await importRepo.markItem(trx, run.taskId, p.index, imageId);
      delta.imported += 1;
    }
  });
  counts.imported += delta.imported;
  run.ctx.metrics.importImages.inc(delta.imported);
  counts.skipped += delta.skipped;
  counts.failed += delta.failed;
}

export const importHandler: TaskHandler = async (run) => {
  const input = run.input as ImportInput;
  const thumbnails = new ThumbnailsAlongside(run.ctx);
  try {
    await importAll(run, input, thumbnails);
    await thumbnails.finish();
  } finally {
    await thumbnails.stop();
  }
  // What was not made alongside (a large import's thumbnails that lagged) is made by a task of its own.
  await queueImportThumbnails(run.ctx, run, (trx) => run.fenceLease(trx));
};

async function importAll(run: TaskRun, input: ImportInput, thumbnails: ThumbnailsAlongside): Promise<void> {
  const done = await importRepo.doneItems(run.ctx.db.kysely, run.taskId);
  const plan = await summarisePlan(run.ctx.db.kysely, run.taskId, done);
  if (plan.total < LARGE_IMPORT) {
    await importItems(run, input, plan, done, thumbnails);
  } else {
    // A large import: the heap held tight (see heap-growth.ts) after a full collection of what came
    // before it (the request that planned it), and the database told of its writes.
    const releaseHeap = holdHeapGrowth();
    const releaseWrites = run.ctx.db.holdBulkWrites();
    collectGarbage();
    try {
      await importItems(run, input, plan, done, thumbnails);
    } finally {
      releaseWrites();
      releaseHeap();
    }
  }
}

async function importItems(run: TaskRun, input: ImportInput, plan: PlanSummary, done: ReadonlySet<number>, thumbnails: ThumbnailsAlongside): Promise<void> {
  const db = run.ctx.db.kysely;
  const shapes = await importRepo.classShapes(db, input.projectId);
  const meta: ProjectMeta = {
    classes: [...shapes].map(([title, shape]) => ({ title, shape, color: '#000000' })),
    tags: [],
    unsupported: input.unsupportedClasses.map((title) => ({ title, shape: 'unsupported', path: '', message: '' })),
  };
  const tagIds = await importRepo.tagIds(db, input.projectId);
  const previous = run.meta as { imported?: number; skipped?: number; failed?: number; warnings?: Warning[]; moreWarnings?: number };
  const counts: Counts = { imported: previous.imported ?? 0, skipped: previous.skipped ?? 0, failed: previous.failed ?? 0 };
  // The first KEPT_WARNINGS warnings (the planning's first), and how many more there were.
  const warnings: Warning[] = [...(previous.warnings ?? [])];
  let moreWarnings = previous.moreWarnings ?? 0;
  const { total } = plan;
  // A resumed task counted what it committed before; recount from the committed items to stay exact.
  if (done.size > 0) counts.imported = await importRepo.countImported(db, run.taskId);

  let written = { skipped: counts.skipped, failed: counts.failed, warnings: warnings.length + moreWarnings, at: Date.now() };
  const settings = run.ctx.config.tasks;
  const batchSize = settings.importBatchSize;
  const annotated = input.format === 'local' ? 0 : plan.annotatedPending;
  const threads = settings.importThreads > 0 && annotated >= settings.importThreadMinImages ? annotationThreads(settings.importThreads) : null;
  const prepareFrom = (slice: Slice) => {
    const batch = input.format === 'local' ? prepareCopies(run, slice) : prepareSlice(run, slice, meta, threads);
    // A batch prepared ahead may fail (a file gone from the store) before its turn to be awaited comes,
    // or never come to it (a stop, an earlier failure): without a handler meanwhile, its rejection
    // would be unhandled, which ends the process. Awaited, it still throws.
    batch.catch(() => {});
    return { slice, batch };
  };
  const pendingItems = new PendingItems(db, run.taskId, done);

  // The next batches are prepared while this one commits.
  const ahead: ReturnType<typeof prepareFrom>[] = [];
  let taken = 0;
  const prepareAhead = async () => {
    while (ahead.length < BATCHES_AHEAD && taken < plan.pending) {
      const slice = await pendingItems.take(batchSize);
      if (slice.length === 0) break;
      taken += slice.length;
      ahead.push(prepareFrom(slice));
    }
  };
  await prepareAhead();
  let finished = total - plan.pending;
  while (ahead.length > 0) {
    const { slice, batch: preparing } = ahead.shift()!;
    const batch = await preparing;
    await prepareAhead();
    await commitBatch(run, input, batch, tagIds, counts);
    thumbnails.add(batch.filter((p) => p.image).map((p) => p.item.h));
    finished += slice.length;
    for (const p of batch) {
      if (!p.warning) continue;
      if (warnings.length < KEPT_WARNINGS) warnings.push(p.warning);
      else moreWarnings += 1;
    }
    const last = ahead.length === 0;
    const changed = counts.skipped !== written.skipped || counts.failed !== written.failed || warnings.length + moreWarnings !== written.warnings;
    if (last || changed || Date.now() - written.at >= CHECKPOINT_MS) {
      await run.checkpoint({ done: finished, total }, { ...counts, warnings, ...(moreWarnings > 0 ? { moreWarnings } : {}) });
      written = { skipped: counts.skipped, failed: counts.failed, warnings: warnings.length + moreWarnings, at: Date.now() };
    }
  }

  if (counts.imported === 0 && counts.failed > 0) {
    const first = warnings[0];
    throw new TaskFailure('IMPORT_FAILED', `no image could be imported${first ? `; first problem: ${first.path}: ${first.message}` : ''}`);
  }
}
