// The tasks of a DTL graph: the graph is planned again from its stored config (the data layers as
// resolved when the task was made), and every image of every data layer runs through it one at a
// time, each let go as soon as it has run (it keeps its decoded pixels). An export task writes what
// reaches the output through its format writer into the streaming zip; a `dtl` task (the supervisely
// output) writes it into a new project.
//
// An image whose processing fails is skipped: the task counts it in `meta.skipped` with the first
// few reasons, and goes on. Items that reach a dead end (null, or a name no layer reads) are counted
// in `meta.deadEnds`; a graph whose output receives nothing says so in `meta.warnings`.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { DtlItem } from '../../dtl/item.ts';
import { ArchiveOutput, DTL_ARCHIVE_TIME, type Prepared } from '../../dtl/output.ts';
import { ProjectOutput } from './dtl-project-output.ts';
import { runItem } from '../../dtl/run.ts';
import { sourcePages, takeItems } from './dtl-source.ts';
import type { DataSource, Plan } from '../../dtl/validate.ts';
import { planTeamGraph } from '../../services/dtl-data.ts';
import { AppError } from '../../errors.ts';
import type { ArchiveEntry } from '../../formats/writer.ts';
import * as projects from '../../repositories/projects.repository.ts';
import { type DtlExportInput, EXPORT_PAGE } from '../export-inputs.ts';
import { TaskFailure, type TaskHandler, type TaskRun } from '../handler.ts';
import { exportSpool, intoArchive } from './export-archive.ts';
import { addEntries } from './export-entries.ts';
import { checkSourceThere, checkVersionThere } from './export-source.ts';
import { taskAuthor } from '../../services/annotation-revisions.service.ts';

/** Reasons of skipped images the task keeps, at most. */
const REASONS_KEPT = 5;
/** Encoded image bytes held before they are written, at most (beyond one image's). */
const ENCODED_HELD_BYTES = 32 * 1024 * 1024;

export interface Skipped {
  count: number;
  first: { image: string; message: string }[];
}

/** Items that went nowhere: in all, and by the layer and destination they went to. */
export interface DeadEnds {
  count: number;
  at: { layer: number; dst: string; count: number }[];
}

/** What the graph's run tells the task's meta beside its progress. */
interface Tally {
  skipped: Skipped;
  deadEnds: DeadEnds;
  /** Items that reached the output layer. */
  output: number;
}

const newTally = (): Tally => ({ skipped: { count: 0, first: [] }, deadEnds: { count: 0, at: [] }, output: 0 });

/** The meta a finished run records: skips, dead ends and the warning of an empty output. */
function tallyMeta(plan: Plan, tally: Tally): Record<string, unknown> {
  const warnings: string[] = [];
  if (tally.output === 0) {
    const output = plan.layers[plan.output.index]!;
    const nowhere = tally.deadEnds.count > 0 ? `; ${tally.deadEnds.count} went to dead ends (meta.deadEnds)` : '';
    warnings.push(`the output is empty: no item reached layer ${output.index} (${output.action})${nowhere}`);
  }
  return { skipped: tally.skipped, deadEnds: tally.deadEnds, warnings };
}

/** Where the items of the graph go. */
interface Sink<T> {
  /** A page of source images starts; `sizes` are their blobs' byte sizes. */
  page(sizes: ReadonlyMap<string, number>): void;
  /** What the output makes of the items of one image; a failure here skips the image. */
  prepare(items: DtlItem[]): Promise<T>;
  /** Writes what prepare made; a failure here fails the task. */
  commit(prepared: T): Promise<void>;
  /** The page's images have all been run. */
  pageEnd(): Promise<void>;
}

async function planOf(run: TaskRun, input: DtlExportInput): Promise<Plan> {
  try {
    return (await planTeamGraph(run.ctx.db.kysely, run.teamId, input.dtl.config, { seed: input.dtl.seed, resolved: input.dtl.resolved })).plan;
  } catch (error) {
    // What was checked when the task was made no longer holds (a project or a class is gone).
    if (error instanceof AppError) throw new TaskFailure(error.code, error.message);
    throw error;
  }
}

