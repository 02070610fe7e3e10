// A task's meta may name datasets: an import's `datasets` lists those it writes into (id, title,
// whether it made them). One of a managers-only dataset (docs/jobs.md "Ground truth") is left out of
// the task as anybody who does not manage its project reads it, in v1 and v2, lists, one task and
// event streams alike: the tasks page must not tell an annotator where the ground truth lives.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { type Caller, unseenOf } from './project-access.ts';

interface WithMeta {
  meta: Record<string, unknown>;
}

/** The entries of the datasets the meta names (an import's `datasets`), as stored. */
const datasetEntries = (meta: Record<string, unknown>): unknown[] => (Array.isArray(meta.datasets) ? meta.datasets : []);

/** An entry's dataset id, if it has one. */
function idOf(entry: unknown): number | undefined {
  const id = entry && typeof entry === 'object' ? (entry as { id?: unknown }).id : undefined;
  return typeof id === 'number' ? id : undefined;
}

/** The tasks as the caller reads them: without the datasets of their meta the caller does not see. */
export async function withSeenDatasets<T extends WithMeta>(db: Kysely<Database>, caller: Caller, tasks: readonly T[]): Promise<T[]> {
  const named = tasks.flatMap((task) => datasetEntries(task.meta).flatMap((entry) => idOf(entry) ?? []));
  const unseen = new Set(named.length === 0 ? [] : await unseenOf(db, caller, 'dataset', named));
  if (unseen.size === 0) return [...tasks];
  return tasks.map((task) => {
    const entries = datasetEntries(task.meta);
    const datasets = entries.filter((entry) => !unseen.has(idOf(entry) ?? 0));
    return datasets.length === entries.length ? task : { ...task, meta: { ...task.meta, datasets } };
  });
}

/** One task as the caller reads it (see withSeenDatasets). */
export async function seenTask<T extends WithMeta>(db: Kysely<Database>, caller: Caller, task: T): Promise<T> {
  const [seen] = await withSeenDatasets(db, caller, [task]);
  return seen!;
}
