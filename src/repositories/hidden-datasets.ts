// The hidden datasets of a project (a job's honeypots, docs/jobs.md "Quality") as a subquery, for the
// project-wide reads that must leave their images out: galleries, counts, statistics, exports and versions.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/types.ts';

export const hiddenDatasetsOf = (db: Kysely<Database>, projectId: number) =>
  db.selectFrom('datasets').select('datasets.id').where('datasets.project_id', '=', projectId).where('datasets.hidden', '=', 1);

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
/** The ids of the project's hidden datasets, read once before a query that would test every image against them. */
export async function hiddenDatasetIdsOf(db: Kysely<Database>, projectId: number): Promise<number[]> {
  return (await hiddenDatasetsOf(db, projectId).execute()).map((r) => r.id);
}
