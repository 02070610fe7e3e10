// The hidden datasets of a project (a job's honeypots, docs/jobs.md "Quality") as a subquery, for the
// project-wide reads that must leave their images out: galleries, counts, statistics, exports and versions.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';

export const hiddenDatasetsOf = (db: Kysely<Database>, projectId: number) =>
  db.selectFrom('datasets').select('datasets.id').where('datasets.project_id', '=', projectId).where('datasets.hidden', '=', 1);

/** The ids of the project's hidden datasets, read once before a query that would test every image against them. */
export async function hiddenDatasetIdsOf(db: Kysely<Database>, projectId: number): Promise<number[]> {
  return (await hiddenDatasetsOf(db, projectId).execute()).map((r) => r.id);
}