/** Every image of every data layer through the graph into the sink, with progress, skips and dead ends in the task's meta. */
async function runImages<T>(run: TaskRun, plan: Plan, tally: Tally, sink: Sink<T>): Promise<void> {
  const total = (run.meta.progress as { total?: number } | undefined)?.total ?? 0;
  const { skipped, deadEnds } = tally;
  const deadEndAt = new Map<string, DeadEnds['at'][number]>();
  let done = 0;
  const sourceThere = (source: DataSource) => (source.version ? checkVersionThere(run, source.version.id) : checkSourceThere(run, source.projectId, source.datasets.map((d) => d.id)));
  for (const dataLayer of plan.data) {
    const source = plan.layers[dataLayer]!.source!;
    for await (const page of sourcePages(run.ctx.db.kysely, run.ctx.blobs, source, EXPORT_PAGE)) {
      await sourceThere(source);
      sink.page(page.sizes);
      const skippedBefore = skipped.count;
      const count = page.items.length;
      for (const item of takeItems(page)) {
        let prepared: T;
        // An image's dead ends count once it has run: a skipped image counts as skipped only.
        const nowhere: [number, number][] = [];
        let items: DtlItem[];
        try {
          items = await runItem(plan, dataLayer, item, (layer, dst) => nowhere.push([layer, dst]));
          prepared = await sink.prepare(items);
        } catch (error) {
          skipped.count += 1;
          if (skipped.first.length < REASONS_KEPT) skipped.first.push({ image: `${source.project}/${item.source.dataset}/${item.name}`, message: error instanceof Error ? error.message : String(error) });
          continue;
        }
        await sink.commit(prepared);
        tally.output += items.length;
        for (const [layer, dst] of nowhere) {
          const key = `${layer}/${dst}`;
          let entry = deadEndAt.get(key);
          if (!entry) {
            entry = { layer, dst: plan.layers[layer]!.dst[dst]!, count: 0 };
            deadEndAt.set(key, entry);
            deadEnds.at.push(entry);
            deadEnds.at.sort((a, b) => a.layer - b.layer || a.dst.localeCompare(b.dst));
          }
          entry.count += 1;
          deadEnds.count += 1;
        }
      }
      await sink.pageEnd();
      done += count;
      await run.checkpoint({ done, total: Math.max(total, done) }, skipped.count !== skippedBefore ? { skipped } : undefined);
    }
  }
  // Every page read, and every source still whole after the last of them: the output holds all of it.
  for (const dataLayer of plan.data) await sourceThere(plan.layers[dataLayer]!.source!);
}

/** An export task of a graph with an archive output. */
export async function dtlExport(run: TaskRun, input: DtlExportInput): Promise<void> {
  const plan = await planOf(run, input);
  const spool = await exportSpool(run);
  const temp = await fsp.mkdtemp(path.join(spool, 'dtl-'));
  const output = new ArchiveOutput(plan, input.dtl.seed, temp);
  const tally = newTally();
  try {
    await intoArchive(run, input.key, spool, { mtime: DTL_ARCHIVE_TIME }, async (archive) => {
      const sizes = new Map<string, number>();
      const emit = (entries: ArchiveEntry[]) => addEntries(archive, entries, run.ctx.blobs, sizes, () => run.checkpoint());
      let entries: ArchiveEntry[] = [];
      let held = 0;
      await runImages<Prepared[]>(run, plan, tally, {
        page(pageSizes) {
          sizes.clear();
          for (const [hash, size] of pageSizes) sizes.set(hash, size);
        },
        prepare: (items) => output.prepare(items),
        async commit(prepared) {
          entries.push(...(await output.add(prepared, sizes)));
          run.ctx.metrics.exportImages.inc();
          held += prepared.reduce((sum, p) => sum + (p.bytes?.length ?? 0) + (p.visual?.length ?? 0), 0);
          if (held > ENCODED_HELD_BYTES) {
            await emit(entries);
            entries = [];
            held = 0;
          }
        },
        async pageEnd() {
          await emit(entries);
          entries = [];
          held = 0;
        },
      });
      await output.finish(async (batch, batchSizes) => {
        sizes.clear();
        for (const [hash, size] of batchSizes) sizes.set(hash, size);
        await emit(batch);
      });
      await archive.end();
      return () => ({ notices: output.notices(), ...tallyMeta(plan, tally) });
    });
  } finally {
    await output.close();
    await fsp.rm(temp, { recursive: true, force: true });
  }
}

/**
 * The task of a graph whose output is a new project (`supervisely`). A resumed task removes the
 * project an earlier attempt began and writes a new one.
 */
export const dtlProjectHandler: TaskHandler = async (run) => {
  const input = run.input as DtlExportInput;
  const db = run.ctx.db.kysely;
  const plan = await planOf(run, input);
  const earlier = (run.meta.project as { id?: number } | undefined)?.id;
  if (earlier !== undefined) await projects.deleteProject(db, run.teamId, earlier);
  const output = await ProjectOutput.create(db, run.ctx.blobs, run.teamId, run.userId, plan, input.dtl.seed, taskAuthor(run.teamId, run.taskId));
  await run.updateMeta({ project: { id: output.projectId, title: plan.output.name } });
  const tally = newTally();
  await runImages<void>(run, plan, tally, {
    page: () => undefined,
    // An image is written in its own transactions: one that fails is skipped like a layer's failure.
    prepare: async (items) => void (await output.add(db, items)),
    commit: async () => undefined,
    pageEnd: async () => undefined,
  });
  await run.updateMeta(tallyMeta(plan, tally));
};
