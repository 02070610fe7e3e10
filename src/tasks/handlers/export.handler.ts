// The export task: the project's images a page at a time → ExportRecords → the format writer →
// a streaming zip → the archive store, which publishes the archive only when it is whole.
//
// Nothing is committed along the way, so a resumed task (its worker died) simply starts over; a stop,
// a failure or a lost lease leaves no archive from this attempt.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createFormatWriter } from '../../formats/writers.ts';
import type { ArchiveEntry, ExportProject, ExportRecord, FormatWriter, WriterNotice } from '../../formats/writer.ts';
import { ZipArchive } from '../../formats/zip-archive.ts';
import * as exportRepo from '../../repositories/export.repository.ts';
import { writerOptions } from '../../services/export-request.ts';
import { EXPORT_PAGE, type ExportInput } from '../../services/export.service.ts';
import { removeStaleFolders } from '../../storage/staging.ts';
import { TaskFailure, type TaskHandler, type TaskRun } from '../handler.ts';
import { addEntries } from './export-entries.ts';

/** The project as the export shows it: only the kept classes when some are chosen. */
function keptProject(project: ExportProject, classes: string[] | null): ExportProject {
  if (!classes) return project;
  const kept = new Set(classes);
  return { ...project, classes: project.classes.filter((c) => kept.has(c.title)) };
}

/** The record as the export shows it, or null when it is left out. */
function keptRecord(record: ExportRecord, input: ExportInput, kept: Set<string> | null): ExportRecord | null {
  const objects = kept ? record.objects.filter((o) => kept.has(o.classTitle)) : record.objects;
  if (input.common.onlyAnnotated && objects.length === 0) return null;
  return objects === record.objects ? record : { ...record, objects };
}

const STALE_SPOOL_MS = 7 * 24 * 60 * 60 * 1000;

const sameNotices = (a: WriterNotice[], b: WriterNotice[]) => JSON.stringify(a) === JSON.stringify(b);

async function writeArchive(run: TaskRun, input: ExportInput, writer: FormatWriter, archive: ZipArchive, total: number): Promise<void> {
  const db = run.ctx.db.kysely;
  const kept = input.common.classes ? new Set(input.common.classes) : null;
  /** Sizes of the blobs of the page being written. */
  const sizes = new Map<string, number>();
  // A stop is looked for after every entry, not only once a page: a page of large photos takes
  // seconds to write. The check is in memory; the task row is written at most every few seconds.
  const add = (entries: ArchiveEntry[]) => addEntries(archive, entries, run.ctx.blobs, sizes, () => run.checkpoint());
  let done = 0;
  let written: WriterNotice[] = [];
  for (const dataset of await exportRepo.exportDatasets(db, input.projectId, input.datasetIds)) {
    for (let after = 0; ; ) {
      const page = await exportRepo.imagePage(db, dataset, after, EXPORT_PAGE);
      if (page.length === 0) break;
      sizes.clear();
      for (const { record, size } of page) sizes.set(record.hash, size);
      // The page's entries together, so its images can be read ahead of the one being written.
      const entries: ArchiveEntry[] = [];
      for (const { record } of page) {
        const shown = keptRecord(record, input, kept);
        if (shown) entries.push(...(await writer.add(shown)));
      }
      await add(entries);
      after = page[page.length - 1]!.id;
      done += page.length;
      const notices = writer.notices();
      const changed = !sameNotices(notices, written);
      await run.checkpoint({ done, total: Math.max(total, done) }, changed ? { notices } : undefined);
      written = notices;
    }
  }
  await add(await writer.finish());
  await archive.end();
}

/**
 * Removes what an earlier attempt of this task may have published, while this run still holds the
 * task: a worker whose lease ran out unnoticed (a hung request) must not delete the archive another
 * worker has since written and finished.
 */
async function removeOwnArchive(run: TaskRun, key: string): Promise<void> {
  try {
    await run.ctx.db.kysely.transaction().execute(async (trx) => {
      await run.fenceLease(trx);
      await run.ctx.archives.delete(key);
    });
  } catch {
    // The lease is gone (the archive is another worker's now), or the store did not answer: the
    // task's failure is what the caller must hear of, not this.
  }
}

export const exportHandler: TaskHandler = async (run) => {
  const input = run.input as ExportInput;
  const { ctx } = run;
  const project = await exportRepo.exportProject(ctx.db.kysely, input.projectId);
  if (!project) throw new TaskFailure('NOT_FOUND', 'the project was deleted before it was exported');
  const total = (run.meta.progress as { total?: number } | undefined)?.total ?? 0;
  // The writers' spools live where the process keeps its temporary files (DATA_DIR/tmp), not in the
  // system's temporary folder, which may be a small RAM disk.
  const spool = path.join(ctx.config.dataDir, 'tmp', 'exports');
  await fsp.mkdir(spool, { recursive: true });
  // What a worker that died mid-export left there. A week untouched: an export still writing a spool
  // that old (in another process sharing DATA_DIR) is not to be expected.
  await removeStaleFolders(spool, STALE_SPOOL_MS);
  const writer = createFormatWriter(keptProject(project, input.common.classes), writerOptions(input.writer, spool));
  // The zip's central directory spools here past a few megabytes; the folder goes with the task.
  const zipSpool = await fsp.mkdtemp(path.join(spool, 'zip-'));
  const archive = new ZipArchive({ spoolDir: zipSpool });
  const storing = ctx.archives.put(input.key, archive.output);
  // A store that fails before it has read everything would leave the writer waiting for a reader:
  // its failure ends the archive, and the writer's next step throws it.
  storing.catch((error: unknown) => archive.fail(error instanceof Error ? error : new Error(String(error))));
  try {
    await writeArchive(run, input, writer, archive, total);
    const stat = await storing;
    await run.updateMeta({ notices: writer.notices(), archive: { size: stat.size } });
  } catch (error) {
    archive.fail(error instanceof Error ? error : new Error(String(error)));
    await storing.catch(() => undefined);
    await removeOwnArchive(run, input.key);
    throw error;
  } finally {
    await writer.close();
    await fsp.rm(zipSpool, { recursive: true, force: true });
  }
};
