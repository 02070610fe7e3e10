// Ground truth lives in datasets for managers only (docs/jobs.md "Ground truth"): datasets.managers_only
// is 1 for a dataset that only the project's managers see. To anybody else its images do not exist, so
// an annotator cannot find the source of a honeypot (a hidden copy of a ground-truth image) and copy
// its answer. Every dataset starts as an ordinary one.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('datasets').addColumn('managers_only', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('datasets').dropColumn('managers_only').execute();
}
