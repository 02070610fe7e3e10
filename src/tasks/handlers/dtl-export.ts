// The export task of a DTL graph: the graph is planned again from its stored config (the data layers
// as resolved when the task was made), every image of every data layer runs through it one at a
// time, and what reaches the output goes through its format writer into the streaming zip.
//
// An image whose processing fails is skipped: the task counts it in `meta.skipped` with the first
// few reasons, and goes on.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ArchiveOutput, DTL_ARCHIVE_TIME } from '../../dtl/output.ts';
import { runItem } from '../../dtl/run.ts';
import { sourcePages } from '../../dtl/source.ts';
import { type Resolved, planGraph } from '../../dtl/validate.ts';
import { AppError } from '../../errors.ts';
import type { ArchiveEntry } from '../../formats/writer.ts';
import { EXPORT_PAGE } from '../../services/export.service.ts';
import { TaskFailure, type TaskRun } from '../handler.ts';
import { addEntries } from './export-entries.ts';
import { exportSpool, intoArchive } from './export-archive.ts';

export interface DtlExportInput {
  dtl: { config: unknown; resolved: Resolved; seed: string | number };
  /** Where the archive goes (archiveKey). */
  key: string;
}

export const isDtlExport = (input: unknown): input is DtlExportInput => typeof input === 'object' && input !== null && 'dtl' in input;

/** Reasons of skipped images the task keeps, at most. */
const REASONS_KEPT = 5;
/** Encoded image bytes held before they are written, at most (beyond one image's). */
const ENCODED_HELD_BYTES = 32 * 1024 * 1024;

export interface Skipped {
  count: number;
  first: { image: string; message: string }[];
}

export async function dtlExport(run: TaskRun, input: DtlExportInput): Promise<void> {
  const db = run.ctx.db.kysely;
  const { seed } = input.dtl;
  let plan;
  try {
    ({ plan } = await planGraph(db, run.teamId, input.dtl.config, { seed, resolved: input.dtl.resolved }));
  } catch (error) {
    // What was checked when the task was made no longer holds (a project or a class is gone).
    if (error instanceof AppError) throw new TaskFailure(error.code, error.message);
    throw error;
  }
  const total = (run.meta.progress as { total?: number } | undefined)?.total ?? 0;
  const spool = await exportSpool(run);
  const temp = await fsp.mkdtemp(path.join(spool, 'dtl-'));
  const output = new ArchiveOutput(plan, seed, temp);
  const skipped: Skipped = { count: 0, first: [] };
  try {
    await intoArchive(run, input.key, spool, { mtime: DTL_ARCHIVE_TIME }, async (archive) => {
      const sizes = new Map<string, number>();
      const emit = (entries: ArchiveEntry[]) => addEntries(archive, entries, run.ctx.blobs, sizes, () => run.checkpoint());
      let done = 0;
      for (const dataLayer of plan.data) {
        const source = plan.layers[dataLayer]!.source!;
        for await (const page of sourcePages(db, run.ctx.blobs, source, EXPORT_PAGE)) {
          sizes.clear();
          for (const [hash, size] of page.sizes) sizes.set(hash, size);
          let entries: ArchiveEntry[] = [];
          let held = 0;
          const skippedBefore = skipped.count;
          for (const item of page.items) {
            let prepared;
            try {
              prepared = await output.prepare(await runItem(plan, dataLayer, item));
            } catch (error) {
              skipped.count += 1;
              if (skipped.first.length < REASONS_KEPT) skipped.first.push({ image: `${source.project}/${item.source.dataset}/${item.name}`, message: (error as Error).message ?? String(error) });
              continue;
            }
            entries.push(...(await output.add(prepared)));
            held += prepared.reduce((sum, p) => sum + (p.bytes?.length ?? 0), 0);
            if (held > ENCODED_HELD_BYTES) {
              await emit(entries);
              entries = [];
              held = 0;
            }
          }
          await emit(entries);
          done += page.items.length;
          await run.checkpoint({ done, total: Math.max(total, done) }, skipped.count !== skippedBefore ? { skipped } : undefined);
        }
      }
      sizes.clear();
      await output.finish(emit);
      await archive.end();
      return () => ({ notices: output.notices(), skipped });
    });
  } finally {
    await output.close();
    await fsp.rm(temp, { recursive: true, force: true });
  }
}
