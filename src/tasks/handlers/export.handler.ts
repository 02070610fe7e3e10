// The export task: the project's (or a version's) images a page at a time → ExportRecords → the format writer →
// a streaming zip → the archive store, which publishes the archive only when it is whole.
//
// Nothing is committed along the way, so a resumed task (its worker died) simply starts over; a stop,
// a failure or a lost lease leaves no archive from this attempt.
import { createFormatWriter } from '../../formats/writers.ts';
import type { ArchiveEntry, ExportProject, ExportRecord, FormatWriter, WriterNotice } from '../../formats/writer.ts';
import type { ZipArchive } from '../../formats/zip-archive.ts';
import * as exportRepo from '../../repositories/export.repository.ts';
import * as versionExport from '../../repositories/version-export.repository.ts';
import { writerOptions } from '../../services/export-request.ts';
import { EXPORT_PAGE, type ExportInput, isDtlExport } from '../export-inputs.ts';
import { TaskFailure, type TaskHandler, type TaskRun } from '../handler.ts';
import { dtlExport } from './dtl-export.ts';
import { exportSpool, intoArchive } from './export-archive.ts';
import { addEntries } from './export-entries.ts';
import { checkSourceThere, checkVersionThere } from './export-source.ts';

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

const sameNotices = (a: WriterNotice[], b: WriterNotice[]) => JSON.stringify(a) === JSON.stringify(b);

/** Where an export's pages come from: the project as it is, or a version. */
interface ExportSource {
  pages(): AsyncGenerator<{ id: number; size: number; record: ExportRecord }[]>;
  /** Throws the task's failure when what is exported was deleted meanwhile. */
  stillThere(): Promise<void>;
}

/** The project's datasets, each a page at a time. */
async function projectSource(run: TaskRun, input: ExportInput): Promise<ExportSource> {
  const db = run.ctx.db.kysely;
  const datasets = await exportRepo.exportDatasets(db, input.projectId, input.datasetIds);
  return {
    async *pages() {
      for (const dataset of datasets) {
        for (let after = 0; ; ) {
          const page = await exportRepo.imagePage(db, dataset, after, EXPORT_PAGE);
          if (page.length === 0) break;
          after = page[page.length - 1]!.id;
          yield page;
        }
      }
    },
    stillThere: () => checkSourceThere(run, input.projectId, datasets.map((d) => d.id)),
  };
}

/** The version's images, a subset (or, without a split, a dataset) at a time. */
async function versionSource(run: TaskRun, versionId: number): Promise<ExportSource> {
  const db = run.ctx.db.kysely;
  const column = await versionExport.groupColumnOf(db, versionId);
  const groups = column ? await versionExport.versionGroups(db, versionId, column) : [];
  return {
    async *pages() {
      for (const value of groups) {
        for (let after = 0; ; ) {
          const page = await versionExport.versionImagePage(db, versionId, { column: column!, value }, after, EXPORT_PAGE);
          if (page.length === 0) break;
          after = page[page.length - 1]!.id;
          yield page;
        }
      }
    },
    stillThere: () => checkVersionThere(run, versionId),
  };
}

async function writeArchive(run: TaskRun, input: ExportInput, source: ExportSource, writer: FormatWriter, archive: ZipArchive, total: number): Promise<void> {
  const kept = input.common.classes ? new Set(input.common.classes) : null;
  /** Sizes of the blobs of the page being written. */
  const sizes = new Map<string, number>();
  // A stop is looked for after every entry, not only once a page: a page of large photos takes
  // seconds to write. The check is in memory; the task row is written at most every few seconds.
  const add = (entries: ArchiveEntry[]) => addEntries(archive, entries, run.ctx.blobs, sizes, () => run.checkpoint());
  let done = 0;
  let written: WriterNotice[] = [];
  for await (const page of source.pages()) {
    await source.stillThere();
    sizes.clear();
    for (const { record, size } of page) sizes.set(record.hash, size);
    // The page's entries together, so its images can be read ahead of the one being written.
    const entries: ArchiveEntry[] = [];
    let shownImages = 0;
    for (const { record } of page) {
      const shown = keptRecord(record, input, kept);
      if (!shown) continue;
      entries.push(...(await writer.add(shown)));
      shownImages += 1;
    }
    done += page.length;
    // The records (their objects parsed) are done with once the writer has them: let them go before
    // the page's images are written, which takes long enough for the collector to move whatever is
    // still held into the old generation; 200 records a page made it grow by some 100 MB between
    // its full collections.
    page.length = 0;
    await add(entries);
    run.ctx.metrics.exportImages.inc(shownImages);
    const notices = writer.notices();
    const changed = !sameNotices(notices, written);
    await run.checkpoint({ done, total: Math.max(total, done) }, changed ? { notices } : undefined);
    written = notices;
  }
  // Every page read, and the source still whole after the last of them: the archive holds all of it.
  await source.stillThere();
  await add(await writer.finish());
  await archive.end();
}

export const exportHandler: TaskHandler = async (run) => {
  if (isDtlExport(run.input)) return dtlExport(run, run.input);
  const input = run.input as ExportInput;
  const { ctx } = run;
  const version = input.versionId;
  const project = version === undefined ? await exportRepo.exportProject(ctx.db.kysely, input.projectId) : await versionExport.versionExportProject(ctx.db.kysely, version);
  if (!project) throw new TaskFailure('NOT_FOUND', `the ${version === undefined ? 'project' : 'version'} was deleted before it was exported`);
  const source = version === undefined ? await projectSource(run, input) : await versionSource(run, version);
  const total = (run.meta.progress as { total?: number } | undefined)?.total ?? 0;
  const spool = await exportSpool(run);
  // A version's archive is the same every time it is written: its dates are the version's.
  const dated = 'createdAt' in project ? { now: new Date(project.createdAt as string) } : {};
  const writer = createFormatWriter(keptProject(project, input.common.classes), { ...writerOptions(input.writer, spool), ...dated });
  try {
    await intoArchive(run, input.key, spool, {}, async (archive) => {
      await writeArchive(run, input, source, writer, archive, total);
      return () => ({ notices: writer.notices() });
    });
  } finally {
    await writer.close();
  }
};
