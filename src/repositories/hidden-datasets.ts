// The datasets of a project a reader must not see, as a subquery, for the project-wide reads that must
// leave their images out: galleries, counts, statistics, exports and versions (docs/jobs.md "Quality").
// Hidden datasets (a job's honeypots) are out for everybody; managers-only datasets (where ground truth
// lives) for everybody but the project's managers, so that an annotator cannot find the source of a
// honeypot and copy its answer.
import { type ExpressionBuilder, type Expression, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from '../db/types.ts';
import { managedByMember } from './project-members.repository.ts';

/**
 * Whose read it is: `manager`, a manager of the project, sees its managers-only datasets; `member`,
 * anybody else, does not. What every role may read later (a version, an export) is read as `member`.
 */
export type DatasetReader = 'manager' | 'member';

export const hiddenDatasetsOf = (db: Kysely<Database>, projectId: number, reader: DatasetReader) =>
  db
    .selectFrom('datasets')
    .select('datasets.id')
    .where('datasets.project_id', '=', projectId)
    .where((eb) => (reader === 'manager' ? eb('datasets.hidden', '=', 1) : eb.or([eb('datasets.hidden', '=', 1), eb('datasets.managers_only', '=', 1)])));

/**
 * Across the team, the projects whose managers-only datasets a caller sees: every project (a team owner
 * or admin), none (a `read` key, which acts as a viewer at most), or those a plain member manages.
 */
export type ManagedProjects = 'all' | 'none' | { memberId: number };

/** A condition on a query over `datasets`: the dataset is not hidden, and not managers-only unless the caller manages its project. */
export function shownDatasets<DB extends Database, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, managed: ManagedProjects): Expression<SqlBool> {
  const e = eb as unknown as ExpressionBuilder<Database, 'datasets'>;
  const notHidden = e('datasets.hidden', '=', 0);
  if (managed === 'all') return notHidden;
  const ordinary = e('datasets.managers_only', '=', 0);
  if (managed === 'none') return e.and([notHidden, ordinary]);
  return e.and([notHidden, e.or([ordinary, e('datasets.project_id', 'in', managedByMember(e, managed.memberId))])]);
}

/**
 * The dataset an image is shown in: its own, or, for a honeypot in a job, the dataset of the ordinary
 * image of the job next to it (the one before it, or after it when it comes first). A honeypot's own
 * dataset is hidden and holds only honeypots: answered as it is, it would tell the annotator which
 * image of the job is one. Per image a probe of the honeypots' key, which finds nothing for any other.
 */
export const shownDatasetId = (): RawBuilder<number> => sql<number>`coalesce((
    select n.dataset_id from honeypots h
    join job_images hj on hj.image_id = h.image_id
    join job_images nj on nj.job_id = hj.job_id
    join images n on n.id = nj.image_id
    where h.image_id = images.id and not exists (select 1 from honeypots o where o.image_id = nj.image_id)
    order by case when nj.position < hj.position then hj.position - nj.position else nj.position end
    limit 1), images.dataset_id)`;
/** The ids of the project's datasets the reader must not see, read once before a query that would test every image against them. */
export async function hiddenDatasetIdsOf(db: Kysely<Database>, projectId: number, reader: DatasetReader): Promise<number[]> {
  return (await hiddenDatasetsOf(db, projectId, reader).execute()).map((r) => r.id);
}
